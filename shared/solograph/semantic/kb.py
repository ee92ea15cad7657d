"""The KB index's side of the meaning lane: one vector per heading section.

A section is embedded as the page title, its heading path and its plain text (links as their
labels), cut to PASSAGE_CHARS: the same redacted text the section's full-text row is made of,
never more. Catalogs (index.md) are not embedded: a list of one line about every page is
near every question in meaning and answers none (their lines already count lexically, as
each page's `index_line`). Pages of the wiki folder are embedded first, newest first, so a
search over the wiki has its vectors soonest. A page read again gets new sections; their
vectors left with the old ones (foreign key cascade), and the new ones are pending.
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


class KbLane:
    store = STORE

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


LANE = KbLane()


def pending_count(conn: sqlite3.Connection, model: str) -> int:
    """Sections waiting for vectors of `model` (freshness: `embedding_pending`)."""
    return LANE.pending_count(conn, model)


def embed_pending(conn: sqlite3.Connection, embedder: Embedder, *,
                  deadline: float | None = None, progress: Progress | None = None) -> Report:
    return run(LANE, conn, embedder, deadline=deadline, progress=progress)


def matrix(conn: sqlite3.Connection, model: str) -> mx.Matrix:
    from solograph.semantic import matrix as mx

    return mx.cached(conn, STORE, model, lambda: conn.execute(
        "SELECT v.section, s.doc, v.vector FROM section_vectors v "
        "JOIN sections s ON s.id = v.section WHERE v.model = ?", (model,)))


def meaning_rank(conn: sqlite3.Connection, query_vector, limit: int, *, model: str,
                 where: str = "", params: tuple = ()) -> list[dict]:
    """Pages by the cosine of their best section with `query_vector` (made by `model`), best
    first; `where`/`params` is an SQL condition over `d` (docs), as kb.search.Scope gives
    it. Each hit names its best section."""
    allowed = None
    if where:
        def allowed(names: list) -> set:
            return {r[0] for r in conn.execute(f"SELECT d.id FROM docs d WHERE {where}",
                                                params)}
    return [{"unit": doc, "score": score, "section": section}
            for doc, score, section in matrix(conn, model).rank(query_vector, limit, allowed)]
