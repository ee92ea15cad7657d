#!/usr/bin/env python3
"""The meaning lane: what embedding costs, what a fused read costs beside the lexical one, in
the process and as a command, and the memory of a process reading fused.

    .venv/bin/python bench/semantic_bench.py                 # everything, as below
    .venv/bin/python bench/semantic_bench.py --skip-corpus   # no embedding of real texts
    .venv/bin/python bench/semantic_bench.py --sessions 100 --total-mb 100 --pages 100 --json

Needs the `semantic` extra and $SOLOGRAPH_CORPORA (default ../shared/corpora). Data and indexes
go under bench/.work/ (semantic_world.py makes them; the generated ones are cached).

Figures and targets, all measured in one run:
- embedding cost: the real transcripts indexed into a new home (one vector per message of 30
  characters or more, cut at 800), then the lane's own write path, `collect` over every
  waiting message, `embed_passages` and `save` in rounds of the lane's batch on a random
  `--sample` of them, one process, one thread: CPU seconds per 1,000 messages (each message's
  share of the collect included), characters per CPU second, and the CPU hours 150,000
  messages would take at the measured mean (target <= 1.5). The same for the sections of a
  real wiki (`--wiki`, default the 21ideas wiki's English pages).
- float16 (stored) and int8 against float32: the share of float32's top 10 each keeps, over
  the sample's vectors, for the eval sets' session and KB questions.
- read cost at `--sessions` generated sessions (sessions_bench.py's generator) and `--pages`
  generated KB pages (kb_bench.py's), every text with a random unit vector saved through the
  lane's `save` (a read's cost does not depend on the values): `reads.session_search` and
  `reads.kb_search` with the lane off (lexical) and on, in turn for each query, p50 wall and
  CPU (this process's, the query's thread included); fused on a query never seen (its
  embedding included; targets: sessions < 60 ms, KB < 40 ms) and the same query again (its
  vector remembered).
- the same session reads half embedded (`session@50`, `sessions@50`): a copy of the index
  with every other message's vector dropped and no saved matrix, as a user meets it while the
  embedder works, in the process and as a command.
- whole process: `solograph sessions Q --json` and `solograph kb Q --json` with
  SOLOGRAPH_SEMANTIC=on and off (SOLOGRAPH_EMBEDDER=off), interleaved, p50 wall and the
  child's CPU; the model's load in a new process (the first `embed_queries`), and a query's
  embedding in the thread that loaded the model and in a new thread, as a read embeds it.
- memory: the peak RSS of a new process making fused session searches (target < 300 MB),
  beside the same lexical.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import semantic_world as world

from common import Figure, figures_json, figures_table, log, peak_rss, summarize

BENCH = Path(__file__).resolve().parent
FUSED_SESSIONS_TARGET_MS = 60.0
FUSED_KB_TARGET_MS = 40.0
PROJECTION_MESSAGES = 150_000
PROJECTION_TARGET_H = 1.5
MEMORY_TARGET_MB = 300.0
WARMUP = 10


def embedding_figures(args, model, noun: str, cost: world.WriteCost, source: str
                      ) -> list[Figure]:
    key = noun.split()[-1]
    per = cost.per_text_cpu
    split = {"collect_ms": cost.collect_cpu / max(1, cost.waiting) * 1000,
             "model_ms": cost.embed_cpu / max(1, cost.sampled) * 1000,
             "save_ms": cost.save_cpu / max(1, cost.sampled) * 1000}
    return [
        Figure(f"{noun} waiting in {source}", cost.waiting, key=f"{key}_waiting",
               extra={"mean_chars": round(cost.all_chars / max(1, cost.waiting)),
                      "sampled": cost.sampled, "saved": cost.saved}),
        Figure(f"CPU per 1,000 {noun} (sample of {cost.sampled})", per * 1000, "CPU-s",
               key=f"{key}_cpu_s_per_1000",
               extra={**{k: round(v, 2) for k, v in split.items()},
                      "sample_wall_s": round(cost.wall, 1),
                      "sample_mean_chars": round(cost.chars / max(1, cost.sampled))}),
        Figure(f"  one {noun[:-1]}: collect / model / save", " / ".join(
            f"{v:.2f}" for v in split.values()) + " ms CPU", key=f"{key}_split"),
        Figure(f"  characters per CPU-second ({noun})",
               cost.chars / max(1e-9, per * cost.sampled), "chars/CPU-s",
               key=f"{key}_chars_per_cpu_s"),
        Figure(f"  all {cost.waiting:,} {noun} of {source}", per * cost.waiting / 60,
               "CPU-min", key=f"{key}_corpus_cpu_min"),
    ]


def embedding_cost(args, model) -> tuple[list[Figure], list]:
    corpora = Path(args.corpora)
    log("the real transcripts, indexed into a new home ...")
    sessions = world.corpus_home("semantic-corpus-sessions",
                                 claude_projects=corpora / "transcripts" / "claude-projects")
    log(f"embedding {args.sample} of their messages (one thread) ...")
    messages = world.write_path(sessions, "sessions", model, args.sample)
    wiki = corpora / "wiki" / args.wiki
    log(f"the wiki {args.wiki}, indexed into a new home ...")
    kb = world.corpus_home("semantic-corpus-kb", kb_path=wiki)
    log(f"embedding {args.sample} of its sections ...")
    sections = world.write_path(kb, "kb", model, args.sample)
    # A store of 150,000 messages as its sync counts them embeds the share of them that says
    # something (prompts of 30 characters or more, replies of 100 or more).
    share = messages.waiting / max(1, messages.stored)
    hours = messages.per_text_cpu * share * PROJECTION_MESSAGES / 3600
    figs = embedding_figures(args, model, "messages", messages, "the real transcripts")
    figs += [
        Figure(f"{PROJECTION_MESSAGES:,} messages of a store, projected", hours, "CPU-h",
               f"<= {PROJECTION_TARGET_H} CPU-h", hours <= PROJECTION_TARGET_H,
               key="projection_cpu_h",
               extra={"cpu_ms_per_message": round(messages.per_text_cpu * 1000, 1),
                      "embedded_share": round(share, 3)}),
        Figure(f"  messages embedded of those stored ({messages.stored:,} in the transcripts)",
               share, "", key="embedded_share"),
        Figure(f"  {PROJECTION_MESSAGES:,} messages that are all embedded",
               hours / max(share, 1e-9), "CPU-h", key="projection_embedded_cpu_h")]
    figs += embedding_figures(args, model, "sections", sections, args.wiki)
    return figs, messages.vectors + sections.vectors


def codec_figures(model, vectors: list) -> list[Figure]:
    """Top-10 agreement of float16 (stored) and int8 with a per-vector scale (the smaller
    candidate) with float32, over the sample's vectors and the eval sets' questions."""
    import numpy as np

    f32 = np.concatenate(vectors)
    peak = np.abs(f32).max(axis=1, keepdims=True) / 127
    i8 = np.rint(f32 / peak).clip(-127, 127) * peak
    f16 = f32.astype(np.float16).astype(np.float32)
    cases = [json.loads(x)["query"] for name in ("sessions.jsonl", "sessions_questions.jsonl",
                                                 "kb_questions.jsonl")
             for x in (BENCH.parent / "evals" / name).read_text().splitlines() if x.strip()]
    agree: dict[str, list[float]] = {"float16": [], "int8": []}
    for qv in model.embed_queries(cases):
        base = set(np.argsort(-(f32 @ qv))[:10].tolist())
        for name, m in (("float16", f16), ("int8", i8)):
            agree[name].append(len(base & set(np.argsort(-(m @ qv))[:10].tolist())) / 10)
    return [Figure(f"{name}{' (stored)' if name == 'float16' else ''}: share of float32's top 10 "
                   "kept", sum(v) / len(v), "",
                   key=f"{name}_top10_agreement",
                   extra={"queries": len(v), "vectors": len(f32),
                          "bytes_per_vector": {"int8": 388, "float16": 768}[name]})
            for name, v in agree.items()]


def read_costs(read, settings, queries: list[str]) -> dict:
    """Each query read lexically, fused (first seen: its vector computed) and fused again
    (its vector remembered), which goes first alternating; ms of wall and of CPU."""
    off, on = settings.with_(semantic="off"), settings.with_(semantic="on")
    for q in queries[:WARMUP]:
        read(off, q)
        read(on, q)
    out: dict = {k: ([], []) for k in ("lexical", "first", "repeated")}
    states: Counter = Counter()

    def timed(name: str, s, q: str) -> dict:
        w0, c0 = time.perf_counter(), time.process_time()
        answer = read(s, q)
        out[name][0].append((time.perf_counter() - w0) * 1000)
        out[name][1].append((time.process_time() - c0) * 1000)
        return answer

    for i, q in enumerate(queries[WARMUP:]):
        for way in (("words", "meaning") if i % 2 else ("meaning", "words")):
            if way == "words":
                timed("lexical", off, q)
            else:
                states[timed("first", on, q)["freshness"].get("meaning", "")] += 1
                timed("repeated", on, q)
    return {"times": out, "states": states}


def read_figures(name: str, got: dict, target: float) -> list[Figure]:
    t = got["times"]
    p50 = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in t.items()}
    lx = p50["lexical"]
    n = sum(got["states"].values())

    def fused(kind: str, label: str, goal: float | None) -> Figure:
        wall, cpu = p50[kind]
        return Figure(f"fused {name} read p50, {label}", wall, "ms",
                      f"< {goal:.0f} ms" if goal else "", wall < goal if goal else None,
                      key=f"{name}_fused_{kind}_p50_ms",
                      extra={"cpu_ms": round(cpu, 2), "ratio_to_lexical": round(wall / lx[0], 2),
                             "cpu_ratio_to_lexical": round(cpu / lx[1], 2),
                             "p95_ms": round(summarize(t[kind][0])["p95"], 1)})

    return [
        Figure(f"lexical {name} read p50 (same run)", lx[0], "ms",
               key=f"{name}_lexical_p50_ms", extra={"cpu_ms": round(lx[1], 2)}),
        fused("first", "query first seen (embedded)", target),
        fused("repeated", "query again (vector remembered)", None),
        Figure(f"  CPU p50: lexical / first seen / again ({name})", " / ".join(
            f"{p50[k][1]:.1f}" for k in ("lexical", "first", "repeated")) + " ms",
               key=f"{name}_cpu_p50"),
        Figure(f"  fused answers that ranked by meaning ({name})",
               f"{got['states']['fused']}/{n}", "", f"{n}/{n}", got["states"]["fused"] == n,
               key=f"{name}_fused_answers", extra=dict(got["states"])),
    ]


def matrix_figures(name: str, settings, store: str, model_id: str) -> list[Figure]:
    from solograph.semantic import matrix as mx
    from solograph.semantic.stores import lane_of
    from solograph.store import connect_reader

    path = settings.sessions_db if store == "sessions" else settings.kb_db
    reader = connect_reader(path, store)
    try:
        mx.forget()
        with peak_rss() as rss:
            w0 = time.perf_counter()
            matrix = lane_of(store).matrix(reader, model_id)
            load = (time.perf_counter() - w0) * 1000
    finally:
        reader.close()
    return [Figure(f"{name}: vectors / float32 matrix in memory",
                   f"{len(matrix.rows):,} / {matrix.nbytes / (1 << 20):.1f} MiB",
                   key=f"{store}_matrix", extra={"vectors": len(matrix.rows),
                                                 "mib": matrix.nbytes / (1 << 20)}),
            Figure("  matrix read from the store (a process's first fused read)", load, "ms",
                   key=f"{store}_matrix_load_ms",
                   extra={"peak_rss_growth_mib": round(rss["delta_mb"], 1)}),
            Figure("  peak RSS growth while reading it", rss["delta_mb"], "MiB",
                   key=f"{store}_matrix_peak_rss_growth_mib")]


def commands(name: str, argv: list[str], settings, queries: list[str], runs: int
             ) -> list[Figure]:
    """The read as a command, lane on and off in turn (which first alternating)."""
    sg = str(Path(sys.executable).parent / "solograph")
    env = {m: world.child_env(settings, m) for m in ("on", "off")}
    got: dict = {m: ([], []) for m in env}
    for m in env:  # the page cache
        world.child(([sg, argv[0], queries[0], *argv[1:]]), env[m])
    for i in range(runs):
        q = queries[1 + i % (len(queries) - 1)]
        for m in (("on", "off") if i % 2 else ("off", "on")):
            wall, cpu, out = world.child([sg, argv[0], q, *argv[1:]], env[m])
            got[m][0].append(wall)
            got[m][1].append(cpu)
            if m == "on" and i == 0:
                meaning = json.loads(out or b"{}").get("freshness", {}).get("meaning")
                log(f"  {name} with the lane on answered: meaning={meaning}")
    p = {m: (statistics.median(w), statistics.median(c)) for m, (w, c) in got.items()}
    on, off = p["on"], p["off"]
    what = f"`solograph {argv[0]}`" + ("" if name == argv[0] else f" ({name})")
    return [
        Figure(f"{what} p50, lane off: wall / CPU",
               f"{off[0]:.0f} / {off[1]:.0f} ms", key=f"{name}_command_off",
               extra={"wall_ms": off[0], "cpu_ms": off[1]}),
        Figure(f"{what} p50, lane on: wall / CPU",
               f"{on[0]:.0f} / {on[1]:.0f} ms", key=f"{name}_command_on",
               extra={"wall_ms": on[0], "cpu_ms": on[1]}),
        Figure("  on - off: wall / CPU (ratio)",
               f"+{on[0] - off[0]:.0f} ms ({on[0] / off[0]:.2f}x) / "
               f"+{on[1] - off[1]:.0f} ms ({on[1] / off[1]:.2f}x)", key=f"{name}_command_cost",
               extra={"wall_ms": on[0] - off[0], "cpu_ms": on[1] - off[1],
                      "wall_ratio": on[0] / off[0], "cpu_ratio": on[1] / off[1]}),
    ]


def model_figures(times: int = 3) -> list[Figure]:
    runs = [world.model_load() for _ in range(times)]

    def med(part: str, i: int) -> float:
        return statistics.median(r[part][i] for r in runs) * 1000

    first, later = med("first", 0), med("later", 0)
    return [Figure("model's first embed_queries in a new process: wall / CPU",
                   f"{first:.0f} / {med('first', 1):.0f} ms", key="model_first_query",
                   extra={"wall_ms": first, "cpu_ms": med("first", 1), "runs": times}),
            Figure("  of which the load (less the same query again)", first - later, "ms",
                   key="model_load_ms", extra={"cpu_ms": med("first", 1) - med("later", 1)}),
            Figure("  numpy import / the query again: wall", f"{med('import', 0):.0f} / "
                   f"{later:.0f} ms", key="model_numpy_and_query",
                   extra={"numpy_cpu_ms": med("import", 1), "query_cpu_ms": med("later", 1)})]


def query_thread_figures(model, n: int = 15) -> list[Figure]:
    """A query's embedding in the thread that loaded the model, and in a new thread as a read
    starts one (`QueryVectors.start`): the engine's thread count is set for the thread that
    set it."""
    import threading

    def embed(q: str) -> None:
        model.embed_queries([q])

    def in_thread(q: str) -> None:
        t = threading.Thread(target=embed, args=(q,))
        t.start()
        t.join()

    got = {}
    for name, call in (("this", embed), ("new", in_thread)):
        wall, cpu = [], []
        for i in range(n):
            w0, c0 = time.perf_counter(), time.process_time()
            call(f"webhook retry number {i}")
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        got[name] = (statistics.median(wall), statistics.median(cpu))
    return [Figure("a query's embedding p50, its own thread: wall / CPU",
                   f"{got['this'][0]:.0f} / {got['this'][1]:.0f} ms", key="query_embed_same",
                   extra={"wall_ms": got["this"][0], "cpu_ms": got["this"][1]}),
            Figure("  in a new thread, as a read embeds: wall / CPU",
                   f"{got['new'][0]:.0f} / {got['new'][1]:.0f} ms", key="query_embed_thread",
                   extra={"wall_ms": got["new"][0], "cpu_ms": got["new"][1]})]


def load_text() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--total-mb", type=int, default=1024)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--queries", type=int, default=100, help="measured queries per read")
    parser.add_argument("--sample", type=int, default=300,
                        help="texts embedded of each real corpus (300); the rest scaled")
    parser.add_argument("--runs", type=int, default=11, help="runs of each command (11)")
    parser.add_argument("--wiki", default="21ideas-wiki/wiki-en",
                        help="the wiki under $SOLOGRAPH_CORPORA/wiki/ to embed sections of")
    parser.add_argument("--skip-corpus", action="store_true",
                        help="skip embedding the real texts (and the codec comparison)")
    parser.add_argument("--corpora", default=os.environ.get(
        "SOLOGRAPH_CORPORA", str(BENCH.parent.parent / "shared" / "corpora")))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from solograph import reads
    from solograph.semantic import available
    from solograph.semantic.embedder import shared_embedder

    if not available():
        log("the `semantic` extra is not installed: pip install -e '.[semantic]'")
        return 2
    load_before = load_text()
    model = shared_embedder()
    figs: list[Figure] = []
    if not args.skip_corpus:
        got, vectors = embedding_cost(args, model)
        figs += got
        log("float16 and int8 against float32 ...")
        figs += codec_figures(model, vectors)
    log(f"the generated sessions ({args.sessions}) and KB ({args.pages} pages) ...")
    sessions, s_queries = world.sessions_world(Path(args.corpora), args.sessions,
                                               args.total_mb, model.model_id)
    kb, k_queries = world.kb_world(args.pages, model.model_id)
    s_queries = list(dict.fromkeys(s_queries))[:args.queries + WARMUP]
    k_queries = list(dict.fromkeys(k_queries))[:args.queries + WARMUP]
    label = f"{args.sessions:,} sessions"
    figs += matrix_figures(label, sessions, "sessions", model.model_id)
    log("session reads, lexical and fused ...")
    figs += read_figures("session", read_costs(
        lambda s, q: reads.session_search(s, q, limit=10), sessions, s_queries),
        FUSED_SESSIONS_TARGET_MS)
    log("session reads half embedded (every other message waiting, no saved matrix) ...")
    half = world.half_embedded(sessions, f"semantic-half-{args.sessions}s")
    figs += read_figures("session@50", read_costs(
        lambda s, q: reads.session_search(s, q, limit=10), half, s_queries),
        FUSED_SESSIONS_TARGET_MS)
    figs += commands("sessions@50", ["sessions", "--json"], half, s_queries, args.runs)
    figs += matrix_figures(f"{args.pages} KB pages", kb, "kb", model.model_id)
    log("KB reads, lexical and fused ...")
    figs += read_figures("KB", read_costs(lambda s, q: reads.kb_search(s, q, limit=10), kb,
                                          k_queries), FUSED_KB_TARGET_MS)
    log("the reads as commands, lane on and off ...")
    figs += commands("sessions", ["sessions", "--json"], sessions, s_queries, args.runs)
    figs += commands("kb", ["kb", "--json"], kb, k_queries, args.runs)
    log("the model's load in a new process ...")
    figs += model_figures()
    figs += query_thread_figures(model)
    log("peak RSS of a process reading ...")
    calls = s_queries[:50]
    fused_rss = world.read_peak_rss(sessions, "on", calls)
    lexical_rss = world.read_peak_rss(sessions, "off", calls)
    figs += [Figure(f"peak RSS of a process reading fused, {label}", fused_rss, "MiB",
                    f"< {MEMORY_TARGET_MB:.0f} MB", fused_rss * 1.048576 < MEMORY_TARGET_MB,
                    key="fused_read_peak_rss_mib", extra={"queries": len(calls)}),
             Figure("  the same reads, lexical", lexical_rss, "MiB",
                    key="lexical_read_peak_rss_mib")]
    # Every figure here is CPU-bound: the machine's load during the run is part of it.
    figs.append(Figure("load average before / after (1 / 5 / 15 min)",
                       f"{load_before}  |  {load_text()}", key="load_average",
                       extra={"cores": os.cpu_count()}))
    if args.json:
        print(figures_json(figs, params=vars(args), cpus=os.cpu_count()))
    else:
        print(f"cpus {os.cpu_count()}, load average {load_before} before, {load_text()} after")
        print(figures_table(figs))
    return 0 if all(f.ok for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
