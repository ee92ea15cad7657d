"""Health probes, one per index store, shared by every service's /health.

A probe opens the store read-only and migrates nothing (a probe must not write): is the file
there, can it be read, is its schema the one this code expects. A store that is not there yet
is healthy (nothing indexed is not a fault); one that is there but unreadable or behind is not.

Beside the stores: the folders the indexes read, looked at without syncing (files this process
may not open make every answer incomplete: a wrong SOLOGRAPH_UID), and with a broker the
workers alive (`liveness.workers`: this module stays free of Celery and Redis, for the slim
search image). Neither makes a service unhealthy (it still answers); both become `warnings`.
"""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING

from solograph.errors import SolographError
from solograph.index import Index, resolve
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


def folders(settings: Settings) -> dict[str, dict]:
    """Each index's folder that has a check, by index name."""
    out = {}
    for index in all_indexes():
        if index.folder:
            try:
                out[index.name] = resolve(index.folder)(settings)
            except OSError as exc:
                out[index.name] = {"present": False, "files": 0, "unreadable": 0,
                                   "problem": str(exc)}
    return out


def warnings(found_folders: dict[str, dict], found_workers: dict | None) -> list[str]:
    out = [f"{f['unreadable']} file(s) or folder(s) under {f.get('path')} cannot be read by "
           f"this process (uid {os.getuid()}): {name} answers are incomplete; run as their "
           "owner (compose: SOLOGRAPH_UID)" for name, f in found_folders.items()
           if f.get("unreadable")]
    if found_workers is not None and not found_workers["alive"]:
        out.append("no worker is alive: jobs wait in their queues until `solograph worker` "
                   "runs")
    return out
