"""The session index: every past Claude Code conversation, searchable, kept after Claude Code
deletes its transcript.

    conn = open_index(settings.sessions_db)    # migrations, and re-redaction if rules changed
    sync(conn, settings.claude_projects)       # read what changed on disk (before every search)
    terms, hits = search(conn, "webhook retry", limit=10)

Modules, one concept each: records (parsing lines), titles, chunks (the FTS documents),
ingest (reading one file from its offset), policy (temp and private folders), sync (the
folder), upkeep (titles, purges, re-redaction), search and snippets (ranking), transcript (one
session: matches, export).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from solograph.sessions.policy import default_policy
from solograph.sessions.search import MAX_LIMIT, Scope, project_scope, search
from solograph.sessions.sync import discover, sync
from solograph.sessions.transcript import FORMATS, export, read_matches
from solograph.sessions.upkeep import ensure_clean
from solograph.store import connect_writer

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


__all__ = ["FORMATS", "MAX_LIMIT", "STORE", "Scope", "default_policy", "discover", "export",
           "open_index", "project_scope", "read_matches", "search", "sync"]
