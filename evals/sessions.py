"""The sessions suite: session search over real Claude Code transcripts.

The corpus is `$SOLOGRAPH_CORPORA/transcripts/claude-projects/` (25 files, 13 sessions: 8 from
marot/spotter, 5 from obra/episodic-memory; see its SCHEMA.md). Every run indexes it into a
fresh temporary home through `solograph.reads.session_search` (which syncs first), so the
figures reflect the current parsing and ranking code. Without SOLOGRAPH_CORPORA the suite is
skipped (`Unavailable`).

A result's id is the session id, as records carry it in `sessionId`
(`258c7280-ae70-4798-800f-63464d01a85d`).

Tags: `prompt3` (three words of the session's first prompt: the recipe of the seed's
known-answer set), `topic` (what was discussed or decided later in the session, in other
words than the prompt's), `tool` (a path, command or URL of a tool call), `archived` (the
answer's main transcript is gone: an orphan sub-agent), `typo` (one typo in a word of another
case), `id` (an identifier found in one session only: a worktree or issue id such as
`spotter-4te.2`, a function or module name, asked as written or from memory), `spaced` (an
`id` typed with spaces, `spotter 4te 2`), `joined` (an `id` typed as one lowercase word,
`activesessionregistry`).

    .venv/bin/python evals/sessions.py -v        # this suite alone, with every miss
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals import semantic  # noqa: E402
from evals.scoring import Case, QueryRefused, Unavailable  # noqa: E402

EVALS = Path(__file__).resolve().parent
CASES = EVALS / "sessions.jsonl"
QUESTIONS = EVALS / "sessions_questions.jsonl"
LIMIT = 20

Log = Callable[[str], None]


class SessionsRunner:
    def __init__(self, settings, fused: bool = False) -> None:
        self.settings = semantic.lane_on(settings) if fused else settings

    def search(self, case: Case) -> list[str]:
        from solograph.errors import BadQuery
        from solograph.reads import session_search

        try:
            answer = session_search(self.settings, case.query, project=case.project,
                                    limit=LIMIT)
        except BadQuery as exc:
            raise QueryRefused(exc.message) from None
        return [hit["session"] for hit in answer["results"]]

    def indexed(self, ids: Iterable[str]) -> set[str]:
        """The ids among `ids` that are sessions in the index (a missing one is a parsing gap,
        not a ranking one)."""
        wanted = list(ids)
        conn = sqlite3.connect(f"file:{self.settings.sessions_db}?mode=ro", uri=True)
        try:
            return {i for i in wanted if conn.execute(
                "SELECT 1 FROM sessions WHERE session_id = ?", (i,)).fetchone()}
        finally:
            conn.close()


def corpus() -> Path:
    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    root = Path(raw) / "transcripts" / "claude-projects" if raw else None
    if root is None or not root.is_dir():
        raise Unavailable("SOLOGRAPH_CORPORA is not set (or holds no transcripts/)")
    return root


def _indexed(log: Log):
    """The real transcripts indexed into a home kept for the run (every suite reads it)."""
    from solograph.config import Settings
    from solograph.sessions.sync import sync_sessions

    root = corpus()

    def build(folder: Path):
        settings = Settings(home=folder / "home", claude_projects=root)
        log(f"sessions: {sync_sessions(settings)['summary']}")
        return settings
    return semantic.KEPT.get(("sessions",), build)


def _open(log: Log, share: int | None) -> Iterator[SessionsRunner]:
    """The runner over the indexed transcripts; fused (`share` not None) with that share of
    their messages embedded."""
    if share is not None:
        semantic.require()
    settings = _indexed(log)
    if share is not None:
        from solograph.sessions import meaning as lane
        from solograph.sessions.store import open_index

        conn = open_index(settings.sessions_db)
        try:
            semantic.embed_share(lane.LANE, conn, share, log, "sessions")
        finally:
            conn.close()
    yield SessionsRunner(settings, share is not None)


@contextmanager
def open_runner(log: Log = print) -> Iterator[SessionsRunner]:
    yield from _open(log, None)


def open_runner_fused(share: int = 100):
    @contextmanager
    def opened(log: Log = print) -> Iterator[SessionsRunner]:
        yield from _open(log, share)
    return opened


def main(argv: list[str] | None = None) -> int:
    """This suite alone, scored and shown by the runner of evals/run.py."""
    from evals import run

    args = argv if argv is not None else sys.argv[1:]
    suite = run.Suite("sessions", CASES, open_runner,
                      "session search over real Claude Code transcripts")
    result = run.run_suite(suite, CASES)
    if result is None:
        return 0
    print(run.render(result, verbose="-v" in args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
