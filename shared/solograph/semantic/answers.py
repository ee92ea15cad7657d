"""Each index's search answer with the meaning lane fused in (an Answer's `meaning`).

The lexical answer is computed as always; the meaning ranking of the same scope (the same
project, folder or source, the asking session left out) is fused with it by
`fusion.fuse_search`: for a short query the lexical first hit and the hits holding every
word (sessions: the phrase, all and respelled passes; KB: pages whose title holds every
word; sources: documents holding every word) stay first, then reciprocal rank fusion. A hit
the lexical lane found keeps its fields; one found by meaning alone is shown as the lexical
lane shows its hits, at its best window, section or chunk (`match: "meaning"` where hits say
how they matched). Every hit says which lanes found it (`lanes`), and its `score` is the fused
one: the order of the answer.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from solograph.semantic.fusion import MEANING, WORDS, fuse_search

SCORE_DIGITS = 6


def _terms(query: str) -> int:
    from solograph.text.tokens import query_terms

    return len(query_terms(query, prose=True))


def _merge(answer: dict, words: list, meaning: list, *, limit: int, tier: list, query: str,
           lexical: dict, render) -> dict:
    """The answer with its results fused: `lexical` maps a unit to its lexical hit, `render`
    makes the hit of a unit found by meaning alone (None: gone meanwhile)."""
    out = []
    for fused in fuse_search(words, meaning, limit=limit, tier=tier, terms=_terms(query)):
        hit = lexical.get(fused.unit)
        if hit is None:
            hit = render(fused.unit)
            if hit is None:
                continue
        out.append({**hit, "score": round(fused.score, SCORE_DIGITS), "lanes": fused.lanes})
    return {**answer, "count": len(out), "results": out}


def _words_only(answer: dict) -> dict:
    """The lexical answer, each hit marked as the words lane's (no query vector in time)."""
    results = [{**h, "lanes": [WORDS]} for h in answer.get("results", [])]
    return {**answer, "results": results}


class Sessions:
    """session_search: sessions ranked; a session read whole (`session`) is not fused."""

    TIER = ("phrase", "all", "respelled")

    @staticmethod
    def query(params: dict) -> str:
        return "" if params.get("session") else (params.get("query") or "").strip()

    def fuse(self, handle: Any, answer: dict, vector, model: str, *, query: str,
             project: str | None = None, limit: int = 10, session: str | None = None,
             exclude_session: str | None = None) -> dict:
        if session or "results" not in answer:
            return answer
        if vector is None:
            return _words_only(answer)
        from solograph.semantic import sessions as lane
        from solograph.sessions.search import project_scope

        conn = handle.conn
        scope = project_scope(project or "", exclude=exclude_session)
        found = lane.meaning_rank(conn, vector, limit, model=model, where=scope.where,
                                  params=scope.params)
        keys = _session_keys(conn, [h["unit"] for h in found])
        meaning = [keys[h["unit"]] for h in found if h["unit"] in keys]
        where = {keys[h["unit"]]: h for h in found if h["unit"] in keys}
        results = answer["results"]
        return _merge(answer, [h["session"] for h in results], meaning, limit=limit,
                      tier=[h["session"] for h in results if h["match"] in self.TIER],
                      query=query, lexical={h["session"]: h for h in results},
                      render=lambda key: session_hit(conn, query, where[key]))


def _session_keys(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return dict(conn.execute(f"SELECT id, session_id FROM sessions WHERE id IN ({marks})",
                             ids).fetchall())


def session_hit(conn: sqlite3.Connection, query: str, found: dict) -> dict | None:
    """A session found by meaning: at the message of its best window holding the most query
    words (its first message when none does)."""
    from solograph.semantic.sessions import KINDS
    from solograph.sessions.search import describe
    from solograph.sessions.snippets import matched, snippet
    from solograph.text.tokens import query_terms

    row = conn.execute(
        "SELECT s.*, EXISTS (SELECT 1 FROM files f WHERE f.session_id = s.session_id "
        "AND f.kind = 'main' AND f.status = 'live') AS live FROM sessions s WHERE s.id = ?",
        (found["unit"],)).fetchone()
    if row is None:
        return None
    stems = query_terms(query, prose=True)
    first, last = found["span"]
    marks = ",".join("?" * len(KINDS))
    best, best_count = None, -1
    for text, tools, words in conn.execute(
            f"SELECT text, tools, words FROM entries WHERE chunk = ? AND seq BETWEEN ? AND ? "
            f"AND kind IN ({marks}) AND text != '' ORDER BY seq",
            (found["chunk"], first, last, *KINDS)):
        count = matched(words, stems, lambda s: (s,))
        if count > best_count:
            best, best_count = (text, tools), count
    return {**describe(row), "snippet": snippet(best[0], best[1], stems) if best else "",
            "score": 0.0, "match": MEANING}


class Kb:
    """kb_search: pages ranked, the whole KB and the wiki in turn as the lexical lane takes
    them; a page read whole (`get`) is not fused."""

    @staticmethod
    def query(params: dict) -> str:
        get = params.get("get")
        return "" if get is not None and str(get).strip() else (params.get("query") or "").strip()

    def fuse(self, kb: Any, answer: dict, vector, model: str, *, query: str | None = None,
             path: str | None = None, pages: bool = False, expand: bool = False,
             limit: int = 10, get: str | None = None) -> dict:
        if "page" in answer or "results" not in answer:
            return answer
        if vector is None:
            return _words_only(answer)
        from solograph.kb import search
        from solograph.semantic import kb as lane

        conn = kb.conn
        found = [[(h["unit"], h["score"], h["section"]) for h in lane.meaning_rank(
            conn, vector, limit, model=model, where=s.where, params=s.params)]
            for s in search.scope_for(path=path, pages=pages)]
        sections = {doc: section for lane_hits in found for doc, _, section in lane_hits}
        docs = [doc for doc, _, _ in search.interleave(
            [[(d, s) for d, s, _ in hits] for hits in found], limit)]
        paths = _doc_paths(conn, docs)
        meaning = [paths[d] for d in docs if d in paths]
        ids = {p: d for d, p in paths.items()}
        results = answer["results"]
        words = [h["path"] for h in results]
        fused = _merge(answer, words, meaning, limit=limit,
                       tier=_titled(conn, query or "", words), query=query or "",
                       lexical={h["path"]: h for h in results},
                       render=lambda p: kb_hit(conn, query or "", ids[p], sections[ids[p]]))
        if expand:
            from solograph.kb import graph

            chosen = _doc_ids(conn, [h["path"] for h in fused["results"]])
            fused["expanded"] = graph.expand(conn, chosen)
        return fused


def _doc_paths(conn: sqlite3.Connection, docs: list[int]) -> dict[int, str]:
    if not docs:
        return {}
    marks = ",".join("?" * len(docs))
    return dict(conn.execute(f"SELECT id, path FROM docs WHERE id IN ({marks})", docs))


def _doc_ids(conn: sqlite3.Connection, paths: list[str]) -> list[int]:
    out = []
    for p in paths:
        row = conn.execute("SELECT id FROM docs WHERE path = ?", (p,)).fetchone()
        if row is not None:
            out.append(row[0])
    return out


def _titled(conn: sqlite3.Connection, query: str, words: list[str]) -> list[str]:
    """The lexical hits whose title holds every word of a query of two words or more."""
    from solograph.text.tokens import fts_term, query_terms

    stems = query_terms(query, prose=True)
    if len(stems) < 2 or not words:
        return []
    held = {r[0] for r in conn.execute(
        "SELECT d.path FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid "
        "WHERE docs_fts MATCH ? LIMIT 1000",
        ("{title}: (" + " AND ".join(fts_term(t) for t in stems) + ")",))}
    return [w for w in words if w in held]


def kb_hit(conn: sqlite3.Connection, query: str, doc: int, section: int) -> dict | None:
    """A page found by meaning, at the section that found it."""
    from solograph.kb.search import Query, result
    from solograph.text.tokens import query_terms

    if conn.execute("SELECT 1 FROM sections WHERE id = ? AND doc = ?",
                    (section, doc)).fetchone() is None:
        return None
    stems = query_terms(query, prose=True)
    q = Query(query, stems, alternatives=[(s,) for s in stems], sections={doc: section})
    return result(conn, q, doc, 0.0)


class Sources:
    """source_search's `search` action: each video once (at its best chunk), else the
    document; list, tags and related are not rankings of the query."""

    @staticmethod
    def query(params: dict) -> str:
        if (params.get("action") or "search") != "search":
            return ""
        return (params.get("query") or "").strip()

    def fuse(self, handle: Any, answer: dict, vector, model: str, *, query: str | None = None,
             action: str = "search", source: str | None = None, limit: int = 10) -> dict:
        if answer.get("action") != "search" or "results" not in answer:
            return answer
        if vector is None:
            return _words_only(answer)
        from solograph.semantic import sources as lane

        conn = handle.conn
        try:
            found = lane.meaning_rank(conn, vector, limit, model=model, source=source)
        except sqlite3.OperationalError:  # a store from before the lane, opened read-only
            return _words_only(answer)
        results = answer["results"]
        words = [_group(h) for h in results]
        docs = {h["unit"]: h for h in found}
        return _merge(answer, words, [h["unit"] for h in found], limit=limit,
                      tier=[_group(h) for h in results if h.get("match") == "all"],
                      query=query or "", lexical={_group(h): h for h in results},
                      render=lambda grp: source_hit(conn, query or "", docs[grp]))


def _group(hit: dict) -> str:
    return hit.get("video") or hit["id"]


def source_hit(conn: sqlite3.Connection, query: str, found: dict) -> dict | None:
    """A document found by meaning; its `relevance` (0..1, the field the search API this
    one replaced had) is its cosine with the query."""
    from solograph.sources.search import result_of
    from solograph.text.tokens import query_terms

    doc = found["document"]
    if conn.execute("SELECT 1 FROM documents WHERE id = ?", (doc,)).fetchone() is None:
        return None
    hit = result_of(conn, doc, MEANING, query_terms(query, prose=True))
    return {**hit, "relevance": round(min(0.9999, max(0.0001, found["score"])), 4)}


SESSIONS = Sessions()
KB = Kb()
SOURCES = Sources()
