"""Ranking in the sources index: the search answer (list, tags and related are in answers).

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

from solograph.sources.store import check_source
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
    # The fields of the search API this one replaced, which SearXNG setups and scripts read.
    out.update({"doc_id": row["key"], "source_type": source_type(row["source"], row["key"],
                                                                 row["video"]),
                "source_name": row["source"], "created": row["date"],
                "relevance": relevance(-score)})
    # `tags` is one comma-separated string on every hit, as the replaced API gave it.
    out["tags"] = ""
    if row["video"]:
        out["video"] = row["video"]
        if "start" in meta:
            out["t"] = meta["start"]
            # A chunk's place in its talk, under the replaced API's names.
            out.update({"chapter": meta.get("chapter", ""), "start_time": meta.get("clock", ""),
                        "start_seconds": float(meta["start"])})
        out["channel"] = meta.get("channel", "")
        out["tags"] = ", ".join(r[0] for r in conn.execute(
            "SELECT tag FROM video_tags WHERE video = ? ORDER BY score DESC, tag",
            (row["video"],)))
    if row["upvotes"]:
        out["upvotes"] = row["upvotes"]
    extra = {k: v for k, v in meta.items()
             if k not in ("url", "title", "content", "channel", "video_title", "start", "about",
                          "clock", "chapter")}
    if extra:
        out["meta"] = extra
    return out


def result_of(conn: sqlite3.Connection, doc: int, match: str, terms: list[str]) -> dict:
    """The hit of document `doc` found another way than by BM25 (the meaning lane): shown as
    a search shows it, at its best chunk for the words, scored 0 (the caller ranks it)."""
    return _result(conn, _best_chunk(conn, doc, match_any(terms)), 0.0, match, terms)


def relevance(score: float) -> float:
    """0..1, higher is better: BM25 (positive, unbounded) squashed as s / (1 + s). It orders
    hits exactly as the score does and is not a rank position."""
    score = max(0.0, score)
    return round(score / (1 + score), 4)


def source_type(source: str, key: str, video: str | None) -> str:
    """What kind of document a hit is: `youtube-transcript` (a chunk of a talk),
    `youtube-video` (its title and description), else the source's name."""
    if video:
        return "youtube-video" if key.endswith("@about") else "youtube-transcript"
    return source


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
