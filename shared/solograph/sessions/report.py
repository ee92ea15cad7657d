"""What one sync of the transcripts folder did: the counts every sync report and answer's
freshness are made of. Apart from the reader (ingest), which a sync of an unchanged folder
never needs to import."""

from __future__ import annotations

MAX_LISTED = 20  # unreadable paths named in a report; the count covers the rest


class Report:
    def __init__(self) -> None:
        self.files = 0  # transcript files on disk
        self.new = 0
        self.grown = 0
        self.reread = 0
        self.deleted = 0
        self.temp = 0
        self.private = 0
        self.purged = 0  # sessions removed because their folder became private
        self.entries = 0  # conversation records added
        self.bad_lines = 0  # lines skipped: not JSON, not an object, or longer than MAX_LINE
        # Why lines were skipped or read in part: not_json, not_an_object, too_long (skipped);
        # too_deep (values nested past the limit dropped, the rest read), invalid_utf8 (bad
        # bytes replaced, the rest read).
        self.bad: dict[str, int] = {}
        self.unreadable = 0  # transcript files and folders this process may not open
        self.unreadable_paths: list[str] = []  # the first few of them
        self.bytes = 0
        self.pending = 0  # changed files left for the next sync (a search's deadline passed)
        self.touched: set[int] = set()  # session keys whose rows changed

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "touched"}

    def note_unreadable(self, rel: str) -> None:
        self.unreadable += 1
        if len(self.unreadable_paths) < MAX_LISTED:
            self.unreadable_paths.append(rel)

    def note_bad(self, reason: str) -> None:
        self.bad[reason] = self.bad.get(reason, 0) + 1
