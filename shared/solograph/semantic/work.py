"""Embedding as write work, in two halves that may run in different processes.

`collect` reads which rows need vectors and the texts to embed (a `Work`, plain data that a
queue can carry); `save` stores the vectors computed for it in one short write transaction,
skipping any row that changed or went meanwhile (it stays pending, or is gone for good). The
model runs between the two without a connection or a lock: a worker task can take a Work's
texts and hand back vectors while one writer stores them.

`run` is the in-process loop over both: batches until nothing is pending, the deadline has
passed, or a round made no progress.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from solograph.semantic.embedder import Embedder

Progress = Callable[[int, int], None]  # (embedded so far, still pending)
BATCH = 16
DEADLINE_BATCH = 1  # under a deadline, one passage at a time: each takes 80-400 ms


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


@dataclass(frozen=True)
class Item:
    """One text to embed: for row `unit` (a chunk, section or document), window `part`."""

    unit: int
    part: int
    text: str
    digest: str
    span: tuple[int, int] = (0, 0)  # sessions: entries.seq of the window's first, last message

    def to_dict(self) -> dict:
        return {"unit": self.unit, "part": self.part, "text": self.text, "digest": self.digest,
                "span": list(self.span)}

    @classmethod
    def from_dict(cls, data: dict) -> Item:
        return cls(int(data["unit"]), int(data["part"]), str(data["text"]),
                   str(data["digest"]), tuple(data.get("span") or (0, 0)))


@dataclass
class Work:
    """What one round embeds: `items`, and for stores whose rows hold several windows, the
    windows each row must end up with (`plans`: unit -> (version, digests))."""

    store: str
    model: str
    items: list[Item] = field(default_factory=list)
    plans: dict[int, tuple[int, list[str]]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.items and not self.plans

    def texts(self) -> list[str]:
        return [i.text for i in self.items]

    def to_dict(self) -> dict:
        return {"store": self.store, "model": self.model,
                "items": [i.to_dict() for i in self.items],
                "plans": [[u, v, d] for u, (v, d) in self.plans.items()]}

    @classmethod
    def from_dict(cls, data: dict) -> Work:
        return cls(data["store"], data["model"], [Item.from_dict(i) for i in data["items"]],
                   {int(u): (int(v), list(d)) for u, v, d in data.get("plans", [])})


class Lane(Protocol):
    """One store's side of the lane (a `lane.StoreLane`, in its index's meaning module)."""

    store: str

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int: ...

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int) -> Work: ...

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int: ...


@dataclass
class Report:
    store: str
    model: str
    embedded: int = 0  # vectors written
    pending: int = 0  # rows still waiting (the deadline passed, or rows changed meanwhile)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"store": self.store, "model": self.model, "embedded": self.embedded,
                "pending": self.pending, "seconds": round(self.seconds, 3)}


def run(lane: Lane, conn: sqlite3.Connection, embedder: Embedder, *,
        deadline: float | None = None, progress: Progress | None = None,
        batch: int | None = None) -> Report:
    """Embed what `lane`'s store lacks, batch by batch; with `deadline` (a time.monotonic()
    value) stop between batches once it has passed."""
    started = time.perf_counter()
    size = batch or (DEADLINE_BATCH if deadline is not None else BATCH)
    report = Report(lane.store, embedder.model_id)
    stalled = 0
    while deadline is None or time.monotonic() < deadline:
        work = lane.collect(conn, embedder.model_id, limit=size)
        if work.empty:
            break
        vectors = embedder.embed_passages(work.texts())
        wrote = lane.save(conn, work, vectors)
        report.embedded += wrote
        # A round that wrote nothing and closed no row means the rows keep changing under
        # us (another writer): leave them for the next run rather than spin.
        stalled = stalled + 1 if wrote == 0 and work.items else 0
        if stalled >= 2:
            break
        if progress is not None:
            progress(report.embedded, lane.pending_count(conn, embedder.model_id))
    report.pending = lane.pending_count(conn, embedder.model_id)
    report.seconds = time.perf_counter() - started
    return report


def check_vectors(work: Work, vectors: Sequence, dim: int) -> None:
    if len(vectors) != len(work.items):
        raise ValueError(f"{len(vectors)} vectors for {len(work.items)} texts")
    for v in vectors:
        if len(v) != dim:
            raise ValueError(f"a {len(v)}-dimensional vector where {dim} were expected")
