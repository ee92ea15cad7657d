"""The portfolio's write jobs: the registry merge (find checkouts) and the scan (index what
changed). The CLI runs them in-process, the worker from its `scan` queue; each takes settings
plus names and flags and returns a plain report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from solograph.portfolio import registry
from solograph.portfolio.store import open_writer

if TYPE_CHECKING:
    from solograph.config import Settings
    from solograph.portfolio.scan import Progress


def refresh_registry(settings: Settings) -> dict:
    """Add the checkouts that appeared under the scan paths; purge what became private."""
    conn = open_writer(settings)
    try:
        return registry.refresh(conn, settings.scan_paths).to_dict()
    finally:
        conn.close()


def edit_registry(settings: Settings, *, add: Path | None = None,
                  remove: str | None = None) -> dict:
    """`registry`, `registry --add PATH`, `registry --remove NAME`, with the list after it."""
    conn = open_writer(settings)
    try:
        if add is not None:
            answer: dict = {"added": [registry.add(conn, Path(add))]}
        elif remove:
            registry.remove(conn, remove)
            answer = {"removed": remove}
        else:
            answer = registry.refresh(conn, settings.scan_paths).to_dict()
        answer["projects"] = [{"name": p.name, "path": str(p.path)}
                              for p in registry.list_projects(conn)]
        answer["scan_paths"] = [str(p) for p in settings.scan_paths]
        return answer
    finally:
        conn.close()


def scan_portfolio(settings: Settings, *, projects: list[str] | None = None,
                   progress: Progress | None = None) -> dict:
    """Scan the named projects, else the scope, else every registered project.

    A name the registry lacks fails the run before anything is read."""
    from solograph.portfolio.scan import scan

    conn = open_writer(settings)
    try:
        names = list(projects or settings.scan_scope)
        chosen = registry.resolve_scope(conn, names) if names else registry.list_projects(conn)
        report = scan(conn, chosen, max_file_bytes=settings.max_file_bytes, progress=progress)
        out = report.to_dict()
        out["summary"] = report.summary()
        return out
    finally:
        conn.close()
