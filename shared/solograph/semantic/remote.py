"""Embedding split across processes: the store's writer collects and saves, any process with
the model embeds, and only plain data travels between them.

    work = collect(settings, store, limit=32)           # the writer: a Work as a dict
    done = embed_texts(work["items"] texts)             # anywhere: texts in, vectors out
    save(settings, store, work, done)                   # the writer: one short transaction

The vectors travel as base64 of little-endian float16, exactly the bytes stored, with the
model id that made them: a host running another model's version gets its vectors dropped,
not mixed in (its rows stay pending for the writer's model). The embedding half opens no
SQLite file, so a host that runs only the `embed` queue needs no store at all.
"""

from __future__ import annotations

import base64

from solograph.semantic.embedder import DIM
from solograph.semantic.work import BATCH  # texts per round: a task of a few seconds

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings
    from solograph.semantic.embedder import Embedder



def model_id() -> str:
    """The id of the model this process would embed with (read, not loaded)."""
    from solograph.semantic.embedder import shared_embedder

    return shared_embedder().model_id


def collect(settings: Settings, store: str, *, limit: int = BATCH) -> dict | None:
    """The next round of `store`'s pending texts as plain data; None when nothing waits."""
    from solograph.semantic.stores import lane_of

    lane = lane_of(store)
    with lane.writer(settings) as conn:
        work = lane.collect(conn, model_id(), limit=limit)
    return None if work.empty else work.to_dict()


def texts_of(work: dict) -> list[str]:
    return [item["text"] for item in work["items"]]


def embed_texts(texts: list[str], *, embedder: Embedder | None = None) -> dict:
    """Passage vectors of `texts`: {"model", "dim", "count", "vectors": base64 float16}."""
    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import shared_embedder

    model = embedder or shared_embedder()
    vectors = model.embed_passages(list(texts))
    blob = b"".join(mx.encode(vectors))
    return {"model": model.model_id, "dim": model.dim, "count": len(texts),
            "vectors": base64.b64encode(blob).decode("ascii")}


def save(settings: Settings, store: str, work: dict, done: dict) -> dict:
    """Store `done`'s vectors for `work` (rows changed or gone meanwhile are skipped); the
    report says how many were written and how many rows still wait."""
    from solograph.semantic import matrix as mx
    from solograph.semantic.stores import lane_of
    from solograph.semantic.work import Work

    job = Work.from_dict(work)
    lane = lane_of(store)
    with lane.writer(settings) as conn:
        saved = 0
        if done.get("model") == job.model and int(done.get("dim", 0)) == DIM:
            vectors = mx.decode(base64.b64decode(done["vectors"]), DIM)
            saved = lane.save(conn, job, vectors)
        pending = lane.pending_count(conn, job.model)
        if saved:  # the chain's last round (nothing waits) keeps the matrix for the next reader
            lane.keep_matrix(conn, job.model)
    return {"store": store, "model": job.model, "embedded": saved, "pending": pending,
            "dropped": 0 if done.get("model") == job.model else int(done.get("count", 0))}
