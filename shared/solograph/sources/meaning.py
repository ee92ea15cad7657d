"""The sources index's part of the meaning lane: one vector per stored document.

A document (a YouTube chunk, a launch, a revenue page, a Telegram message) is embedded as its
title and its text, cut to PASSAGE_CHARS: the redacted text its full-text row is made of.
Search ranks what sources.search ranks: a video once (its best chunk), else the document.
A vector leaves with its document (cascade) and with any change to its title or text (the
migration's trigger), so an upsert of new text is pending again.

`SEARCH` is source_search's meaning side, for its `search` action (list, tags and related
rank no query).
"""

from __future__ import annotations

import re
import sqlite3

from solograph.semantic.answers import Meaning, merge, words_only
from solograph.semantic.embedder import DIM
from solograph.semantic.fusion import MEANING
from solograph.semantic.lane import StoreLane, allowed_by
from solograph.semantic.work import Item, Work, check_vectors, digest
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from solograph.config import Settings

STORE = "sources"
PASSAGE_CHARS = 1_500
_SPACE = re.compile(r"\s+")

_PENDING = ("FROM documents d LEFT JOIN document_vectors v ON v.document = d.id "
            "WHERE (v.document IS NULL OR v.model != ?)")


def document_text(title: str, text: str) -> str:
    return _SPACE.sub(" ", f"{title}\n{text}").strip()[:PASSAGE_CHARS]


class SourcesLane(StoreLane):
    store = STORE

    def writer(self, settings: Settings):
        from solograph.sources.store import writing

        return writing(settings.sources_db)

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int:
        return conn.execute(f"SELECT COUNT(*) {_PENDING}", (model,)).fetchone()[0]

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int) -> Work:
        work = Work(STORE, model)
        for doc, title, text in conn.execute(
                f"SELECT d.id, d.title, d.text {_PENDING} ORDER BY d.indexed_at DESC, d.id "
                "LIMIT ?", (model, limit)):
            passage = document_text(title, text)
            work.items.append(Item(doc, 0, passage, digest(passage)))
        return work

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int:
        from solograph.semantic import matrix as mx

        check_vectors(work, vectors, DIM)
        wrote = 0
        with transaction(conn):
            for item, blob in zip(work.items, mx.encode(vectors), strict=True):
                # Written only while the document still holds the text embedded.
                row = conn.execute("SELECT title, text FROM documents WHERE id = ?",
                                   (item.unit,)).fetchone()
                if row is None or digest(document_text(row[0], row[1])) != item.digest:
                    continue
                wrote += conn.execute(
                    "INSERT INTO document_vectors (document, digest, model, vector) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (document) DO UPDATE SET "
                    "digest = excluded.digest, model = excluded.model, vector = excluded.vector",
                    (item.unit, item.digest, work.model, blob)).rowcount
        return wrote

    def vector_rows(self, conn: sqlite3.Connection, model: str):
        return conn.execute(
            "SELECT v.document, COALESCE(d.video, d.key), v.vector "
            "FROM document_vectors v JOIN documents d ON d.id = v.document WHERE v.model = ?",
            (model,))

    def meaning_rank(self, conn: sqlite3.Connection, query_vector, limit: int, *, model: str,
                     source: str | None = None) -> list[dict]:
        """Videos (by their best chunk) and other documents by cosine with `query_vector`
        (made by `model`), best first, of one `source` or all; `unit` is the group
        sources.search shows once (a video id, else the document key), `document` the best
        document's id."""
        allowed = allowed_by(conn, "SELECT DISTINCT COALESCE(video, key) FROM documents "
                                   "WHERE source = ?", (source,)) if source else None
        return [{"unit": grp, "score": score, "document": doc}
                for grp, score, doc in self.matrix(conn, model).rank(query_vector, limit,
                                                                      allowed)]


LANE = SourcesLane()


class SourceSearch(Meaning):
    """source_search's `search` action: each video once (at its best chunk), else the
    document."""

    def query(self, params: dict) -> str:
        if (params.get("action") or "search") != "search":
            return ""
        return super().query(params)

    def fuse(self, handle: Any, answer: dict, vector, model: str, *, query: str | None = None,
             action: str = "search", source: str | None = None, limit: int = 10) -> dict:
        if answer.get("action") != "search" or "results" not in answer:
            return answer
        if vector is None:
            return words_only(answer)
        conn = handle.conn
        try:
            found = LANE.meaning_rank(conn, vector, limit, model=model, source=source)
        except sqlite3.OperationalError:  # a store from before the lane, opened read-only
            return words_only(answer)
        results = answer["results"]
        words = [_group(h) for h in results]
        docs = {h["unit"]: h for h in found}
        return merge(answer, words, [h["unit"] for h in found], limit=limit,
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


SEARCH = SourceSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
