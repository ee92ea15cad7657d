"""The sources index's side of the meaning lane: one vector per stored document.

A document (a YouTube chunk, a launch, a revenue page, a Telegram message) is embedded as its
title and its text, cut to PASSAGE_CHARS: the redacted text its full-text row is made of.
Search ranks what sources.search ranks: a video once (its best chunk), else the document.
A vector leaves with its document (cascade) and with any change to its title or text (the
migration's trigger), so an upsert of new text is pending again.
"""

from __future__ import annotations

import re
import sqlite3

from solograph.semantic.embedder import DIM
from solograph.semantic.work import Item, Report, Work, check_vectors, digest, run
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    import numpy as np

    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import Embedder
    from solograph.semantic.work import Progress

STORE = "sources"
PASSAGE_CHARS = 1_500
_SPACE = re.compile(r"\s+")

_PENDING = ("FROM documents d LEFT JOIN document_vectors v ON v.document = d.id "
            "WHERE (v.document IS NULL OR v.model != ?)")


def document_text(title: str, text: str) -> str:
    return _SPACE.sub(" ", f"{title}\n{text}").strip()[:PASSAGE_CHARS]


class SourcesLane:
    store = STORE

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


LANE = SourcesLane()


def pending_count(conn: sqlite3.Connection, model: str) -> int:
    """Documents waiting for vectors of `model` (freshness: `embedding_pending`)."""
    return LANE.pending_count(conn, model)


def embed_pending(conn: sqlite3.Connection, embedder: Embedder, *,
                  deadline: float | None = None, progress: Progress | None = None) -> Report:
    return run(LANE, conn, embedder, deadline=deadline, progress=progress)


def matrix(conn: sqlite3.Connection, model: str) -> mx.Matrix:
    from solograph.semantic import matrix as mx

    return mx.cached(conn, STORE, model, lambda: conn.execute(
        "SELECT v.document, COALESCE(d.video, d.key), v.vector "
        "FROM document_vectors v JOIN documents d ON d.id = v.document WHERE v.model = ?",
        (model,)))


def meaning_rank(conn: sqlite3.Connection, query_vector, limit: int, *, model: str,
                 source: str | None = None) -> list[dict]:
    """Videos (by their best chunk) and other documents by cosine with `query_vector` (made
    by `model`), best first, of one `source` or all; `unit` is the group sources.search
    shows once (a video id, else the document key), `document` the best document's id."""
    allowed = None
    if source:
        def allowed(names: list) -> set:
            return {r[0] for r in conn.execute(
                "SELECT DISTINCT COALESCE(video, key) FROM documents WHERE source = ?",
                (source,))}
    return [{"unit": grp, "score": score, "document": doc}
            for grp, score, doc in matrix(conn, model).rank(query_vector, limit, allowed)]
