"""The session index's answers: `session_search` (sessions for a query, or one session's
matching messages) and `session_export` (one whole conversation)."""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery, UnknownProject
from solograph.index import Handle
from solograph.sessions import search as ranking
from solograph.text.plural import plural


def session_search(handle: Handle, *, query: str, project: str | None = None,
                   limit: int = 10, session: str | None = None,
                   exclude_session: str | None = None, agent: str | None = None) -> dict:
    """Past sessions of every coding agent holding the query's words, archived ones too
    (`agent` keeps one agent's); with `session`, the messages of that one session that hold
    them, with their neighbours."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the conversation held: "webhook retry"')
    conn = handle.conn
    if session:
        from solograph.sessions import transcript

        return transcript.read_matches(conn, session, query, limit=limit)
    if agent:
        check_agent(agent)
    if project:
        check_project(conn, project)
    scope = ranking.project_scope(project or "", exclude=exclude_session, agent=agent)
    terms, hits = ranking.search(conn, query, limit=limit, scope=scope)
    answer = {"query": query, "project": project, **({"agent": agent} if agent else {}),
              "count": len(hits),
              "respelled": terms.respelled, "results": hits}
    left_out = skipped(conn)
    if not hits and left_out.get("temp"):
        answer["warnings"] = [f"{plural(left_out['temp'], 'batch run')} from temporary folders "
                              "left out (sessions started in /tmp and the like are never "
                              "indexed)"]
    return answer


def skipped(conn: sqlite3.Connection) -> dict[str, int]:
    """Sessions kept out on purpose, by why: `temp` (batch runs), `private` (kept while the
    index is unchanged, sessions/steady.py: a scan of every file)."""
    from solograph.sessions.steady import unchanged

    return dict(unchanged(conn, "skipped", lambda: conn.execute(
        "SELECT status, COUNT(DISTINCT CASE WHEN session_id != '' THEN session_id ELSE path "
        "END) FROM files WHERE status IN ('temp', 'private') GROUP BY status").fetchall()))


def check_agent(agent: str) -> None:
    """An agent the index does not read is a mistake to name, not an empty answer."""
    from solograph.sessions.agents import NAMES

    if agent not in NAMES:
        import difflib

        close = difflib.get_close_matches(agent, NAMES, n=1)
        raise BadQuery(f"no agent named {agent!r}",
                       hint=(f"did you mean: {close[0]}? " if close else "")
                       + "the agents are " + ", ".join(NAMES))


def check_project(conn: sqlite3.Connection, project: str) -> None:
    """A project no session was started in is a mistake to name, not an empty answer."""
    scope = ranking.project_scope(project)
    if conn.execute(f"SELECT 1 FROM sessions s WHERE {scope.where} LIMIT 1",
                    scope.params).fetchone():
        return
    import difflib

    names = sorted({ranking.project_name(r[0]) for r in conn.execute(
        "SELECT DISTINCT cwd FROM sessions WHERE cwd != '' LIMIT 10000")} - {""})
    close = difflib.get_close_matches(project, names, n=3, cutoff=0.6) or \
        [n for n in names if project.lower() in n.lower()][:3]
    raise UnknownProject(f"no session was started in a project named {project!r}",
                         hint=f"did you mean: {', '.join(close)}?" if close else
                         "the project is the name of the folder a session started in")


def session_export(handle: Handle, *, session_id: str, fmt: str = "markdown") -> dict:
    """One stored conversation, whole, as markdown or JSONL (`content`); works for sessions
    whose transcript Claude Code has deleted."""
    if not session_id or not session_id.strip():
        raise BadQuery("no session id", hint="take it from a `solograph sessions` result")
    from solograph.sessions import transcript

    return transcript.export(handle.conn, session_id.strip(), fmt)


def session_list(handle: Handle, *, project: str | None = None, limit: int = 50,
                 offset: int = 0) -> dict:
    """Stored sessions newest first, archived ones too: project, dates, title, size."""
    from solograph.sessions import browse

    if project:
        check_project(handle.conn, project)
    return browse.session_list(handle.conn, project=project, limit=limit, offset=offset)


def session_read(handle: Handle, *, session_id: str, offset: int | None = None,
                 size: int = 100, query: str | None = None) -> dict:
    """One page of a stored conversation, in order; with `query`, the page of its first
    matching message, the matching messages marked."""
    from solograph.sessions import browse

    return browse.session_read(handle.conn, session_id, offset=offset, size=size,
                               query=query)
