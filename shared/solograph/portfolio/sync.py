"""The portfolio's write jobs: the registry merge (find checkouts) and the scan (index what
changed). The CLI runs them in-process; each takes settings plus names and flags and returns a
plain report. The worker pool spreads a scan over its workers through the same steps: `plan_scan`
where the store is, `portfolio.read.read_batch` on any worker that has the files, `write_scanned`
per project where the store is, then `finish_scanned`."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from solograph.portfolio import registry
from solograph.portfolio.store import open_writer

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
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


def plan_scan(settings: Settings, *, projects: list[str] | None = None) -> dict:
    """The first step of a spread scan, where the store is: {"plans": [plan], "missing":
    [name]}, one plan per project checkout present (`portfolio.plan`)."""
    from solograph.portfolio.clean import ensure_clean
    from solograph.portfolio.plan import plan_projects

    conn = open_writer(settings)
    try:
        ensure_clean(conn)  # what older rules let through leaves before anything is added
        names = list(projects or settings.scan_scope)
        chosen = registry.resolve_scope(conn, names) if names else registry.list_projects(conn)
        return {"plans": plan_projects(conn, chosen),
                "missing": [p.name for p in chosen if not p.path.is_dir()]}
    finally:
        conn.close()


def write_scanned(settings: Settings, plan: dict, results: list[dict], *,
                  conn: sqlite3.Connection | None = None) -> dict:
    """Apply one project's plan and its batches' results (`portfolio.write`), with its report
    as the scan gives it: {"changed", "summary", "report"}. `conn`: a writer the caller keeps
    (closing one runs a checkpoint, which a process writing project after project need not
    pay each time), else one opened for this write."""
    from solograph.portfolio.scan import ScanReport
    from solograph.portfolio.write import write_project

    own = conn is None
    conn = open_writer(settings) if conn is None else conn
    try:
        written = write_project(conn, plan, results)
    finally:
        if own:
            conn.close()
    report = ScanReport()
    report.add(plan, written)
    return {"changed": written["changed"], "summary": report.summary(),
            "report": report.to_dict()}


def finish_scanned(settings: Settings, *, changed: int) -> None:
    """The last step of a spread scan, after every project was written."""
    from solograph.portfolio.write import finish_scan

    conn = open_writer(settings)
    try:
        finish_scan(conn, changed=changed)
    finally:
        conn.close()


# A scan job's result, however the worker ran it (in one task, or spread over the pool):
# {"registry": the merge's report or None, "projects": [project_run], "failed":
# [{"project", "error", "read_by"}], "missing": [name]}.
RUN_KEYS = ("project", "waited_s", "started", "finished", "summary", "report", "read_by")


def project_run(name: str, written: dict, *, waited_s: float, started: float,
                read_by: list[str]) -> dict:
    """One project's entry in a scan job's result: `written` is its {"summary", "report"} (as
    `write_scanned` gives it), `read_by` the workers that read its files."""
    return {"project": name, "waited_s": round(waited_s, 3), "started": started,
            "finished": time.time(), "summary": written["summary"],
            "report": written["report"], "read_by": read_by}


def failed_run(name: str, error: str, *, read_by: list[str]) -> dict:
    """A project the scan could not write: left as it was."""
    return {"project": name, "error": error, "read_by": read_by}


def scan_result(*, registry: dict | None, runs: list[dict], missing: list[str]) -> dict:
    """A scan job's result from its projects' entries (`project_run`, `failed_run`)."""
    return {"registry": registry,
            "projects": [{k: r[k] for k in RUN_KEYS} for r in runs if "error" not in r],
            "failed": [r for r in runs if "error" in r], "missing": missing}
