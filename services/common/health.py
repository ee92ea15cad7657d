"""Health probes, one per index store, shared by every service's /health.

A probe opens the store read-only and migrates nothing (a probe must not write): is the file
there, can it be read, is its schema the one this code expects. A store that is not there yet
is healthy (nothing indexed is not a fault); one that is there but unreadable or behind is not.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from solograph.errors import SolographError
from solograph.index import Index
from solograph.indexes import all_indexes
from solograph.store import applied_migrations, migration_files

if TYPE_CHECKING:
    from solograph.config import Settings


def store_health(index: Index, settings: Settings) -> dict:
    out: dict = {"present": False, "readable": False, "schema": None, "migrations_current": False}
    try:
        path = index.path(settings)
    except SolographError as exc:  # not configured (a KB without KB_PATH)
        return {**out, "configured": False, "problem": exc.message}
    out["present"] = path.exists()
    if not out["present"]:
        return out
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            applied = applied_migrations(conn)
            out["readable"] = True
            out["schema"] = applied[-1] if applied else None
            out["migrations_current"] = set(applied) >= {n for n, _ in migration_files(index.name)}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        out["problem"] = str(exc)
    return out


def healthy(store: dict) -> bool:
    return not store["present"] or store["readable"]


def stores(settings: Settings, names: tuple[str, ...] | None = None) -> dict[str, dict]:
    """Each index's store (or those named), by index name."""
    return {i.name: store_health(i, settings) for i in all_indexes()
            if names is None or i.name in names}
