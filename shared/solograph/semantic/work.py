"""Embedding as write work, in two halves that may run in different processes.

`collect` reads which units wait for vectors and the text each embeds (a `Work`, plain data
that a queue can carry); `save` stores the vectors computed for it in one short write
transaction, skipping any unit whose text changed or went meanwhile (it stays queued, or is
gone for good). The model runs between the two without a connection or a lock: a worker task
can take a Work's texts and hand back vectors while one writer stores them.

`run` is the in-process loop over both: rounds until nothing waits, the deadline has passed,
`stop` says so, or a round made no progress.
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

Progress = Callable[[int, int], None]  # (embedded so far, the total this run set out to do)
# Texts a round: a message or a section takes 0.1-0.4 s of one core, so a round is a few
# seconds, the longest a shutdown or a write waits for the embedder.
BATCH = 8


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


@dataclass(frozen=True)
class Item:
    """One text to embed: the text of unit `unit` (a message, a section, a document)."""

    unit: int
    text: str
    digest: str

    @classmethod
    def of(cls, unit: int, text: str) -> Item:
        return cls(unit, text, digest(text))

    def to_dict(self) -> dict:
        return {"unit": self.unit, "text": self.text, "digest": self.digest}

    @classmethod
    def from_dict(cls, data: dict) -> Item:
        return cls(int(data["unit"]), str(data["text"]), str(data["digest"]))


@dataclass
class Work:
    """What one round embeds."""

    store: str
    model: str
    items: list[Item] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.items

    def texts(self) -> list[str]:
        return [i.text for i in self.items]

    def to_dict(self) -> dict:
        return {"store": self.store, "model": self.model,
                "items": [i.to_dict() for i in self.items]}

    @classmethod
    def from_dict(cls, data: dict) -> Work:
        return cls(data["store"], data["model"], [Item.from_dict(i) for i in data["items"]])


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
    pending: int = 0  # texts still waiting (the deadline passed, or texts changed meanwhile)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"store": self.store, "model": self.model, "embedded": self.embedded,
                "pending": self.pending, "seconds": round(self.seconds, 3)}


def run(lane: Lane, conn: sqlite3.Connection, embedder: Embedder, *,
        deadline: float | None = None, progress: Progress | None = None,
        batch: int = BATCH, stop: Callable[[], bool] | None = None) -> Report:
    """Embed what `lane`'s store lacks, round by round; with `deadline` (a time.monotonic()
    value) or `stop` stop between rounds. `progress` gets (done, total), the total counted
    once at the start (what waits then), so a bar's end does not move."""
    started = time.perf_counter()
    report = Report(lane.store, embedder.model_id)
    total = lane.pending_count(conn, embedder.model_id)
    if progress is not None:
        progress(0, total)
    stalled = 0
    while deadline is None or time.monotonic() < deadline:
        if stop is not None and stop():
            break
        work = lane.collect(conn, embedder.model_id, limit=batch)
        if work.empty:
            break
        vectors = embedder.embed_passages(work.texts())
        wrote = lane.save(conn, work, vectors)
        report.embedded += wrote
        # Rounds that write nothing mean the texts keep changing under us (another writer):
        # leave them for the next run rather than spin.
        stalled = stalled + 1 if wrote == 0 else 0
        if stalled >= 2:
            break
        if progress is not None:
            progress(report.embedded, max(total, report.embedded))
    report.pending = lane.pending_count(conn, embedder.model_id)
    report.seconds = time.perf_counter() - started
    return report


def check_vectors(work: Work, vectors: Sequence | np.ndarray, dim: int) -> None:
    if len(vectors) != len(work.items):
        raise ValueError(f"{len(vectors)} vectors for {len(work.items)} texts")
    for v in vectors:
        if len(v) != dim:
            raise ValueError(f"a {len(v)}-dimensional vector where {dim} were expected")
