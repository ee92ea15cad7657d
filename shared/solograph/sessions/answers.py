"""The session index's answers: `session_search` (sessions for a query, or one session's
matching messages) and `session_export` (one whole conversation)."""

from __future__ import annotations

from solograph.errors import BadQuery
from solograph.freshness import Freshness
from solograph.index import Handle
from solograph.sessions import search as ranking
from solograph.typed import NotRequired, TypedDict


class SessionHit(TypedDict):
    session: str
    project: str
    cwd: str
    title: str
    first: str
    last: str
    messages: int
    archived: bool
    transcript: str  # live or deleted
    resume: str | None  # the command that resumes it, while its transcript is live
    snippet: str
    score: float
    match: str  # all, respelled or some


class SessionSearch(TypedDict, total=False):
    """Sessions for the query; with `session`, that session's matching messages instead."""

    query: str
    project: str | None
    count: int
    respelled: dict[str, str]
    results: list[SessionHit]
    # one session's messages
    session: dict
    matches: int
    total_matches: int
    messages: list[dict]
    freshness: Freshness
    note: NotRequired[str]


class SessionExport(TypedDict):
    session: str
    format: str
    title: str
    archived: bool
    content: str


def session_search(handle: Handle, *, query: str, project: str | None = None,
                   limit: int = 10, session: str | None = None,
                   exclude_session: str | None = None) -> dict:
    """Past Claude Code sessions holding the query's words, archived ones too; with `session`,
    the messages of that one session that hold them, with their neighbours."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the conversation held: "webhook retry"')
    conn = handle.conn
    if session:
        from solograph.sessions import transcript

        return transcript.read_matches(conn, session, query, limit=limit)
    scope = ranking.project_scope(project or "", exclude=exclude_session)
    terms, hits = ranking.search(conn, query, limit=limit, scope=scope)
    return {"query": query, "project": project, "count": len(hits),
            "respelled": terms.respelled, "results": hits}


def session_export(handle: Handle, *, session_id: str, fmt: str = "markdown") -> dict:
    """One stored conversation, whole, as markdown or JSONL (`content`); works for sessions
    whose transcript Claude Code has deleted."""
    if not session_id or not session_id.strip():
        raise BadQuery("no session id", hint="take it from a `solograph sessions` result")
    from solograph.sessions import transcript

    return transcript.export(handle.conn, session_id.strip(), fmt)
