"""Kept read-only connections, for a long-lived process that reads one store again and again.

Opening a store costs more than a symbol search on it: the connection, its pragmas, the
migrations check and the schema parsed again on the first statement, and each statement
prepared again (a new connection has an empty statement cache). A process that serves many
reads (the HTTP API, the MCP server, a bench) calls `keep()` once and then each thread keeps
one read-only connection per store file. The CLI runs one read per process and never keeps.

A kept connection runs in autocommit and holds no transaction between reads, so it never
stops another writer or a checkpoint. It is dropped and opened again when the file at its path
is no longer the one it opened (moved aside, rebuilt, removed), so a missing store still raises
NotIndexed on the next read. An index whose reads sync it first (sessions) keeps its writer the
same way (`kept_writer`): opening it also checks its migrations and redaction, and its first
statements parse the schema, which cost as much as the disk check.
"""

from __future__ import annotations

import os
import sqlite3

# threading's own C parts: the module itself costs a CLI start ~1 ms it never uses.
from _thread import _local as thread_local
from _thread import allocate_lock
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from solograph.store import connect_reader, map_pages

_local = thread_local()
_lock = allocate_lock()
_opened: list[sqlite3.Connection] = []  # every kept connection of every thread, to close
_holders = 0
_generation = 0  # bumped when every kept connection is closed: other threads' entries go stale


def keep() -> None:
    """From now on, reads in this process keep their read-only connections."""
    global _holders
    with _lock:
        _holders += 1


def release() -> None:
    """Undo one `keep()`; after the last, every kept connection is closed."""
    global _holders, _generation
    with _lock:
        _holders = max(0, _holders - 1)
        if _holders:
            return
        _generation += 1
        closing, _opened[:] = list(_opened), []
    for conn in closing:
        conn.close()


def keeping() -> bool:
    return _holders > 0


@contextmanager
def read_only(path: Path, store: str) -> Iterator[sqlite3.Connection]:
    """A read-only connection for one read: this thread's kept one while `keeping()`, else a
    new one closed afterwards."""
    if not keeping():
        conn = connect_reader(path, store)
        try:
            yield conn
        finally:
            conn.close()
        return
    yield _kept(path, store)


def kept_writer(path: Path, opener: Callable[[Path], sqlite3.Connection]
                ) -> sqlite3.Connection | None:
    """This thread's kept writer on `path` (made by `opener`) while `keeping()`, else None:
    the caller then opens its own and closes it after the read."""
    if not keeping():
        return None
    conn = kept_connection(path, opener)
    if conn.in_transaction:  # a read that failed half-way never leaves one open for the next
        conn.rollback()
    return conn


def kept_connection(path: Path, opener: Callable[[Path], sqlite3.Connection]
                    ) -> sqlite3.Connection:
    """This thread's connection on `path` made by `opener`, kept whether or not `keeping()`
    (a worker's pool process writing project after project), made again when the file at
    `path` is another one."""
    return _kept(path, "", opener)


def _kept(path: Path, store: str,
          opener: Callable[[Path], sqlite3.Connection] | None = None) -> sqlite3.Connection:
    if getattr(_local, "generation", None) != _generation:
        _local.kept, _local.generation = {}, _generation
    kept: dict[str, tuple[sqlite3.Connection, tuple[int, int] | None]] = _local.kept
    key = f"{'w' if opener else 'r'}:{path}"
    try:
        st = os.stat(path)
        identity = (st.st_dev, st.st_ino)
    except OSError:
        identity = None
    found = kept.get(key)
    if found is not None and found[1] == identity:
        return found[0]
    if found is not None:
        del kept[key]
        _forget(found[0])
    # A reader raises NotIndexed when the file is gone; a writer makes a new one.
    conn = map_pages(opener(path) if opener else connect_reader(path, store))
    st = os.stat(path)
    kept[key] = (conn, (st.st_dev, st.st_ino))
    with _lock:
        _opened.append(conn)
    return conn


def _forget(conn: sqlite3.Connection) -> None:
    with _lock:
        if conn in _opened:
            _opened.remove(conn)
    conn.close()
