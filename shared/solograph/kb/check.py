"""The disk check before a read, without stat'ing every page of a large KB.

What a folder's ctime tells, and what it does not. Adding, removing or renaming an entry moves
its folder's ctime (so does a chmod, and an editor that saves through a rename makes a new
entry); writing into a file that is already there moves nothing but the file. So:

- Every folder the last walk saw is stat'ed (`folders`: its ctime, inode and the stats of its
  ignore files). When one moved, went, or was not to be trusted, the read walks the KB as
  before (kb/walk.py), which records the folders anew; so does a pending forced re-read
  (stored size -1: newer redaction rules, a changed layout).
- When none moved, the pages are the ones the index holds. Of those, the HOT changed last
  are stat'ed by every read, where edits happen; the others in turn, COLD per read in path
  order from where the previous read stopped (kept in `<index>-check` beside the index), so
  a page untouched for long and rewritten in place is seen within (pages / COLD) reads. An
  explicit index run sees it at once, and so does a long-lived process: there a watcher
  (solograph/watching.py) names the pages that changed, stat'ed instead of the cold pages'
  turn.

A folder changed within RACY_NS of its walk could change again without its ctime moving (the
"racy git" problem): it is kept as not to be trusted, and walked again next time. So is every
folder after a sync that left pages pending, since those pages are found by a walk.

Measured on a generated KB of 5,021 pages in 3 folders (2 busy cores): stat'ing every page
took 20 ms, this check 1-2 ms.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from solograph.frozen import Record, factory
from solograph.racy import racy

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.kb.walk import Listing

HOT = 64
COLD = 256
WATCHED_MAX = 500  # more changed paths than this: the turn of the cold pages, as without


class Quick(Record):
    """What a check without a walk found: the pages whose stat moved, with their stats now
    and what the index holds of them."""

    pages: dict[str, tuple[int, int]] = factory(default_factory=dict)
    # path -> (id, size, mtime_ns)
    stored: dict[str, tuple[int, int, int]] = factory(default_factory=dict)
    unreadable: int = 0  # entries the last walk could not open


def _within(prefix: str) -> tuple[str, str]:
    return prefix, prefix + "\U0010ffff"


def _ancestors(under: str) -> list[str]:
    if not under:
        return []
    parts = under.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts))]


def quick(conn: sqlite3.Connection, root: Path, under: str, max_bytes: int,
          watched: dict[str, int] | None = None) -> Quick | None:
    """The pages under `under` that changed, found without a walk; None when a walk is
    needed (a folder moved, none was recorded, or a forced re-read waits). `watched`: the
    paths a watcher saw change (solograph/watching.py), stat'ed instead of the cold pages'
    turn."""
    rows = conn.execute("SELECT path, ctime_ns, inode, rules, denied FROM folders").fetchall()
    if not rows:
        return None
    from solograph.kb.ignore import IGNORE_FILES
    from solograph.kb.walk import rules_stamp

    known = {r[0]: r[1:] for r in rows}
    above = set(_ancestors(under))
    if any(a not in known for a in above) or (under not in known):
        return None
    unreadable = 0
    for rel, (ctime, inode, rules, denied) in known.items():
        inside = not under or rel == under or rel.startswith(under + "/")
        if not inside and rel not in above:
            continue
        try:
            st = os.stat(root / rel if rel else root)
        except OSError:
            return None
        if inside and (ctime < 0 or st.st_ctime_ns != ctime or st.st_ino != inode):
            return None
        if rules != rules_stamp(str(root / rel if rel else root), set(IGNORE_FILES)):
            return None
        if inside:
            unreadable += denied
    prefix = f"{under}/" if under else ""
    low, high = _within(prefix)
    if conn.execute("SELECT 1 FROM docs WHERE size = -1 AND path >= ? AND path < ? LIMIT 1",
                    (low, high)).fetchone():
        return None
    picked = conn.execute(
        # `+path`: walk the mtime index newest first, not the path index and a sort of all
        "SELECT path, id, size, mtime_ns FROM docs WHERE +path >= ? AND +path < ? "
        "ORDER BY mtime_ns DESC LIMIT ?", (low, high, HOT)).fetchall()
    if watched is not None:
        named = [p for p in watched if low <= p < high][:WATCHED_MAX]
        cold = conn.execute(
            f"SELECT path, id, size, mtime_ns FROM docs WHERE path IN "
            f"({','.join('?' * len(named))})", named).fetchall() if named else []
        watched = None if len(watched) > WATCHED_MAX else watched
    if watched is None:
        cursor = (_cursor(conn) or low)
        if not (low <= cursor < high):
            cursor = low
        cold = conn.execute("SELECT path, id, size, mtime_ns FROM docs WHERE path > ? "
                            "AND path < ? ORDER BY path LIMIT ?", (cursor, high, COLD)).fetchall()
        if len(cold) < COLD:  # round the end: start again from the first page
            cold += conn.execute("SELECT path, id, size, mtime_ns FROM docs WHERE path >= ? "
                                 "AND path <= ? ORDER BY path LIMIT ?",
                                 (low, cursor, COLD - len(cold))).fetchall()
    out = Quick(unreadable=unreadable)
    base = str(root)
    for path, doc, size, mtime in (*picked, *cold):
        try:
            st = os.stat(os.path.join(base, path))
        except OSError:
            return None  # gone, or closed to us, with no folder moved: a walk tells which
        if st.st_size > max_bytes:
            return None
        if (st.st_size, st.st_mtime_ns) != (size, mtime):
            out.pages[path] = (st.st_size, st.st_mtime_ns)
            out.stored[path] = (doc, size, mtime)
    if cold and watched is None:
        _advance(conn, cold[-1][0])
    return out


def _cursor_file(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("PRAGMA database_list").fetchone()
    return f"{row[2]}-check" if row and row[2] else None


def _cursor(conn: sqlite3.Connection) -> str | None:
    path = _cursor_file(conn)
    if path is None:  # an in-memory index: no file beside it
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(4096) or None
    except (OSError, ValueError):
        return None


def _advance(conn: sqlite3.Connection, path: str) -> None:
    """Where the next read's cold pages start, in a small file beside the index: a write to
    the index itself would make closing its last connection checkpoint the WAL (an fsync,
    40 ms on a busy disk) after every read that found nothing to do. Best effort: a lost
    write only has the next read check the same pages again."""
    target = _cursor_file(conn)
    if target is None:
        return
    try:
        tmp = f"{target}.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(path)
        os.replace(tmp, target)
    except OSError:
        pass


def keep(conn: sqlite3.Connection, listing: Listing, under: str, *, trusted: bool) -> bool:
    """Record the folders a walk under `under` saw (inside a write transaction) when that
    differs from what is stored: as not to be trusted when `trusted` is false (pages left
    pending) or a folder moved too close to the walk. A folder above `under` keeps its stored
    stamp when its ignore files did not change. Returns whether it had to write."""
    now = time.time_ns()
    rows = {}
    for rel, (ctime, inode, rules, denied) in listing.folders.items():
        if ctime >= 0 and (not trusted or racy(ctime, now)):
            ctime = -1
        rows[rel] = (ctime, inode, rules, denied)
    stored = {r[0]: tuple(r[1:]) for r in conn.execute(
        "SELECT path, ctime_ns, inode, rules, denied FROM folders")}
    above = set(_ancestors(under))
    for rel in above:
        if rel in rows and rel in stored and stored[rel][2] == rows[rel][2]:
            rows[rel] = stored[rel]
    mine = {rel: v for rel, v in stored.items()
            if rel in above or not under or rel == under or rel.startswith(under + "/")}
    if mine == rows:
        return False
    if not conn.in_transaction:
        from solograph.store import transaction

        with transaction(conn):
            _replace(conn, mine, rows)
    else:
        _replace(conn, mine, rows)
    return True


def _replace(conn: sqlite3.Connection, old: dict, rows: dict) -> None:
    conn.executemany("DELETE FROM folders WHERE path = ?", [(r,) for r in old])
    conn.executemany("INSERT INTO folders (path, ctime_ns, inode, rules, denied) "
                     "VALUES (?, ?, ?, ?, ?)", [(r, *v) for r, v in rows.items()])


def distrust(conn: sqlite3.Connection, under: str) -> None:
    """Have the next read walk the folders under `under` (pages were left pending)."""
    low, high = _within(f"{under}/" if under else "")
    conn.execute("UPDATE folders SET ctime_ns = -1 WHERE path = ? OR (path >= ? AND path < ?)",
                 (under, low, high))
