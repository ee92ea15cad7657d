"""Which known transcripts a read's disk check stats, when it need not stat them all.

An agent appends to the transcripts it is writing now; one untouched for weeks is seldom
written again, and a write into a file that is already there moves no folder's mtime
(sessions/folders.py). Stat'ing every live transcript on every read cost 32 ms at 5,000
transcripts, more than the search. So a read stats:

- the HOT transcripts modified last (by the mtime the index holds), where appends happen;
- every transcript a folder listing found (a changed folder) and every one a watcher named
  (solograph/watching.py, in a long-lived process);
- COLD others in turn, in path order from where the previous read stopped, so a transcript
  rewritten in place long after its last write is seen within (transcripts / COLD) reads;
  WATCHED_COLD while a watcher runs, which names what changes from its start.

The rest keep the stat the index holds, and the answer says so: `unchecked` counts them, and
`checked_as_of` is when every transcript was last stat'ed (the start of the last full turn, or
the last sync that stat'ed them all, `solograph sessions sync`). Where the turn stands lives in
a small file beside the index (`<index>-turn`): a write to the index itself would have closing
its last connection checkpoint the WAL after every read that found nothing.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
import time

HOT = 64
COLD = 256
# Per read while a watcher runs: it names what changes from its start, so the turn is left to
# find only what changed before that (a rewrite while no process watched), at an eighth of
# the pace: 256 stats cost a kept read at 5,000 transcripts ~1 ms of its 17.
WATCHED_COLD = 32
RECORD = 1024  # bytes of the turn's file (longer when a path is)


class Turn:
    """Where the cold turn stands: the last path stat'ed, when the current turn started, and
    when the one before it did (every transcript was stat'ed since then)."""

    def __init__(self, cursor: str = "", started_ns: int = 0, previous_ns: int = 0) -> None:
        self.cursor, self.started_ns, self.previous_ns = cursor, started_ns, previous_ns

    def pick(self, live: list[str], hot: list[str], size: int = COLD) -> set[str]:
        """The paths this read stats: the HOT, and the next `size` of `live` (sorted)."""
        picked = set(hot)
        start = bisect.bisect_right(live, self.cursor)
        cold = live[start:start + size]
        if len(cold) < size:  # round the end: a full turn is done, the next one starts
            now = time.time_ns()
            self.previous_ns, self.started_ns = self.started_ns, now
            cold += live[:min(start, size - len(cold))]
        picked.update(cold)
        self.cursor = cold[-1] if cold else ""
        return picked

    def checked_ns(self) -> int:
        """Since when every transcript was stat'ed at least once (0: not known)."""
        return self.previous_ns


def _file(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("PRAGMA database_list").fetchone()
    return f"{row[2]}-turn" if row and row[2] else None


def load(conn: sqlite3.Connection) -> Turn:
    path = _file(conn)
    if path is None:
        return Turn()
    try:
        with open(path, encoding="utf-8") as fh:
            cursor, started, previous = fh.read(RECORD * 4).split("\n")[:3]
        return Turn(cursor, int(started), int(previous))
    except (OSError, ValueError):  # none yet, or torn: the turn starts again
        return Turn()


def save(conn: sqlite3.Connection, turn: Turn) -> None:
    """Best effort: a lost or torn write only has the next read stat other transcripts. The
    record is written in place, padded to one size: replacing the file (or truncating it)
    has ext4 flush it on close, 0.6-1.6 ms a read against a few microseconds."""
    target = _file(conn)
    if target is None:
        return
    record = f"{turn.cursor}\n{turn.started_ns}\n{turn.previous_ns}\n".encode()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.pwrite(fd, record.ljust(RECORD, b" "), 0)
        finally:
            os.close(fd)
    except OSError:
        pass


def all_checked(conn: sqlite3.Connection) -> None:
    """Every transcript was just stat'ed (a full sync): the turn starts again from now."""
    now = time.time_ns()
    save(conn, Turn("", now, now))
