"""Reading the sources index: search, list, tags and related videos, each a whole answer.

Search ranks by BM25 over the stems of title (weight 2) and text (weight 1); documents holding
every query word come before those holding some. A document's upvotes lift its score by at
most 15% (store.nudge), and a video appears once, at its best chunk, whose link opens it at
that chunk's second. Every result starts with `url`, `title`, `content`: what SearXNG's
json_engine reads.
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime

from solograph.errors import BadQuery, NotIndexed
from solograph.sources.chunks import video_url
from solograph.sources.store import check_source
from solograph.sources.youtube import video_id
from solograph.text.tokens import match_all, match_any, query_terms, stem

MAX_NUDGE = 0.15
TITLE_WEIGHT, TEXT_WEIGHT = 2.0, 1.0
SNIPPET = 240
_WORD = re.compile(r"[^\W_]+")


def _hits(conn: sqlite3.Connection, match: str, source: str | None, limit: int,
          exclude: set[str]) -> list[tuple[int, str, float]]:
    """(document id, group, score) of the best document per group (a video, else the key)."""
    where, params = "", [match]
    if source:
        where, params = "AND d.source = ?", [match, source]
    rows = conn.execute(
        "WITH hits AS MATERIALIZED (SELECT d.id AS id, COALESCE(d.video, d.key) AS grp, "
        f"bm25(documents_fts, {TITLE_WEIGHT}, {TEXT_WEIGHT}) * (1 + {MAX_NUDGE} * d.nudge) AS s "
        "FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid "
        f"WHERE documents_fts MATCH ? {where}) "
        "SELECT id, grp, MIN(s) AS s FROM hits GROUP BY grp ORDER BY s, id LIMIT ?",
        (*params, limit + len(exclude))).fetchall()
    return [(r[0], r[1], r[2]) for r in rows if r[1] not in exclude][:limit]


def search(conn: sqlite3.Connection, query: str, *, source: str | None = None,
           limit: int = 10) -> dict:
    terms = query_terms(query, prose=True)
    if source:
        check_source(source)
    found = [(*h, "all") for h in _hits(conn, match_all(terms), source, limit, set())]
    if len(found) < limit and len(terms) > 1:
        seen = {grp for _, grp, _, _ in found}
        found += [(*h, "some") for h in _hits(conn, match_any(terms), source,
                                               limit - len(found), seen)]
    results = [_result(conn, _best_chunk(conn, doc, match_any(terms)), score, match, terms)
               for doc, _, score, match in found]
    return {"action": "search", "query": query, "source": source, "count": len(results),
            "results": results}


def _best_chunk(conn: sqlite3.Connection, doc: int, match: str) -> int:
    """A video found through its title and description (`@about`) is shown at its best
    matching chunk, when one matches, so the link still opens where the words are said."""
    row = conn.execute("SELECT video, key FROM documents WHERE id = ?", (doc,)).fetchone()
    if not row["video"] or not row["key"].endswith("@about"):
        return doc
    chunk = conn.execute(
        f"SELECT d.id FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid "
        f"WHERE documents_fts MATCH ? AND d.video = ? AND d.key != ? "
        f"ORDER BY bm25(documents_fts, {TITLE_WEIGHT}, {TEXT_WEIGHT}) LIMIT 1",
        (match, row["video"], row["key"])).fetchone()
    return chunk[0] if chunk else doc


def _result(conn: sqlite3.Connection, doc: int, score: float, match: str,
            terms: list[str]) -> dict:
    row = conn.execute("SELECT * FROM documents WHERE id = ?", (doc,)).fetchone()
    meta = json.loads(row["metadata"] or "{}")
    content = snippet(row["text"], terms) or row["title"]
    out = {"url": row["url"], "title": row["title"]}
    if row["video"] and "start" in meta:
        content = f"[{meta.get('clock', '')}] {content}"
    out["content"] = content
    out.update({"id": row["key"], "source": row["source"], "date": row["date"],
                "score": round(-score, 3), "match": match})
    if row["video"]:
        out["video"] = row["video"]
        if "start" in meta:
            out["t"] = meta["start"]
        out["channel"] = meta.get("channel", "")
        out["tags"] = [r[0] for r in conn.execute(
            "SELECT tag FROM video_tags WHERE video = ? ORDER BY score DESC, tag",
            (row["video"],))]
    if row["upvotes"]:
        out["upvotes"] = row["upvotes"]
    extra = {k: v for k, v in meta.items()
             if k not in ("url", "title", "content", "channel", "video_title", "start", "about")}
    if extra:
        out["meta"] = extra
    return out


def snippet(text: str, terms: list[str], width: int = SNIPPET) -> str:
    """About `width` characters of `text` around the place holding the most query words."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    hits: list[tuple[int, str]] = []
    for m in _WORD.finditer(flat):
        s = stem(m.group().lower())
        term = next((t for t in terms if s.startswith(t)), None)
        if term:
            hits.append((m.start(), term))
            if len(hits) >= 200:
                break
    if not hits:
        start = 0
    else:
        best, start = -1, 0
        for pos, _ in hits:
            count = len({t for p, t in hits if pos <= p < pos + width - 40})
            if count > best:
                best, start = count, max(0, pos - 40)
    if start:  # begin on a word
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def list_sources(conn: sqlite3.Connection, *, source: str | None = None, limit: int = 10) -> dict:
    """What the index holds per source (documents, items, last run); with `source`, its
    newest items too."""
    if source:
        check_source(source)
    sources = []
    for row in conn.execute(
            "SELECT source, COUNT(*) AS documents, COUNT(DISTINCT COALESCE(video, key)) AS items, "
            "MAX(indexed_at) AS last FROM documents " + ("WHERE source = ? " if source else "")
            + "GROUP BY source ORDER BY source", (source,) if source else ()):
        run = conn.execute("SELECT target, finished_at, indexed, problems FROM runs "
                           "WHERE source = ? ORDER BY finished_at DESC LIMIT 1",
                           (row["source"],)).fetchone()
        sources.append({
            "source": row["source"], "documents": row["documents"], "items": row["items"],
            "last_indexed": iso(row["last"]),
            "last_run": None if run is None else {
                "target": run["target"], "finished": iso(run["finished_at"]),
                "indexed": run["indexed"], "problems": len(json.loads(run["problems"]))}})
    out: dict = {"action": "list", "source": source, "count": len(sources), "sources": sources}
    if source:
        out["results"] = _newest(conn, source, limit)
    return out


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
        raise NotIndexed(f"video {vid!r} is not indexed",
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
