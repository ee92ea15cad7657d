"""Every read the product answers, one function each.

The CLI (`--json`), the HTTP API and the MCP tools all call these and serialise the result with
`to_json`, so a script, a person and an agent see the same bytes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

from solograph import freshness, sessions, sources
from solograph.config import Settings
from solograph.errors import BadQuery, NotIndexed
from solograph.kb import answers as kb_answers
from solograph.kb.sync import KbIndex, open_kb
from solograph.kb.sync import sync as kb_sync
from solograph.portfolio import info, registry
from solograph.portfolio.search import search_symbols
from solograph.store import connect_reader, time_limit

PROJECT_ACTIONS = ("explain", "deps", "stats", "shared", "dupes", "projects")


SESSIONS_NOTE = ("{n} changed transcript file(s) not read yet (newest were read first); the "
                 "next search or `solograph sync-sessions` (or the worker) reads them")
KB_NOTE = ("{n} changed page(s) not read yet (newest were read first); the next search or "
           "`solograph index-kb` (or the worker) reads them")


def _deadline(settings: Settings) -> float:
    """When a search-time sync stops reading files: the sync budget from now."""
    return time.monotonic() + max(0, settings.sync_budget_ms) / 1000


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
        results = search_symbols(conn, query, project_id=project_id, limit=limit)
        fresh = freshness.freshness(as_of=freshness.portfolio_as_of(conn))
    return freshness.attach({"query": query, "project": project, "count": len(results),
                             "results": results}, fresh)


def project_info(settings: Settings, action: str, *, project: str | None = None,
                 package: str | None = None, name: str | None = None) -> dict:
    """One project (explain, deps) or the whole portfolio (stats, shared, dupes, projects)."""
    if action not in PROJECT_ACTIONS:
        raise BadQuery(f"unknown action {action!r}",
                       hint=f"use one of: {', '.join(PROJECT_ACTIONS)}")
    with _portfolio(settings) as conn:
        fresh = freshness.freshness(as_of=freshness.portfolio_as_of(conn))
        return freshness.attach(_project_info(conn, action, project, package, name), fresh)


def _project_info(conn: sqlite3.Connection, action: str, project: str | None,
                  package: str | None, name: str | None) -> dict:
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


@contextmanager
def _sessions(settings: Settings, *, bounded: bool = True,
              ) -> Iterator[tuple[sqlite3.Connection, dict]]:
    """The session index, synced with the transcripts folder first within the sync budget
    (new and grown files are read, newest first; nothing is written when nothing changed),
    and its freshness. `bounded`: under the query time limit."""
    conn = sessions.open_index(settings.sessions_db)
    try:
        report = sessions.sync(conn, settings.claude_projects, deadline=_deadline(settings))
        if report["missing"] and not conn.execute("SELECT 1 FROM sessions LIMIT 1").fetchone():
            raise NotIndexed(f"no sessions indexed, and the transcripts folder "
                             f"{report['transcripts']} does not exist",
                             hint="set CLAUDE_PROJECTS_PATH to Claude Code's projects folder "
                                  "(default ~/.claude/projects)")
        fresh = freshness.freshness(pending=report["pending"], unreadable=report["unreadable"],
                                    as_of=freshness.sessions_as_of(conn))
        if not bounded:
            yield conn, fresh
            return
        with time_limit(conn, settings.query_timeout_ms):
            yield conn, fresh
    finally:
        conn.close()


def session_search(settings: Settings, query: str, *, project: str | None = None,
                   limit: int = 10, session: str | None = None,
                   exclude_session: str | None = None) -> dict:
    """Past Claude Code sessions holding the query's words, archived ones too; with `session`,
    the messages of that one session that hold them, with their neighbours."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the conversation held: "webhook retry"')
    limit = max(1, min(limit, sessions.MAX_LIMIT))
    with _sessions(settings) as (conn, fresh):
        if session:
            answer = sessions.read_matches(conn, session, query, limit=limit)
        else:
            scope = sessions.project_scope(project or "", exclude=exclude_session)
            terms, hits = sessions.search(conn, query, limit=limit, scope=scope)
            answer = {"query": query, "project": project, "count": len(hits),
                      "respelled": terms.respelled, "results": hits}
    return freshness.attach(answer, fresh, SESSIONS_NOTE.format(n=fresh["pending"]))


def session_export(settings: Settings, session_id: str, *, fmt: str = "markdown") -> dict:
    """One stored conversation, whole, as markdown or JSONL (`content`); works for sessions
    whose transcript Claude Code has deleted."""
    if not session_id or not session_id.strip():
        raise BadQuery("no session id", hint="take it from a `solograph sessions` result")
    with _sessions(settings, bounded=False) as (conn, _fresh):
        return sessions.export(conn, session_id.strip(), fmt)


def source_search(settings: Settings, query: str | None = None, *, action: str = "search",
                  source: str | None = None, limit: int = 10) -> dict:
    """The sources index (YouTube talks, launches, revenue pages, Telegram): search (each video
    once, at its best chunk, linked at its second), list, tags, or related (query = video id).
    The same answer for the CLI, the HTTP APIs (the search service included) and MCP."""
    conn = sources.open_reader(settings.sources_db)
    try:
        with time_limit(conn, settings.query_timeout_ms):
            answer = sources.answer(conn, action, query, source=source, limit=limit)
            fresh = freshness.freshness(as_of=freshness.sources_as_of(conn))
        return freshness.attach(answer, fresh)
    finally:
        conn.close()


@contextmanager
def _kb(settings: Settings) -> Iterator[tuple[KbIndex, dict]]:
    """The KB index, synced with the folder first within the sync budget (changed pages
    re-read, newest first; deleted dropped), and its freshness; then under the query time
    limit."""
    if settings.kb_path is None:
        raise NotIndexed("no knowledge base is configured",
                         hint="set KB_PATH to the folder of your notes (the CLI uses the "
                              "current folder)")
    kb = open_kb(settings.home, settings.kb_path)
    try:
        report = kb_sync(kb, max_bytes=settings.max_file_bytes, deadline=_deadline(settings))
        fresh = freshness.freshness(pending=report.pending, unreadable=report.unreadable,
                                    as_of=freshness.kb_as_of(kb.conn))
        with time_limit(kb.conn, settings.query_timeout_ms):
            yield kb, fresh
    finally:
        kb.close()


def kb_search(settings: Settings, query: str, *, path: str | None = None, pages: bool = False,
              expand: bool = False, limit: int = 10) -> dict:
    """Pages of the knowledge base for the query, each with its best section; with no path
    the whole KB and the wiki in turn; `expand` adds up to 3 pages the hits link to most."""
    with _kb(settings) as (kb, fresh):
        answer = kb_answers.search_answer(kb, query, path=path, pages=pages, expand=expand,
                                          limit=max(1, min(limit, settings.max_results)))
    return freshness.attach(answer, fresh, KB_NOTE.format(n=fresh["pending"]))


def kb_get(settings: Settings, ref: str) -> dict:
    """One page (`wiki/x.md`, or a [[link]] target) or one section (`wiki/x.md#Heading`)."""
    with _kb(settings) as (kb, fresh):
        answer = kb_answers.get_answer(kb, ref)
    return freshness.attach(answer, fresh, KB_NOTE.format(n=fresh["pending"]))


def kb_graph(settings: Settings, *, path: str | None = None, page: str | None = None,
             check: bool = False) -> dict:
    """The wiki's link graph (or a folder's): hubs, connectors, orphans, broken links, pages
    missing from index.md; with `page`, its backlinks and links; `check`: problems only."""
    with _kb(settings) as (kb, _fresh):
        return kb_answers.graph_answer(kb, path=path, page=page, check=check)


def kb_hint(settings: Settings, prompt: str, *, session: str | None = None) -> dict:
    """The prompt hook's pointer to a wiki page, or none; each page once per session."""
    with _kb(settings) as (kb, _fresh):
        return kb_answers.hint_answer(kb, prompt, session=session, home=settings.home)


def kb_aliases(settings: Settings, *, suggest: bool = False) -> dict:
    """The alias table, or (`suggest`) the groups the KB already knows and the table lacks."""
    with _kb(settings) as (kb, _fresh):
        return kb_answers.aliases_answer(kb, suggested=suggest)
