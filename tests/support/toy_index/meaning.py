"""The toy index's part of the meaning lane, the whole of it: one vector per note, ranked by
cosine and fused with the words. A lane is this one module and its migration."""

from __future__ import annotations

from contextlib import closing

from solograph.semantic.answers import Meaning, merge, words_only
from solograph.semantic.embedder import DIM
from solograph.semantic.lane import StoreLane
from solograph.semantic.work import Item, Work, check_vectors, digest
from solograph.store import connect_writer, transaction
from tests.support.toy_index.store import db_path

_PENDING = ("FROM notes n LEFT JOIN note_vectors v ON v.note = n.id "
            "WHERE v.note IS NULL OR v.model != ?")


class ToyLane(StoreLane):
    store = "toy"

    def writer(self, settings):
        return closing(connect_writer(db_path(settings), self.store))

    def pending_count(self, conn, model: str) -> int:
        return conn.execute(f"SELECT COUNT(*) {_PENDING}", (model,)).fetchone()[0]

    def collect(self, conn, model: str, *, limit: int) -> Work:
        work = Work(self.store, model)
        for note, text in conn.execute(f"SELECT n.id, n.text {_PENDING} ORDER BY n.id LIMIT ?",
                                       (model, limit)):
            work.items.append(Item(note, 0, text, digest(text)))
        return work

    def save(self, conn, work: Work, vectors) -> int:
        from solograph.semantic import matrix as mx

        check_vectors(work, vectors, DIM)
        wrote = 0
        with transaction(conn):
            for item, blob in zip(work.items, mx.encode(vectors), strict=True):
                wrote += conn.execute(
                    "INSERT OR REPLACE INTO note_vectors (note, digest, model, vector) "
                    "SELECT id, ?, ?, ? FROM notes WHERE id = ?",
                    (item.digest, work.model, blob, item.unit)).rowcount
        return wrote

    def vector_rows(self, conn, model: str):
        return conn.execute("SELECT v.note, n.name, v.vector FROM note_vectors v "
                            "JOIN notes n ON n.id = v.note WHERE v.model = ?", (model,))


LANE = ToyLane()


class ToyMeaning(Meaning):
    def fuse(self, handle, answer: dict, vector, model: str, *, query: str,
             limit: int = 5) -> dict:
        if vector is None:
            return words_only(answer)
        found = [name for name, _, _ in LANE.matrix(handle.conn, model).rank(vector, limit)]
        results = answer["results"]
        return merge(answer, [h["note"] for h in results], found, limit=limit, tier=[],
                     query=query, lexical={h["note"]: h for h in results},
                     render=lambda name: {"note": name, "score": 0.0})


SEARCH = ToyMeaning()


def embed_job(settings) -> dict:
    """The toy index's embed write job, as every lane has one."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
