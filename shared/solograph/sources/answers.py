"""The sources index's one answer, `source_search`, in its four actions: search (ranked in
`search`), list (what each source holds), tags (topic tags) and related (videos sharing tags)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Literal, get_args

from solograph.errors import BadQuery, NotFound
from solograph.index import Handle
from solograph.sources import SOURCES
from solograph.sources import search as ranking
from solograph.sources.chunks import video_url
from solograph.sources.search import SNIPPET, snippet
from solograph.sources.store import check_source
from solograph.sources.youtube import video_id

Action = Literal["search", "list", "tags", "related"]
ACTIONS: tuple[str, ...] = get_args(Action)
MAX_TAGS = 100


def source_search(handle: Handle, *, query: str | None = None, action: str = "search",
                  source: str | None = None, limit: int = 10) -> dict:
    """The sources index (YouTube talks, launches, revenue pages, Telegram): search (each video
    once, at its best chunk, linked at its second), list, tags, or related (query = video id)."""
    if action not in ACTIONS:
        raise BadQuery(f"unknown action {action!r}", hint=f"use one of: {', '.join(ACTIONS)}")
    conn = handle.conn
    source = (source or "").strip().lower() or None
    if source and action in ("search", "list"):
        known_source(conn, source)
    if action == "list":
        return list_sources(conn, source=source, limit=limit)
    if action == "tags":
        return tags(conn, limit=MAX_TAGS)
    if not query or not query.strip():
        raise BadQuery("empty query" if action == "search" else "`related` needs a video id",
                       hint='give words to find: "pricing tiers"' if action == "search"
                       else "pass a video id or URL from a youtube result as the query")
    if action == "related":
        return related(conn, query, limit=limit)
    return ranking.search(conn, query, source=source, limit=limit)


def known_source(conn: sqlite3.Connection, source: str) -> str:
    """`source` when the index holds it or can (the built-in sources); otherwise the error
    names the ones available, as `available`."""
    check_source(source)
    held = {r[0] for r in conn.execute("SELECT DISTINCT source FROM documents")}
    # The built-in sources are valid before anything is indexed from them.
    available = sorted(held | set(SOURCES))
    if source not in available:
        raise BadQuery(f"unknown source {source!r}", hint=f"use one of: {', '.join(available)}",
                       available=available)
    return source


def totals(conn: sqlite3.Connection) -> dict[str, int]:
    """Items per source (a video counts once, whatever its chunks): `count` in the list and
    the `total` of /health."""
    return dict(conn.execute("SELECT source, COUNT(DISTINCT COALESCE(video, key)) "
                             "FROM documents GROUP BY source ORDER BY source").fetchall())


def nothing_indexed(query: str | None, *, source: str | None = None, note: str = "") -> dict:
    """The search answer while no index exists yet: no results, not an error, so a SearXNG
    engine shows nothing instead of logging a failure on every query."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words to find: "pricing tiers"')
    source = (source or "").strip().lower() or None
    if source:
        check_source(source)
    return {"action": "search", "query": query, "source": source, "count": 0, "results": [],
            "note": note}


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def list_sources(conn: sqlite3.Connection, *, source: str | None = None, limit: int = 10) -> dict:
    """What the index holds per source (documents, items, last run); with `source`, its
    newest items too."""
    if source:
        check_source(source)
    sources = []
    store = _store_name(conn)
    for row in conn.execute(
            "SELECT source, COUNT(*) AS documents, COUNT(DISTINCT COALESCE(video, key)) AS items, "
            "MAX(indexed_at) AS last FROM documents " + ("WHERE source = ? " if source else "")
            + "GROUP BY source ORDER BY source", (source,) if source else ()):
        run = conn.execute("SELECT target, finished_at, indexed, problems FROM runs "
                           "WHERE source = ? ORDER BY finished_at DESC LIMIT 1",
                           (row["source"],)).fetchone()
        entry = {
            "source": row["source"], "count": row["items"], "documents": row["documents"],
            "items": row["items"], "path": store,
            "last_indexed": iso(row["last"]),
            "last_run": None if run is None else {
                "target": run["target"], "finished": iso(run["finished_at"]),
                "indexed": run["indexed"], "problems": len(json.loads(run["problems"]))}}
        if row["source"] == "youtube":  # the replaced API's video and chunk counts
            entry["videos"] = row["items"]
            entry["video_chunks"] = conn.execute(
                "SELECT COUNT(*) FROM documents WHERE source = 'youtube' AND video IS NOT NULL "
                "AND key NOT LIKE '%@about'").fetchone()[0]
        sources.append(entry)
    out: dict = {"action": "list", "source": source, "count": len(sources), "sources": sources}
    if source:
        out["results"] = _newest(conn, source, limit)
    return out


def _store_name(conn: sqlite3.Connection) -> str:
    """The index file's name: `path` as the replaced API named each source's store, without
    the folder, which would tell a team's clients where the server's home is."""
    from pathlib import PurePath

    row = conn.execute("PRAGMA database_list").fetchone()
    return PurePath(row[2]).name if row and row[2] else ""


def _newest(conn: sqlite3.Connection, source: str, limit: int) -> list[dict]:
    if source == "youtube":
        return [{"url": r["url"], "title": r["title"], "content": r["description"][:SNIPPET],
                 "id": f"youtube/{r['video']}", "date": r["date"], "channel": r["channel"],
                 "chunks": r["chunks"], "subtitles": r["subtitles"]}
                for r in conn.execute("SELECT * FROM videos ORDER BY indexed_at DESC, video "
                                      "LIMIT ?", (limit,))]
    return [{"url": r["url"], "title": r["title"], "content": snippet(r["text"], []),
             "id": r["key"], "date": r["date"]}
            for r in conn.execute("SELECT key, url, title, text, date FROM documents "
                                  "WHERE source = ? ORDER BY indexed_at DESC, key LIMIT ?",
                                  (source, limit))]


def tags(conn: sqlite3.Connection, *, limit: int = 100) -> dict:
    """Every topic tag with its number of videos and its keywords."""
    keywords: dict[str, list[str]] = {}
    for tag, keyword in conn.execute("SELECT tag, keyword FROM topics ORDER BY tag, keyword"):
        keywords.setdefault(tag, []).append(keyword)
    counts = dict(conn.execute("SELECT tag, COUNT(*) FROM video_tags GROUP BY tag").fetchall())
    ranked = sorted(set(keywords) | set(counts), key=lambda t: (-counts.get(t, 0), t))[:limit]
    return {"action": "tags", "count": len(ranked), "tags": [
        {"tag": t, "videos": counts.get(t, 0), "keywords": keywords.get(t, [])} for t in ranked]}


def related(conn: sqlite3.Connection, video: str, *, limit: int = 10) -> dict:
    """Videos sharing the most topic tags with `video` (an id or a URL)."""
    vid = video_id(video) or video.strip()
    row = conn.execute("SELECT * FROM videos WHERE video = ?", (vid,)).fetchone()
    if row is None:
        raise NotFound(f"video {vid!r} is not indexed",
                         hint="list indexed videos with `solograph sources list -s youtube`")
    own = dict(conn.execute("SELECT tag, score FROM video_tags WHERE video = ?", (vid,)).fetchall())
    if not own:
        raise BadQuery(f"video {vid!r} has no topic tags to relate by",
                       hint="add topics with `solograph sources topic TAG KEYWORD...`")
    marks = ",".join("?" * len(own))
    shared: dict[str, list[tuple[str, float]]] = {}
    for other, tag, score in conn.execute(
            f"SELECT video, tag, score FROM video_tags WHERE tag IN ({marks}) AND video != ?",
            (*own, vid)):
        shared.setdefault(other, []).append((tag, min(score, own[tag])))
    ranked = sorted(shared.items(),
                    key=lambda kv: (-len(kv[1]), -sum(s for _, s in kv[1]), kv[0]))[:limit]
    results = []
    for other, tags_ in ranked:
        v = conn.execute("SELECT title, channel, date FROM videos WHERE video = ?",
                         (other,)).fetchone()
        names = sorted(t for t, _ in tags_)
        results.append({"url": video_url(other), "title": v["title"],
                        "content": "shared tags: " + ", ".join(names), "id": f"youtube/{other}",
                        "video": other, "channel": v["channel"], "date": v["date"],
                        "shared": names, "score": round(sum(s for _, s in tags_), 3)})
    return {"action": "related", "query": video, "source": "youtube",
            "video": {"video": vid, "title": row["title"], "url": row["url"],
                      "tags": sorted(own, key=lambda t: (-own[t], t))},
            "count": len(results), "results": results}
