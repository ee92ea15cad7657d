"""Every read the product answers, one function each.

The CLI (`--json`), the HTTP API and the MCP tools all call these and serialise the result with
`to_json`, so a script, a person and an agent see the same bytes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from solograph.config import Settings
from solograph.errors import BadQuery, NotIndexed
from solograph.portfolio import info, registry
from solograph.portfolio.search import MAX_LIMIT, search_symbols
from solograph.store import connect_reader, time_limit

PROJECT_ACTIONS = ("explain", "deps", "stats", "shared", "dupes", "projects")


def to_json(answer: dict) -> str:
    """Compact JSON: the exact text every adapter returns."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


@contextmanager
def _portfolio(settings: Settings) -> Iterator[sqlite3.Connection]:
    conn = connect_reader(settings.portfolio_db, "portfolio")
    try:
        with time_limit(conn, settings.query_timeout_ms):
            yield conn
    finally:
        conn.close()


def symbol_search(settings: Settings, query: str, *, project: str | None = None,
                  limit: int = 20) -> dict:
    """Definitions across every project whose name holds the query's words."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint="give the words of a name: `auth middleware`")
    with _portfolio(settings) as conn:
        if not conn.execute("SELECT 1 FROM projects WHERE scanned_at IS NOT NULL LIMIT 1"
                            ).fetchone():
            raise NotIndexed("no project has been scanned yet",
                             hint="run `solograph registry && solograph scan`")
        project_id = registry.get_project(conn, project).id if project else None
        results = search_symbols(conn, query, project_id=project_id,
                                 limit=max(1, min(limit, MAX_LIMIT)))
    return {"query": query, "project": project, "count": len(results), "results": results}


def project_info(settings: Settings, action: str, *, project: str | None = None,
                 package: str | None = None, name: str | None = None) -> dict:
    """One project (explain, deps) or the whole portfolio (stats, shared, dupes, projects)."""
    if action not in PROJECT_ACTIONS:
        raise BadQuery(f"unknown action {action!r}",
                       hint=f"use one of: {', '.join(PROJECT_ACTIONS)}")
    with _portfolio(settings) as conn:
        if action in ("explain", "deps"):
            if not project:
                raise BadQuery(f"`{action}` needs a project",
                               hint="list them with action `projects`")
            found = registry.get_project(conn, project)
            return info.explain(conn, found) if action == "explain" else info.deps(conn, found)
        if action == "stats":
            return info.stats(conn)
        if action == "shared":
            return info.shared(conn, package)
        if action == "dupes":
            return info.dupes(conn, name)
        return projects(conn)


def projects(conn: sqlite3.Connection) -> dict:
    rows = conn.execute(
        "SELECT p.name, p.path, p.scanned_at, "
        "(SELECT COUNT(*) FROM files WHERE project_id = p.id) AS files, "
        "(SELECT COUNT(*) FROM symbols WHERE project_id = p.id) AS definitions "
        "FROM projects p WHERE p.removed = 0 ORDER BY p.name").fetchall()
    return {"action": "projects", "count": len(rows), "projects": [
        {"name": r["name"], "path": r["path"], "files": r["files"],
         "definitions": r["definitions"], "scanned_at": r["scanned_at"]} for r in rows]}
