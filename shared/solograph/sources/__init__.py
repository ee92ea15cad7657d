"""The sources index: YouTube talks, ProductHunt launches, TrustMRR revenue pages, Telegram
exports, in one FTS5 index at $SOURCES_ROOT/search.db.

    with writing(settings.sources_db) as conn:       # migrations, topics, re-redaction
        put(conn, [Document("producthunt", "acme", "Acme", url, text, upvotes=412)])
    conn = open_reader(settings.sources_db)
    answer(conn, "search", "pricing tiers", source="youtube", limit=5)

Modules, one concept each: store (the tables and the one write path), vtt (subtitles), chunks
(transcript -> timed chunks), youtube (yt-dlp, lazily imported), topics (keyword tags),
telegram (Desktop exports), search (the answers).
"""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery
from solograph.sources import search as _search
from solograph.sources.store import (
    STORE,
    Document,
    delete,
    open_reader,
    open_store,
    put,
    record_run,
    writing,
)

ACTIONS = ("search", "list", "tags", "related")
CRAWLS = ("producthunt", "trustmrr")  # the spiders in services/scrapers
MAX_LIMIT = 100


def answer(conn: sqlite3.Connection, action: str, query: str | None = None, *,
           source: str | None = None, limit: int = 10) -> dict:
    """One answer of `source_search`: search, list, tags or related."""
    if action not in ACTIONS:
        raise BadQuery(f"unknown action {action!r}", hint=f"use one of: {', '.join(ACTIONS)}")
    limit = max(1, min(limit, MAX_LIMIT))
    source = (source or "").strip().lower() or None
    if action == "list":
        return _search.list_sources(conn, source=source, limit=limit)
    if action == "tags":
        return _search.tags(conn, limit=MAX_LIMIT)
    if not query or not query.strip():
        raise BadQuery("empty query" if action == "search" else "`related` needs a video id",
                       hint='give words to find: "pricing tiers"' if action == "search"
                       else "pass a video id or URL from a youtube result as the query")
    if action == "related":
        return _search.related(conn, query, limit=limit)
    return _search.search(conn, query, source=source, limit=limit)


__all__ = ["ACTIONS", "CRAWLS", "MAX_LIMIT", "STORE", "Document", "answer", "delete", "open_reader",
           "open_store", "put", "record_run", "writing"]
