"""One stored session: the messages matching a query with their neighbours, and exports.

Both read only the index, so they work for archived sessions whose transcript Claude Code has
deleted. A message is one user or assistant record; its neighbours are the records before and
after it in the same file, which is the conversation's order.
"""

from __future__ import annotations

import json
import sqlite3

from solograph.errors import BadQuery
from solograph.sessions.search import SESSION_ROWS, Terms, describe, terms_of
from solograph.sessions.snippets import matched, snippet, tools_of
from solograph.text.tokens import match_any

FORMATS = ("markdown", "jsonl")
MATCH_CHARS = 1_500  # of a matching message shown
NEIGHBOUR_CHARS = 400  # of a neighbour shown

_ENTRY = "SELECT id, file_id, seq, role, kind, at, sidechain, text, tools, words FROM entries "


def find_session(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row:
    """A session by its id or an unambiguous prefix of it (8 characters or more)."""
    row = conn.execute(SESSION_ROWS + "WHERE s.session_id = ?", (session_id,)).fetchone()
    if row is None and len(session_id) >= 8:
        rows = conn.execute(SESSION_ROWS + "WHERE s.session_id >= ? AND s.session_id < ? LIMIT 2",
                            (session_id, session_id + "\uffff")).fetchall()
        if len(rows) > 1:
            raise BadQuery(f"several sessions start with {session_id!r}",
                           hint="give more of the id, as a search result shows it")
        row = rows[0] if rows else None
    if row is None:
        raise BadQuery(f"no session {session_id!r} in the index",
                       hint='find its id with `solograph sessions "words it holds"`')
    return row


def read_matches(conn: sqlite3.Connection, session_id: str, query: str, *,
                 limit: int = 10) -> dict:
    """The messages of one session that hold the query's words, in order, each with the
    message before and after it."""
    row = find_session(conn, session_id)
    terms = terms_of(conn, query)
    chunks = [r[0] for r in conn.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN "
        "(SELECT id FROM chunks WHERE session = ?)", (match_any(terms.all), row["id"]))]
    scored = []
    for chunk in chunks:
        for entry in conn.execute(_ENTRY + "WHERE chunk = ?", (chunk,)):
            count = matched(entry["words"], terms.stems, terms.spellings)
            if count:
                scored.append((-count, entry["at"], entry["file_id"], entry["seq"], entry))
    chosen = sorted(scored, key=lambda x: x[:4])[:max(1, limit)]
    chosen.sort(key=lambda x: (x[1], x[2], x[3]))
    shown: dict[int, tuple[tuple, dict]] = {}
    for *_, entry in chosen:
        for near in _neighbours(conn, entry):
            shown.setdefault(near["id"], _message(near, terms, match=False))
        shown[entry["id"]] = _message(entry, terms, match=True)
    messages = [message for _, message in sorted(shown.values(), key=lambda m: m[0])]
    return {"query": query, "session": describe(row),
            "matches": len(chosen), "total_matches": len(scored), "messages": messages}


def _neighbours(conn: sqlite3.Connection, entry: sqlite3.Row) -> list[sqlite3.Row]:
    out = []
    for op, order in (("<", "DESC"), (">", "ASC")):
        near = conn.execute(_ENTRY + f"WHERE file_id = ? AND seq {op} ? ORDER BY seq {order} "
                            "LIMIT 1", (entry["file_id"], entry["seq"])).fetchone()
        if near is not None:
            out.append(near)
    return out


def _message(entry: sqlite3.Row, terms: Terms, *, match: bool) -> tuple[tuple, dict]:
    """(its place in the conversation, the message as the answer shows it)."""
    width = MATCH_CHARS if match else NEIGHBOUR_CHARS
    full = entry["text"]
    if match and len(full) > width:
        text = snippet(entry["text"], entry["tools"], terms.all, width)
    else:
        text = full[:width] + ("…" if len(full) > width else "")
    out = {"role": entry["role"], "kind": entry["kind"], "at": entry["at"],
           "sidechain": bool(entry["sidechain"]), "match": match, "text": text,
           "tools": [{"name": n, "input": a} for n, a in tools_of(entry["tools"])]}
    return (entry["at"], entry["file_id"], entry["seq"]), out


# --------------------------------------------------------------------------- export


def export(conn: sqlite3.Connection, session_id: str, fmt: str) -> dict:
    """The whole stored conversation as markdown or JSONL, in time order."""
    if fmt not in FORMATS:
        raise BadQuery(f"unknown format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")
    row = find_session(conn, session_id)
    head = describe(row)
    entries = conn.execute(_ENTRY + "WHERE session = ? ORDER BY at, file_id, seq", (row["id"],))
    if fmt == "jsonl":
        lines = [json.dumps({"type": "session", **head}, ensure_ascii=False)]
        lines += [json.dumps(_record(e, head["session"]), ensure_ascii=False) for e in entries]
        content = "\n".join(lines) + "\n"
    else:
        content = _markdown(head, entries)
    return {"session": head["session"], "format": fmt, "title": head["title"],
            "archived": head["archived"], "content": content}


def _record(entry: sqlite3.Row, session: str) -> dict:
    return {"type": "message", "session": session, "role": entry["role"],
            "kind": entry["kind"], "at": entry["at"], "sidechain": bool(entry["sidechain"]),
            "text": entry["text"],
            "tools": [{"name": n, "input": a} for n, a in tools_of(entry["tools"])]}


_LABEL = {"prompt": "User", "command": "User (command)", "notice": "Notice",
          "compact": "Summary of the earlier conversation", "reply": "Assistant"}


def _markdown(head: dict, entries) -> str:
    out = [f"# {head['title'] or head['session']}", "",
           f"- session: `{head['session']}`", f"- agent: {head['agent']}",
           f"- project: {head['project']}",
           f"- folder: `{head['cwd']}`", f"- from {head['first']} to {head['last']}",
           f"- transcript: {head['transcript']}"
           + (f" (`{head['resume']}`)" if head["resume"] else ""), ""]
    for e in entries:
        label = _LABEL.get(e["kind"], e["role"])
        if e["sidechain"]:
            label += " (sub-agent)"
        out += [f"## {label} · {e['at']}", ""]
        if e["text"]:
            out += [e["text"], ""]
        for name, args in tools_of(e["tools"]):
            detail = "; ".join(f"{k}: {v}" for k, v in args.items())
            out.append(f"- **{name}**" + (f" {_inline(detail)}" if detail else ""))
        if e["tools"]:
            out.append("")
    return "\n".join(out)


def _inline(text: str) -> str:
    one = " ".join(text.split())
    return f"`{one}`" if "`" not in one else one
