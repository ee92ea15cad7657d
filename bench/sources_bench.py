#!/usr/bin/env python3
"""Sources index bench: search latency over 100,000 chunks, and the search service's requests
per second under 16 concurrent clients on loopback.

Builds (once, cached by parameters under bench/.work/) a sources index of synthetic talks
written through the real write path (`store.put_video`: redaction, stemming, FTS triggers):
`--chunks` transcript chunks of ~`--words` words over a Zipf vocabulary, in videos of ~33
chunks, plus launches with upvotes. Then

1. `reads.source_search` (what the CLI, the APIs and MCP call: open, search, close) on
   `--queries` queries of one to three words, each timed over `--rounds` passes;
2. the real search server (`python -m solograph_services.search`, uvicorn) on a free loopback
   port, hit by `--clients` threads with keep-alive connections for `--seconds`.

    .venv/bin/python bench/sources_bench.py                 # 100,000 chunks, 16 clients
    .venv/bin/python bench/sources_bench.py --chunks 5000 --seconds 3   # a quick run
    .venv/bin/python bench/sources_bench.py --json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import common
from common import Figure, log, timed
from solograph import reads
from solograph.config import Settings
from solograph.sources import search as source_search
from solograph.sources.chunks import clock, video_url
from solograph.sources.store import Document, open_reader, put, put_video, writing

SEARCH_P50_TARGET_MS = 50.0
SEARCH_P99_TARGET_MS = 500.0
RPS_TARGET = 100.0
CHUNKS_PER_VIDEO = 33
LAUNCH_SHARE = 50  # one launch per this many chunks

DOMAIN = ("pricing tier subscription revenue churn founder startup launch audience newsletter "
          "twitter growth marketing funnel conversion onboarding retention feature roadmap "
          "customer investor valuation agent model prompt code deploy database index search "
          "ranking stemming transcript video podcast community discord landing design mobile "
          "ios android payment stripe invoice refund discount trial freemium paywall seo ads "
          "content creator hiring remote team culture burnout focus habit distribution")


def vocabulary(size: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["tion", "ing", "er"]
    words = DOMAIN.split()
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    rng.shuffle(words)
    return words


class Sampler:
    def __init__(self, words: list[str], seed: int) -> None:
        self.words = words
        self.rng = random.Random(seed)
        weights = [1 / (rank + 1) ** 1.07 for rank in range(len(words))]
        total = sum(weights)
        acc, self.cum = 0.0, []
        for w in weights:
            acc += w / total
            self.cum.append(acc)

    def text(self, n: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.cum, k=n))


def build(db: Path, chunks: int, words: int, seed: int) -> dict:
    vocab = vocabulary(20_000, seed)
    sample = Sampler(vocab, seed + 1)
    videos = max(1, chunks // CHUNKS_PER_VIDEO)
    written = 0
    with writing(db) as conn:
        for v in range(videos):
            vid = f"v{v:010d}"[:11]
            n = CHUNKS_PER_VIDEO if v < videos - 1 else chunks - written
            title = sample.text(6)
            docs = [Document("youtube", f"{vid}@{i * 120}", f"{title} — chapter {i}",
                             video_url(vid, i * 120), sample.text(words), "2026-10-01",
                             video=vid, metadata={"start": i * 120, "clock": clock(i * 120)})
                    for i in range(n)]
            put_video(conn, {"video": vid, "title": title, "channel": "bench",
                             "url": video_url(vid), "date": "2026-10-01",
                             "duration": n * 120}, docs, {})
            written += n
            if v % 300 == 0:
                log(f"  {written:,} / {chunks:,} chunks")
        launches = [Document("producthunt", f"launch-{i}", sample.text(3),
                             f"https://www.producthunt.com/posts/launch-{i}", sample.text(30),
                             upvotes=int(sample.rng.paretovariate(1.2) * 10))
                    for i in range(chunks // LAUNCH_SHARE)]
        put(conn, launches)
        conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('optimize')")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"chunks": written, "videos": videos, "launches": len(launches),
            "vocabulary": vocab}


def make_queries(vocab_ranked: list[str], count: int, seed: int) -> list[str]:
    """One to three words: mostly mid-frequency, some common, a few rare (ranks by Zipf)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.choice((1, 2, 2, 3))
        band = rng.random()
        lo, hi = (20, 300) if band < 0.25 else (300, 3000) if band < 0.85 else (3000, 15000)
        out.append(" ".join(rng.choice(vocab_ranked[lo:hi]) for _ in range(n)))
    return out


def latency(settings: Settings, queries: list[str], rounds: int) -> tuple[list[float], list]:
    for q in queries[:20]:
        reads.source_search(settings, q, limit=10)
    per_query: list[float] = []
    counts = []
    for q in queries:
        times = []
        for _ in range(rounds):
            with timed() as t:
                answer = reads.source_search(settings, q, limit=10)
            times.append(t.wall * 1000)
        per_query.append(statistics.median(times))
        counts.append(answer["count"])
    return per_query, counts


def core_latency(settings: Settings, queries: list[str]) -> list[float]:
    conn = open_reader(settings.sources_db)
    try:
        out = []
        for q in queries:
            with timed() as t:
                source_search.search(conn, q, limit=10)
            out.append(t.wall * 1000)
        return out
    finally:
        conn.close()


def serve(settings: Settings, port: int) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLOGRAPH_")}
    env.update(SOLOGRAPH_HOME=str(settings.home), SOLOGRAPH_SEARCH_PORT=str(port),
               SOLOGRAPH_SEARCH_RATE="1000000", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "solograph_services.search"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the search server did not start")


def load(port: int, queries: list[str], clients: int, seconds: float) -> dict:
    """`clients` keep-alive clients on /search for `seconds`."""
    paths = [f"/search?q={urllib.parse.quote_plus(q)}&n=5" for q in queries]
    out = common.http_load(port, paths, clients=clients, seconds=seconds)
    return {"requests": out["requests"], "errors": out["errors"], "wall": out["wall"],
            "rps": out["rps"], "p50": common.percentile(out["latencies"], 50),
            "p99": common.percentile(out["latencies"], 99)}


def run(args: argparse.Namespace) -> list[Figure]:
    load_before = os.getloadavg()
    home = common.work_dir(f"sources-{args.chunks}c-{args.words}w-{args.seed}")
    settings = Settings(home=home)
    meta_path = home / "bench-meta.json"
    if not meta_path.exists() or not settings.sources_db.exists():
        common.remove_tree(home)
        home.mkdir(parents=True)
        log(f"building {args.chunks:,} chunks (cached in {home}) ...")
        with timed() as t_build:
            built = build(settings.sources_db, args.chunks, args.words, args.seed)
        built["build_s"] = t_build.wall
        meta_path.write_text(json.dumps(built))
    built = json.loads(meta_path.read_text())
    figs: list[Figure] = []

    def fig(*a, **k) -> Figure:
        f = Figure(*a, **k)
        figs.append(f)
        return f

    fig("chunks (YouTube documents)", built["chunks"], key="chunks")
    fig("videos", built["videos"], key="videos")
    fig("launches", built["launches"], key="launches")
    fig("build through store.put_video", built["build_s"], "s", key="build_s")
    fig("chunks written per second", built["chunks"] / built["build_s"], "chunks/s",
        key="build_chunks_per_s")
    fig("index size on disk", settings.sources_db.stat().st_size / 2**20, "MiB",
        key="index_mib")

    queries = make_queries(built["vocabulary"], args.queries, args.seed + 7)
    log(f"{len(queries)} queries x{args.rounds} through reads.source_search ...")
    per_query, counts = latency(settings, queries, args.rounds)
    s = {"p50": common.percentile(per_query, 50), "p90": common.percentile(per_query, 90),
         "p99": common.percentile(per_query, 99), "max": max(per_query)}
    fig("source search p50 (reads.source_search)", s["p50"], "ms",
        f"< {SEARCH_P50_TARGET_MS:.0f} ms", s["p50"] < SEARCH_P50_TARGET_MS, key="search_p50_ms")
    fig("source search p90", s["p90"], "ms", key="search_p90_ms")
    fig("source search p99", s["p99"], "ms", f"< {SEARCH_P99_TARGET_MS:.0f} ms",
        s["p99"] < SEARCH_P99_TARGET_MS, key="search_p99_ms")
    fig("source search max", s["max"], "ms", key="search_max_ms")
    fig("queries with results", sum(1 for c in counts if c), key="queries_with_results",
        extra={"of": len(counts)})
    core = common.summarize(core_latency(settings, queries))
    fig("core search p50 (open connection)", core["p50"], "ms", key="core_search_p50_ms")

    port = common_free_port()
    log(f"search server on 127.0.0.1:{port}, {args.clients} clients for {args.seconds}s ...")
    proc = serve(settings, port)
    try:
        result = load(port, queries, args.clients, args.seconds)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    fig(f"search service requests/s ({args.clients} clients)", result["rps"], "req/s",
        f">= {RPS_TARGET:.0f} req/s", result["rps"] >= RPS_TARGET, key="service_rps",
        extra={"requests": result["requests"], "errors": result["errors"]})
    fig("search service latency p50", result["p50"], "ms", key="service_p50_ms")
    fig("search service latency p99", result["p99"], "ms", key="service_p99_ms")
    fig("search service errors", result["errors"], "", "0", result["errors"] == 0,
        key="service_errors")
    load_after = os.getloadavg()
    if max(load_before[0], load_after[0]) > (os.cpu_count() or 1):
        log(f"note: load average {load_before[0]:.1f} -> {load_after[0]:.1f} exceeded the CPU "
            "count; wall-clock figures are inflated")
    return figs


def common_free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=120, help="words per chunk (120)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figs = run(args)
    context = {"cpus": os.cpu_count(), "load": os.getloadavg()[0], "python": sys.version.split()[0]}
    if args.json:
        print(common.figures_json(figs, **context, chunks=args.chunks, clients=args.clients))
    else:
        print(f"sources bench: {args.chunks:,} chunks, {args.clients} clients, "
              f"{context['cpus']} CPUs, load {context['load']:.1f}")
        print(common.figures_table(figs))
    return 0 if all(f.ok for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
