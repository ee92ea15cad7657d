"""The meaning lane inside a read: what `solograph.reads.read` does when the lane is on.

`begin` (before the index opens) hands the query to the model's background thread, so it
embeds while the index syncs and the lexical lane ranks. `catch_up` embeds what waits with
what is left of the sync budget, on a writer only (a reader never writes; the worker or the
next sync embeds for it). `fuse` gives the answer's fused ranking, each hit with its `lanes`;
`pending` is freshness's `embedding_pending`. With the lane off none of this runs, and an
answer is the lexical one, byte for byte.

Which answers fuse, and how, is each answer's `meaning` (a `semantic.answers.Meaning` in its
index's meaning module): an answer with none (symbol search, the hook's kb_hint, exports)
never touches the lane, nor numpy.
"""

from __future__ import annotations

import sqlite3
import time

TYPE_CHECKING = False  # importing typing costs every start ~2 ms

if TYPE_CHECKING:
    from concurrent.futures import Future  # 12 ms of imports (logging), for an annotation
    from typing import Any

    from solograph.config import Settings
    from solograph.index import Answer, Index
    from solograph.semantic.answers import Meaning
    from solograph.semantic.embedder import QueryVectors
    from solograph.semantic.lane import StoreLane

# How long a fused answer waits for its query's vector once the lexical lane is done: the
# model is loaded (~60 ms) and the query embedded (~20 ms) meanwhile; a process under heavy
# load may take longer, and then the answer is the lexical one rather than a late one.
VECTOR_WAIT_S = 5.0

_queries: dict[int, QueryVectors] = {}


def queries() -> QueryVectors:
    """The process's query vectors (one model, its last queries remembered)."""
    from solograph.semantic.embedder import QueryVectors, shared_embedder

    model = shared_embedder()
    found = _queries.get(id(model))
    if found is None:
        found = _queries[id(model)] = QueryVectors(model)
    return found


class InRead:
    """The lane for one read of `lane`'s store: `query` is what to embed ("" when the read
    ranks nothing, say a page read whole: the answer is then as it is, with freshness's
    count)."""

    def __init__(self, lane: StoreLane, meaning: Meaning, query: str) -> None:
        from solograph.semantic.embedder import shared_embedder

        self.lane = lane
        self.meaning = meaning
        self.embedder = shared_embedder()
        self.model = self.embedder.model_id
        self.vector: Future | None = queries().start(query) if query else None
        self._pending: int | None = None  # counted by catch_up, for freshness

    def catch_up(self, conn: sqlite3.Connection, deadline: float) -> dict | None:
        """Embed what waits until `deadline` (time.monotonic()); None when there was no time
        or nothing waits."""
        if time.monotonic() >= deadline:
            return None
        self._pending = self._count(conn)
        if not self._pending:  # the usual case: one count, no collecting
            return None
        try:
            report = self.lane.embed_pending(conn, self.embedder, deadline=deadline)
        except sqlite3.OperationalError:  # a store locked by a writer: the next read embeds
            self._pending = None
            return None
        self._pending = report.pending
        return report.to_dict()

    def lexical(self, params: dict) -> dict:
        """The parameters of the lexical answer this read fuses."""
        return self.meaning.lexical(params)

    def fuse(self, handle: Any, answer: dict, params: dict) -> dict:
        if self.vector is None:
            return answer
        try:
            vector = self.vector.result(timeout=VECTOR_WAIT_S)
        except TimeoutError:
            return self.meaning.fuse(handle, answer, None, self.model, **params)
        return self.meaning.fuse(handle, answer, vector, self.model, **params)

    def pending(self, conn: sqlite3.Connection) -> int:
        if self._pending is not None:
            return self._pending
        return self._count(conn)

    def _count(self, conn: sqlite3.Connection) -> int:
        try:
            return self.lane.pending_count(conn, self.model)
        except sqlite3.OperationalError:  # a reader of a store from before the lane
            return 0


def begin(index: Index, spec: Answer, params: dict, settings: Settings) -> InRead | None:
    """The lane for this read, or None: the answer has no meaning side, or the lane is off."""
    if not spec.meaning:
        return None
    from solograph.semantic import enabled

    if not enabled(settings):
        return None
    from solograph.index import resolve

    meaning = resolve(spec.meaning)
    return InRead(resolve(index.lane), meaning, meaning.query(params))

