"""The portfolio's answers: `symbol_search` and `project_info` (explain, deps, stats, shared,
dupes, projects). Each takes an open handle; `solograph.reads` opens, bounds and dates it."""

from __future__ import annotations

from solograph.errors import BadQuery, NotIndexed
from solograph.index import Handle
from solograph.portfolio import registry
from solograph.portfolio.search import search_symbols

# A tuple, not a typing.Literal: importing typing costs every start ~2 ms.
PROJECT_ACTIONS: tuple[str, ...] = ("explain", "deps", "stats", "shared", "dupes", "projects")


def symbol_search(handle: Handle, *, query: str, project: str | None = None,
                  limit: int = 20) -> dict:
    """Definitions across every project whose name holds the query's words."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint="give the words of a name: `auth middleware`")
    conn = handle.conn
    if not conn.execute("SELECT 1 FROM projects WHERE scanned_at IS NOT NULL LIMIT 1").fetchone():
        raise NotIndexed("no project has been scanned yet",
                         hint="run `solograph registry && solograph scan`")
    project_id = registry.get_project(conn, project).id if project else None
    results = search_symbols(conn, query, project_id=project_id, limit=limit)
    return {"query": query, "project": project, "count": len(results), "results": results}


def symbol_source(handle: Handle, *, project: str, path: str, line: int,
                  lines: int = 40) -> dict:
    """The lines of an indexed file around a definition, redacted."""
    from solograph.portfolio import source

    return source.symbol_source(handle.conn, project=project, path=path, line=line,
                                lines=lines)


def project_info(handle: Handle, *, action: str, project: str | None = None,
                 package: str | None = None, name: str | None = None) -> dict:
    """One project (explain, deps) or the whole portfolio (stats, shared, dupes, projects)."""
    from solograph.portfolio import info

    conn = handle.conn
    if action not in PROJECT_ACTIONS:
        raise BadQuery(f"unknown action {action!r}",
                       hint=f"use one of: {', '.join(PROJECT_ACTIONS)}")
    if action in ("explain", "deps"):
        if not project:
            raise BadQuery(f"`{action}` needs a project", hint="list them with action `projects`")
        found = registry.get_project(conn, project)
        return info.explain(conn, found) if action == "explain" else info.deps(conn, found)
    if action == "stats":
        return info.stats(conn)
    if action == "shared":
        return info.shared(conn, package)
    if action == "dupes":
        return info.dupes(conn, name)
    return info.projects(conn)
