"""The write jobs: what the CLI runs in-process and the worker runs from a queue.

Each takes settings plus ids and paths, does its work through the core, and returns a plain
dict report, so a Celery task is a one-line wrapper around it.
"""

from __future__ import annotations

from solograph.config import Settings
from solograph.portfolio import registry
from solograph.portfolio.scan import Progress, scan
from solograph.store import connect_writer


def refresh_registry(settings: Settings) -> dict:
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        return registry.refresh(conn, settings.scan_paths).to_dict()
    finally:
        conn.close()


def scan_portfolio(settings: Settings, *, projects: list[str] | None = None,
                   progress: Progress | None = None) -> dict:
    """Scan the named projects, else the scope, else every registered project.

    A name the registry lacks fails the run before anything is read."""
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        names = list(projects or settings.scope)
        chosen = registry.resolve_scope(conn, names) if names else registry.list_projects(conn)
        report = scan(conn, chosen, max_file_bytes=settings.max_file_bytes, progress=progress)
        out = report.to_dict()
        out["summary"] = report.summary()
        return out
    finally:
        conn.close()
