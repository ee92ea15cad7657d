"""The session store: `sessions.db` under SOLOGRAPH_HOME. Every opening applies the pending
migrations and re-redacts text stored under older secrets rules (upkeep.ensure_clean)."""

from __future__ import annotations

import sqlite3
import sys
from contextlib import AbstractContextManager, closing, nullcontext
from pathlib import Path

from solograph.freshness import iso
from solograph.index import Handle
from solograph.sessions.upkeep import ensure_clean
from solograph.store import connect_writer

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

STORE = "sessions"
# Pages of WAL before a commit checkpoints it (SQLite's default is 1,000). Every search may
# write the tail of a live transcript; checkpointing (an fsync) every few of them would cost
# more than the write itself. 4,000 pages is 16 MB of WAL at most between checkpoints.
WAL_AUTOCHECKPOINT = 4_000


def open_index(path: Path) -> sqlite3.Connection:
    """A writer on the session index, migrated and redacted by the current rules."""
    conn = connect_writer(path, STORE)
    try:
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")
        ensure_clean(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def opened(settings: Settings) -> AbstractContextManager[Handle]:
    """A handle for one read; a writer, since the read syncs the transcripts first: the
    thread's kept one in a long-lived process (readers.keep())."""
    # A process that never imported readers keeps nothing (the CLI): no threading to load.
    readers = sys.modules.get("solograph.readers")
    kept = readers.kept_writer(settings.sessions_db, open_index) if readers else None
    if kept is not None:
        return nullcontext(Handle(kept, settings))
    return closing(Handle(open_index(settings.sessions_db), settings))


def as_of(conn: sqlite3.Connection) -> str | None:
    """The newest message time the index holds (a scan of every session, 2 ms at 5,000: kept
    while the index is unchanged, sessions/steady.py)."""
    from solograph.sessions.steady import unchanged

    def newest() -> str | None:
        row = conn.execute("SELECT MAX(last_at) FROM sessions WHERE last_at != ''").fetchone()
        return iso(row[0] if row else None)
    return unchanged(conn, "as_of", newest)


def db_path(settings: Settings) -> Path:
    return settings.sessions_db


def rebuild(settings: Settings) -> dict:
    """The chunks' full-text table made again from the stored entries, then optimised."""
    from solograph.sessions.chunks import rebuild as rebuild_chunks
    from solograph.store import transaction

    conn = open_index(settings.sessions_db)
    try:
        with transaction(conn):
            rows = rebuild_chunks(conn)
        return {"index": STORE, "rows": rows, "summary": f"sessions: {rows} chunks"}
    finally:
        conn.close()
