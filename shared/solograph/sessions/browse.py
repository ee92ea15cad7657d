"""Browsing the session index: the list of sessions, newest first, and one session's messages
a page at a time (the reader a person scrolls).

A page of a conversation is one query over the (session, at) index, whatever the session's
length: a 10,000-message session opens as fast as a short one. With a query, the page opened
is the one holding the first message with every word of it (else with any), and every
matching message on it is marked.
"""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery
from solograph.sessions.search import describe, project_scope
from solograph.sessions.snippets import holding_sql, matched, tools_of
from solograph.sessions.transcript import find_session

PAGE = 100  # messages on a page unless asked otherwise
MAX_PAGE = 500
TEXT_CHARS = 20_000  # of one message shown; the export holds it whole
MAX_OFFSET = 10_000_000

_LIST = ("SELECT s.*, EXISTS (SELECT 1 FROM files f WHERE f.session_id = s.session_id "
         "AND f.kind = 'main' AND f.status = 'live') AS live FROM sessions s ")
_ENTRY = ("SELECT id, file_id, seq, role, kind, at, sidechain, text, tools, words FROM entries "
          "WHERE session = ? ")
_ORDER = "ORDER BY at, file_id, seq"


def session_list(conn: sqlite3.Connection, *, project: str | None = None, limit: int = 50,
                 offset: int = 0) -> dict:
    """Sessions newest first (by their last message), `limit` from `offset`."""
    offset = _bounded_offset(offset)
    scope = project_scope(project or "")
    where = scope.where or "1"
    total = conn.execute(f"SELECT COUNT(*) FROM sessions s WHERE {where}",
                         scope.params).fetchone()[0]
    rows = conn.execute(_LIST + f"WHERE {where} ORDER BY s.last_at DESC, s.id DESC "
                        "LIMIT ? OFFSET ?", (*scope.params, limit, offset)).fetchall()
    return {"project": project, "total": total, "offset": offset, "count": len(rows),
            "sessions": [describe(r) for r in rows]}


def session_read(conn: sqlite3.Connection, session_id: str, *, offset: int | None = None,
                 size: int = PAGE, query: str | None = None) -> dict:
    """One page of a session's messages in conversation order (sub-agents' messages inline, by
    time). Without `offset` and with `query`: the page of the first matching message."""
    if not session_id or not session_id.strip():
        raise BadQuery("no session id", hint="take it from a `solograph sessions` result")
    limit = max(1, min(int(size), MAX_PAGE))
    row = find_session(conn, session_id.strip())
    terms = None
    first_match = None
    if query and query.strip():
        from solograph.sessions.search import terms_of

        terms = terms_of(conn, query)
        first_match = _first_match(conn, row["id"], terms)
    if offset is None:
        offset = first_match - first_match % limit if first_match is not None else 0
    offset = _bounded_offset(offset)
    entries = conn.execute(_ENTRY + f"{_ORDER} LIMIT ? OFFSET ?",
                           (row["id"], limit, offset)).fetchall()
    messages = []
    for n, entry in enumerate(entries, offset):
        text = entry["text"]
        message = {"n": n, "id": entry["id"], "role": entry["role"], "kind": entry["kind"],
                   "at": entry["at"], "sidechain": bool(entry["sidechain"]),
                   "text": text[:TEXT_CHARS], "cut": len(text) > TEXT_CHARS,
                   "tools": [{"name": k, "input": a} for k, a in tools_of(entry["tools"])]}
        if terms is not None:
            message["match"] = bool(matched(entry["words"], terms.stems, terms.spellings))
        messages.append(message)
    return {"session": describe(row), "query": query or None, "offset": offset,
            "size": limit, "total": row["messages"], "first_match": first_match,
            "count": len(messages), "messages": messages}


def _bounded_offset(offset: int) -> int:
    offset = int(offset)
    if offset < 0 or offset > MAX_OFFSET:
        raise BadQuery(f"offset {offset} is out of range", hint="give 0 or more")
    return offset


def _first_match(conn: sqlite3.Connection, key: int, terms) -> int | None:
    """The place in the conversation of the first message holding every query word (else
    the first holding any), or None: SQLite walks the (session, at) index testing the stored
    stems, and stops at the first that holds them."""
    if not terms.stems:
        return None
    tests, params = holding_sql(terms.stems, terms.spellings)
    row = None
    for where in (" AND ".join(tests), " OR ".join(tests)):
        row = conn.execute(f"SELECT at, file_id, seq FROM entries WHERE session = ? AND "
                           f"({where}) {_ORDER} LIMIT 1", (key, *params)).fetchone()
        if row is not None or len(tests) == 1:
            break
    if row is None:
        return None
    at, file_id, seq = row
    return conn.execute(
        "SELECT COUNT(*) FROM entries WHERE session = ? AND (at < ? OR (at = ? AND "
        "(file_id < ? OR (file_id = ? AND seq < ?))))",
        (key, at, at, file_id, file_id, seq)).fetchone()[0]
