"""The KB index's part of the meaning lane: one vector per heading section.

A section is embedded as the page title, its heading path and its plain text (links as their
labels), cut to PASSAGE_CHARS: the same redacted text the section's full-text row is made of,
never more. Catalogs (index.md) are not embedded: a list of one line about every page is
near every question in meaning and answers none (their lines already count lexically, as
each page's `index_line`). Pages of the wiki folder are embedded first, newest first, so a
search over the wiki has its vectors soonest. A page read again gets new sections; their
vectors left with the old ones (foreign key cascade), and the new ones are pending.

`SEARCH` is kb_search's meaning side: pages by their best section, the whole KB and the wiki
in turn as the lexical lane takes them; `expand` is done once, on the fused pages.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

from solograph.semantic.answers import Meaning, merge, words_only
from solograph.semantic.embedder import DIM
from solograph.semantic.lane import StoreLane, allowed_by
from solograph.semantic.work import Item, Work, check_vectors, digest
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from solograph.config import Settings

STORE = "kb"
PASSAGE_CHARS = 1_500
_SPACE = re.compile(r"\s+")


def section_text(title: str, heading: str, text: str) -> str:
    from solograph.kb.markdown import plain

    head = heading if heading.startswith(title) else " > ".join(x for x in (title, heading) if x)
    body = _SPACE.sub(" ", plain(text)).strip()
    return f"{head}\n{body}".strip()[:PASSAGE_CHARS]


_PENDING = ("FROM sections s JOIN docs d ON d.id = s.doc "
            "LEFT JOIN section_vectors v ON v.section = s.id "
            "WHERE d.catalog = 0 AND (v.section IS NULL OR v.model != ?)")


class KbLane(StoreLane):
    store = STORE

    def writer(self, settings: Settings):
        from solograph.kb.store import configured, open_kb

        return closing(open_kb(settings.home, configured(settings)).conn)

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int:
        return conn.execute(f"SELECT COUNT(*) {_PENDING}", (model,)).fetchone()[0]

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int,
                where: str = "", params: tuple = ()) -> Work:
        extra = f" AND {where}" if where else ""
        work = Work(STORE, model)
        for sid, title, heading, text in conn.execute(
                f"SELECT s.id, d.title, s.heading, s.text {_PENDING}{extra} "
                "ORDER BY d.in_pages DESC, d.mtime_ns DESC, s.id LIMIT ?",
                (model, *params, limit)):
            passage = section_text(title, heading, text)
            work.items.append(Item(sid, 0, passage, digest(passage)))
        return work

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int:
        from solograph.semantic import matrix as mx

        check_vectors(work, vectors, DIM)
        wrote = 0
        with transaction(conn):
            for item, blob in zip(work.items, mx.encode(vectors), strict=True):
                wrote += conn.execute(
                    "INSERT INTO section_vectors (section, digest, model, vector) "
                    "SELECT id, ?, ?, ? FROM sections WHERE id = ? "
                    "ON CONFLICT (section) DO UPDATE SET digest = excluded.digest, "
                    "model = excluded.model, vector = excluded.vector",
                    (item.digest, work.model, blob, item.unit)).rowcount
        return wrote

    def vector_rows(self, conn: sqlite3.Connection, model: str):
        return conn.execute("SELECT v.section, s.doc, v.vector FROM section_vectors v "
                            "JOIN sections s ON s.id = v.section WHERE v.model = ?", (model,))

    def meaning_rank(self, conn: sqlite3.Connection, query_vector, limit: int, *, model: str,
                     where: str = "", params: tuple = ()) -> list[dict]:
        """Pages by the cosine of their best section with `query_vector` (made by `model`),
        best first; `where`/`params` is an SQL condition over `d` (docs), as kb.search.Scope
        gives it. Each hit names its best section."""
        allowed = allowed_by(conn, f"SELECT d.id FROM docs d WHERE {where}",
                             params) if where else None
        return [{"unit": doc, "score": score, "section": section}
                for doc, score, section in self.matrix(conn, model).rank(query_vector, limit,
                                                                          allowed)]


LANE = KbLane()


class KbSearch(Meaning):
    """kb_search: pages ranked; a page read whole (`get`) is not fused."""

    def query(self, params: dict) -> str:
        get = params.get("get")
        return "" if get is not None and str(get).strip() else super().query(params)

    def lexical(self, params: dict) -> dict:
        # Expanded once, from the fused pages; kb_get (a page, never fused) has no `expand`.
        return {**params, "expand": False} if "expand" in params else params

    def fuse(self, kb: Any, answer: dict, vector, model: str, *, query: str | None = None,
             path: str | None = None, pages: bool = False, expand: bool = False,
             limit: int = 10, get: str | None = None, ref: str | None = None) -> dict:
        if "page" in answer or "results" not in answer:
            return answer
        fused = words_only(answer) if vector is None else \
            self._fused(kb.conn, answer, vector, model, query or "", path, pages, limit)
        if expand:
            from solograph.kb.answers import expanded

            fused["expanded"] = expanded(kb.conn, fused["results"])
        return fused

    def _fused(self, conn: sqlite3.Connection, answer: dict, vector, model: str, query: str,
               path: str | None, pages: bool, limit: int) -> dict:
        from solograph.kb import search

        found = [[(h["unit"], h["score"], h["section"]) for h in LANE.meaning_rank(
            conn, vector, limit, model=model, where=s.where, params=s.params)]
            for s in search.scope_for(path=path, pages=pages)]
        sections = {doc: section for lane_hits in found for doc, _, section in lane_hits}
        docs = [doc for doc, _, _ in search.interleave(
            [[(d, s) for d, s, _ in hits] for hits in found], limit)]
        paths = _doc_paths(conn, docs)
        ids = {p: d for d, p in paths.items()}
        results = answer["results"]
        words = [h["path"] for h in results]
        return merge(answer, words, [paths[d] for d in docs if d in paths], limit=limit,
                     tier=_titled(conn, query, words), query=query,
                     lexical={h["path"]: h for h in results},
                     render=lambda p: kb_hit(conn, query, ids[p], sections[ids[p]]))


def _doc_paths(conn: sqlite3.Connection, docs: list[int]) -> dict[int, str]:
    if not docs:
        return {}
    marks = ",".join("?" * len(docs))
    return dict(conn.execute(f"SELECT id, path FROM docs WHERE id IN ({marks})", docs))


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


SEARCH = KbSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
