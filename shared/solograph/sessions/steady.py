"""What a disk check (and the answer's freshness) reads from the index on every search, kept
while the index is unchanged.

A long-lived process keeps its writer (readers.kept_writer), and most of its disk checks find
nothing to read: reading the files and folders the index knows, and the folders its sessions
worked in, again each time cost more than stat'ing the transcripts. `PRAGMA data_version` moves
when another connection commits, the connection's `total_changes` when it writes itself; while
neither has moved, rows read earlier are still what the index holds. The last connection used
is remembered (a kept writer belongs to one thread, so threads reading in turn only read
again); the values are shared, never to be modified. No threading import: the CLI loads this.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")
_last: tuple = (None, None, {})  # connection, its version, {name: value}


def unchanged(conn: sqlite3.Connection, name: str, compute: Callable[[], T]) -> T:
    """`compute()`, or what it returned for `name` on `conn` while the index has not changed."""
    version = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    global _last
    kept = _last
    if kept[0] is not conn or kept[1] != version:
        kept = _last = (conn, version, {})
    values: dict = kept[2]
    if name not in values:
        values[name] = compute()
    return values[name]
