"""The meaning lane inside a read: what `solograph.reads.read` does when the lane is on.

`begin` (before the index opens) hands the query to the model's background thread, so it
embeds while the index syncs and the lexical lane ranks. A read embeds its query and nothing
else: what waits for vectors is the write commands', the worker's or the detached
embedder's (`semantic/detach.py`). `fuse` gives the answer's fused ranking, each hit with its
`lanes`, waiting for the query's vector no longer than the read's query time limit allows
(counted from the read's start): a model slower than that gives the lexical answer, and
freshness says so (`meaning: "late"`; `"failed"` when the model would not run, `"words"`
when nothing is embedded yet, `"fused"` otherwise). `freshness` is what the answer says of
the lane: how many texts are embedded, how many wait, and whether the meaning lane took
part.

Which answers fuse, and how, is each answer's `meaning` (a `semantic.answers.Meaning` in its
index's meaning module): an answer with none (symbol search, the hook's kb_hint, exports)
never touches the lane, nor numpy.
"""

from __future__ import annotations

import sqlite3
import time

TYPE_CHECKING = False  # importing typing costs every start ~2 ms

if TYPE_CHECKING:
    from typing import Any

    from solograph.config import Settings
    from solograph.index import Answer, Index
    from solograph.semantic.answers import Meaning
    from solograph.semantic.embedder import Pending, QueryVectors
    from solograph.semantic.lane import StoreLane

FUSED, LATE, WORDS_ONLY, FAILED = "fused", "late", "words", "failed"

_queries: dict[int, QueryVectors] = {}


def queries() -> QueryVectors:
    """The process's query vectors (one model, its last queries remembered)."""
    from solograph.semantic.embedder import QueryVectors, shared_embedder

    model = shared_embedder()
    found = _queries.get(id(model))
    if found is None:
        found = _queries[id(model)] = QueryVectors(model)
    return found


def warm(settings: Settings) -> None:
    """Load the model in the background of a long-lived process (the API, the MCP gateway, an
    MCP session) when the lane is on, so its first fused read does not wait for the load: a
    read waits for its query's vector no longer than its time limit, and a model still
    loading on a busy machine made the first reads after the store was embedded answer by
    words (`meaning: "late"`). Nothing is raised here: a model that will not load is each
    read's to report (`meaning: "failed"`)."""
    from solograph.semantic import enabled

    try:
        if not enabled(settings):
            return
        from solograph.semantic.embedder import shared_embedder

        model = shared_embedder()
    except Exception:  # noqa: BLE001 - a read says why the lane is off
        return

    import contextlib
    import threading  # here: a CLI read imports this module and never warms

    def load() -> None:
        with contextlib.suppress(Exception):  # a model that will not run: each read says so
            model.embed_queries(["query"])

    threading.Thread(target=load, name="solograph-warm", daemon=True).start()


class InRead:
    """The lane for one read of `lane`'s store: `query` is what to embed ("" when the read
    ranks nothing, say a page read whole: the answer is then as it is, with freshness's
    counts); `deadline` (time.monotonic()) the latest the read waits for its vector."""

    def __init__(self, lane: StoreLane, meaning: Meaning, query: str, deadline: float) -> None:
        from solograph.semantic.embedder import shared_embedder

        self.lane = lane
        self.meaning = meaning
        self.model = shared_embedder().model_id
        self.deadline = deadline
        self.vector: Pending | None = queries().start(query) if query else None
        self.state = ""

    def lexical(self, params: dict) -> dict:
        """The parameters of the lexical answer this read fuses."""
        return self.meaning.lexical(params)

    def fuse(self, handle: Any, answer: dict, params: dict) -> dict:
        if self.vector is None:
            return answer
        vector = None
        try:
            if self.lane.embedded_count(handle.conn, self.model):
                vector = self.vector.result(timeout=max(0.0, self.deadline - time.monotonic()))
                self.state = FUSED
            else:  # nothing to rank by meaning yet: the answer is the words', unwaited
                self.state = WORDS_ONLY
        except sqlite3.OperationalError:  # a reader of a store from before the lane
            self.state = WORDS_ONLY
        except TimeoutError:
            self.state = LATE
        except (OSError, RuntimeError, ValueError):  # the model would not load or run: the
            self.state = FAILED                       # words still answer, and say so
        try:
            return self.meaning.fuse(handle, answer, vector, self.model, **params)
        except sqlite3.OperationalError:  # the vectors would not read: the words answer
            self.state = FAILED
            return self.meaning.fuse(handle, answer, None, self.model, **params)

    def freshness(self, conn: sqlite3.Connection) -> dict:
        """`embedding_pending`, `embedded`, and `meaning` when the read ranked by meaning."""
        try:
            pending = self.lane.pending_count(conn, self.model)
            embedded = self.lane.embedded_count(conn, self.model)
        except sqlite3.OperationalError:
            pending = embedded = 0
        out: dict[str, object] = {"embedding_pending": pending, "embedded": embedded}
        if self.state:
            out["meaning"] = self.state
        return out


def begin(index: Index, spec: Answer, params: dict, settings: Settings, *,
          started: float) -> InRead | None:
    """The lane for this read, or None: the answer has no meaning side, or the lane is off.
    `started`: when the read began (time.monotonic()), from which its time limit counts."""
    if not spec.meaning:
        return None
    from solograph.semantic import enabled

    if not enabled(settings):
        return None
    from solograph.index import resolve

    meaning = resolve(spec.meaning)
    return InRead(resolve(index.lane), meaning, meaning.query(params),
                  started + max(0, settings.query_timeout_ms) / 1000)
