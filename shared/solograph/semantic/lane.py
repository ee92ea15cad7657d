"""What an index's part of the meaning lane is: the base of each `<index>/meaning.py`.

An index with a lane names its `StoreLane` in its description (`Index.lane`, a
"module:attribute" reference); the engine (`stores`, `read`, `remote`, the worker's tasks)
reaches the index only through it, so a sixth index with vectors is one more module, and
nothing here knows which indexes there are.

A subclass says how its store is opened for writing, which rows wait for vectors, what text
each embeds (`collect`), how vectors are kept (`save`) and read back (`vector_rows`); the
rest (the matrix, the embedding loop, the write job) is the same for every store.
"""

from __future__ import annotations

import sqlite3

from solograph.semantic.work import Report, Work, run

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable
    from contextlib import AbstractContextManager

    import numpy as np

    from solograph.config import Settings
    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import Embedder
    from solograph.semantic.work import Progress


class StoreLane:
    """One index's store, as the lane writes and reads its vectors."""

    store: str = ""

    def writer(self, settings: Settings) -> AbstractContextManager[sqlite3.Connection]:
        """The store's writer, opened as its own jobs open it (migrated, re-redacted)."""
        raise NotImplementedError

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int:
        """Rows waiting for vectors of `model` (freshness: `embedding_pending`)."""
        raise NotImplementedError

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int) -> Work:
        raise NotImplementedError

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int:
        raise NotImplementedError

    def vector_rows(self, conn: sqlite3.Connection, model: str
                    ) -> Iterable[tuple[int, object, bytes]]:
        """(vector row id, the unit a search ranks, float16 bytes) of every vector of
        `model`."""
        raise NotImplementedError

    def matrix(self, conn: sqlite3.Connection, model: str) -> mx.Matrix:
        from solograph.semantic import matrix as mx

        return mx.cached(conn, self.store, model, lambda: self.vector_rows(conn, model))

    def embed_pending(self, conn: sqlite3.Connection, embedder: Embedder, *,
                      deadline: float | None = None, progress: Progress | None = None
                      ) -> Report:
        return run(self, conn, embedder, deadline=deadline, progress=progress)


def allowed_by(conn: sqlite3.Connection, sql: str, params: tuple = ()):
    """A matrix's `allowed` filter: the units `sql` (selecting unit ids) returns."""
    def allowed(names: list) -> set:
        return {r[0] for r in conn.execute(sql, params)}
    return allowed
