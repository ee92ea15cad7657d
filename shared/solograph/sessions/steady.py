"""What a disk check reads from the index on every search, kept while the index is unchanged.

A long-lived process keeps its writer (readers.kept_writer), and most of its disk checks find
nothing to read: reading the files and folders the index knows, and the folders its sessions
worked in, again each time cost more than stat'ing the transcripts. `PRAGMA data_version` moves
when another connection commits, the connection's `total_changes` when it writes itself; while
neither has moved, rows read earlier are still what the index holds. One connection per thread
is remembered (the last one used); the values are shared, never to be modified.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
_local = threading.local()


def unchanged(conn: sqlite3.Connection, name: str, compute: Callable[[], T]) -> T:
    """`compute()`, or what it returned for `name` on `conn` while the index has not changed."""
    version = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    kept = getattr(_local, "kept", None)
    if kept is None or kept[0] is not conn or kept[1] != version:
        kept = _local.kept = (conn, version, {})
    values: dict = kept[2]
    if name not in values:
        values[name] = compute()
    return values[name]
