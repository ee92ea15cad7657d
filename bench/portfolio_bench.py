#!/usr/bin/env python3
"""Portfolio index bench: scan throughput, rescans, symbol search latency, vs ripgrep.

Generates (once, cached by parameters) a synthetic portfolio of git checkouts under
bench/.work/, then in one process on that data measures a full scan into a fresh
SOLOGRAPH_HOME, no-change rescans, rescans after touching 10 files, and symbol search
latency, next to ripgrep and a naive Python scan answering the same queries.

    .venv/bin/python bench/portfolio_bench.py                      # full size
    .venv/bin/python bench/portfolio_bench.py --repos 8 --defs 5000 --queries 50
    .venv/bin/python bench/portfolio_bench.py --json > figures.json

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import platform
import pstats
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import portfolio_gen

import common
from common import Figure, log, timed
from solograph import readers, reads
from solograph.config import Settings
from solograph.errors import QueryTimeout
from solograph.portfolio.search import search_symbols
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_reader
from solograph.text.tokens import words as split_words

# Targets (see README.md).
RESCAN_TARGET_S = 1.0
SEARCH_P50_TARGET_MS = 1.5  # issue 15: at 50,000 definitions, a kept connection
SEARCH_P50_TARGET_MS_10X = 3.0  # issue 28: at 500,000 definitions
SEARCH_P95_TARGET_MS_10X = 15.0
SCAN_FILES_PER_S_TARGET = 300.0
RG_RATIO_TARGET = 1.0  # solograph search at least as fast as one rg run

RESCAN_RUNS = 5
TOUCH_FILES = 10
TOUCH_ROUNDS = 3
WARMUP_QUERIES = 20
RG_GLOBS = ("*.py", "*.ts", "*.tsx", "*.js", "*.go", "*.rs", "*.java", "*.kt", "*.swift",
            "*.rb", "*.c", "*.h", "*.cpp", "*.hpp", "*.php", "*.sh", "*.sql", "*.tf", "Gemfile")
COMMENT = {"py": "#", "rb": "#", "sh": "#", "tf": "#", "sql": "--"}  # others: //


@dataclass(frozen=True)
class Query:
    kind: str  # exact | phrase | common | rare | project
    text: str
    project: str | None = None
    expect: str | None = None  # for exact: a name that must be among the results


# --------------------------------------------------------------------------- portfolio


def portfolio(args: argparse.Namespace) -> tuple[Path, dict]:
    """The generated portfolio for these parameters, reused when it already exists."""
    params = {"version": portfolio_gen.GENERATOR_VERSION, "repos": args.repos,
              "defs": args.defs, "seed": args.seed}
    key = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:10]
    base = common.work_dir(f"portfolio-{args.repos}r-{args.defs}d-{key}")
    root = base / "repos"
    catalog_path = base / "catalog.json"
    if catalog_path.exists():
        catalog = json.loads(catalog_path.read_text(encoding="utf-8"))
        if catalog.get("params") == params and root.is_dir():
            log(f"reusing portfolio {root.relative_to(common.ROOT)}")
            return root, catalog
    for stale in common.WORK_DIR.glob("portfolio-*"):
        # Unfinished ones (no catalog) and those of an older generator are never reused.
        old = stale / "catalog.json"
        if stale != base and (not old.exists() or json.loads(old.read_text(encoding="utf-8"))
                              .get("version") != portfolio_gen.GENERATOR_VERSION):
            common.remove_tree(stale)
    common.remove_tree(root)
    log(f"generating {args.repos} repositories, >= {args.defs:,} definitions "
        f"under {root.relative_to(common.ROOT)} ...")
    with timed() as t:
        catalog = portfolio_gen.generate(root, repos=args.repos, defs=args.defs, seed=args.seed)
    catalog["params"] = params
    catalog["generated_in_s"] = round(t.wall, 1)
    catalog_path.write_text(json.dumps(catalog), encoding="utf-8")  # written last: complete
    log(f"  generated {catalog['files']:,} source files, {catalog['definitions']:,} "
        f"definitions in {t.wall:.1f}s")
    return root, catalog


def make_queries(catalog: dict, n: int, seed: int) -> tuple[list[Query], list[Query]]:
    """(warm-up queries, measured queries): exact names, phrases, common and rare words,
    phrases narrowed to one project; drawn from the definitions actually generated."""
    rng = random.Random(seed * 7919 + n)
    defs = [(repo["name"], name) for repo in catalog["repos"] for name, _kind, _rel
            in repo["names"]]
    freq: Counter[str] = Counter()
    for _repo, name in defs:
        freq.update(set(split_words(name)))
    ranked = [w for w, _ in freq.most_common() if w.isalpha() and len(w) > 2]
    common_words = ranked[:15]
    # Rare: the least used tenth of the vocabulary words (not plurals of SQL table names).
    vocabulary = {part for w in (*portfolio_gen.NOUNS, *portfolio_gen.VERBS,
                                 *portfolio_gen.ADJECTIVES, *portfolio_gen.SUFFIXES)
                  for part in w.lower().split("_")}
    used = [w for w in ranked if w in vocabulary]
    rare_words = used[-max(10, len(used) // 10):]

    def phrase(name: str) -> str | None:
        parts = split_words(name)
        if len(parts) < 2:
            return None
        size = min(len(parts), rng.choice((2, 2, 3)))
        start = rng.randrange(len(parts) - size + 1)
        return " ".join(parts[start:start + size])

    def one(kind: str) -> Query:
        while True:
            repo, name = rng.choice(defs)
            if kind == "exact":
                return Query(kind, name, expect=name)
            if kind == "common":
                return Query(kind, rng.choice(common_words))
            if kind == "rare":
                return Query(kind, rng.choice(rare_words))
            text = phrase(name)
            if text:
                return Query(kind, text, project=repo if kind == "project" else None)

    mix = ["exact"] * 30 + ["phrase"] * 30 + ["common"] * 15 + ["rare"] * 15 + ["project"] * 10
    warmup = [one(rng.choice(mix)) for _ in range(WARMUP_QUERIES)]
    measured = [one(mix[i * len(mix) // n]) for i in range(n)]
    return warmup, measured


def rg_pattern(text: str) -> str:
    """Any spelling of the query's words: `auth middleware` -> auth[_-]?middleware."""
    return "[_-]?".join(re.escape(w) for w in split_words(text))


# --------------------------------------------------------------------------- measurements


def scan_once(settings: Settings) -> tuple[dict, common.Timing]:
    with timed() as t:
        report = scan_portfolio(settings)
    return report, t


def touch_files(root: Path, catalog: dict, rng: random.Random, count: int
                ) -> list[tuple[Path, bytes, tuple[int, int]]]:
    """Append a comment line to `count` source files in different projects; returns what
    restore_files needs to put them back exactly (bytes and times)."""
    candidates = [(repo["name"], rel) for repo in catalog["repos"] for rel in
                  {r for _n, _k, r in repo["names"]}]
    rng.shuffle(candidates)
    chosen, seen_repos = [], set()
    for repo, rel in candidates:
        if repo in seen_repos and len(seen_repos) < len(catalog["repos"]):
            continue
        seen_repos.add(repo)
        chosen.append(root / repo / rel)
        if len(chosen) == count:
            break
    saved = []
    for path in chosen:
        st = path.stat()
        data = path.read_bytes()
        saved.append((path, data, (st.st_atime_ns, st.st_mtime_ns)))
        mark = COMMENT.get(path.suffix.lstrip("."), "//")
        path.write_bytes(data + f"{mark} touched by the bench at {time.time()}\n".encode())
    return saved


def restore_files(saved: list[tuple[Path, bytes, tuple[int, int]]]) -> None:
    for path, data, times in saved:
        path.write_bytes(data)
        os.utime(path, ns=times)


def per_query_median(rounds: list[list[float]]) -> list[float]:
    """One figure per query: the median of its rounds (damps noise from other processes)."""
    return [statistics.median(times) for times in zip(*rounds, strict=True)]


def time_searches(settings: Settings, queries: list[Query], rounds: int = 1, *,
                  kept: bool = True) -> tuple[list[float], dict]:
    """Milliseconds per reads.symbol_search call, the median of `rounds` passes over the
    whole query list, per query. `kept`: on the thread's kept read-only connection, as the
    HTTP API and the MCP server read; else a connection each, as one CLI process does."""
    if kept:
        readers.keep()
        try:
            return time_searches(settings, queries, rounds, kept=False)
        finally:
            readers.release()
    passes: list[list[float]] = []
    cpu_passes: list[list[float]] = []
    found = total_exact = 0
    for i in range(rounds):
        samples, cpu = [], []
        for q in queries:
            c0, t0 = time.thread_time(), time.perf_counter()
            try:
                answer = reads.symbol_search(settings, q.text, project=q.project, limit=20)
            except QueryTimeout:  # past the query time limit: its time counts, no results
                answer = {"results": []}
            samples.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            if q.expect and i == 0:
                total_exact += 1
                found += any(r["name"] == q.expect for r in answer["results"])
        passes.append(samples)
        cpu_passes.append(cpu)
    return per_query_median(passes), {"exact_found": found, "exact_total": total_exact,
                                      "cpu_ms": per_query_median(cpu_passes)}


def time_core_searches(settings: Settings, queries: list[Query], rounds: int = 1
                       ) -> list[float]:
    """Milliseconds per search_symbols call on one open connection (no connect cost)."""
    conn = connect_reader(settings.portfolio_db, "portfolio")
    try:
        ids = {r["name"]: r["id"] for r in conn.execute("SELECT id, name FROM projects")}
        passes = []
        for _ in range(rounds):
            samples = []
            for q in queries:
                t0 = time.perf_counter()
                search_symbols(conn, q.text, project_id=ids.get(q.project) if q.project else None,
                               limit=20)
                samples.append((time.perf_counter() - t0) * 1000)
            passes.append(samples)
        return per_query_median(passes)
    finally:
        conn.close()


def rg_command(rg: str, root: Path, q: Query) -> list[str]:
    globs = [arg for g in RG_GLOBS for arg in ("-g", g)]
    target = root / q.project if q.project else root
    # --no-ignore-parent: the portfolio lives under bench/.work/, which this repository's
    # .gitignore lists; only each checkout's own ignore files should apply, as for the scan.
    return [rg, "-n", "-i", "-w", "--no-heading", "--color", "never", "--no-ignore-parent",
            *globs, "-e", rg_pattern(q.text), str(target)]


def time_rg(rg: str, root: Path, queries: list[Query], rounds: int = 1
            ) -> tuple[list[float], int]:
    """Milliseconds per rg process (spawn, search, output read), median of `rounds` per query;
    and the matching lines of the first pass."""
    passes: list[list[float]] = []
    lines = 0
    for i in range(rounds):
        samples = []
        for q in queries:
            cmd = rg_command(rg, root, q)
            t0 = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, check=False)
            samples.append((time.perf_counter() - t0) * 1000)
            if out.returncode not in (0, 1):
                raise RuntimeError(f"rg failed: {out.stderr.decode(errors='replace')[:300]}")
            if i == 0:
                lines += out.stdout.count(b"\n")
        passes.append(samples)
    return per_query_median(passes), lines


def indexed_files(settings: Settings) -> list[Path]:
    conn = sqlite3.connect(f"file:{settings.portfolio_db}?mode=ro", uri=True)
    try:
        return [Path(p) / f for p, f in conn.execute(
            "SELECT p.path, f.path FROM files f JOIN projects p ON p.id = f.project_id")]
    finally:
        conn.close()


def time_naive(files: list[Path], q: Query) -> tuple[float, int]:
    """Milliseconds to read every indexed file and regex-search it (word boundaries, any
    case), the way a script without an index would; and the matching lines."""
    pattern = re.compile(r"\b(?:" + rg_pattern(q.text) + r")\b", re.IGNORECASE)
    t0 = time.perf_counter()
    hits = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            if pattern.search(line):
                hits += 1
    return (time.perf_counter() - t0) * 1000, hits


def db_size_mb(settings: Settings) -> float:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(settings.portfolio_db) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total / (1024 * 1024)


def warm_page_cache(root: Path) -> None:
    """Read every file once so the first measured scan is not a cold-disk measurement."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            try:
                with open(os.path.join(folder, name), "rb") as fh:
                    while fh.read(1 << 20):
                        pass
            except OSError:
                pass


# --------------------------------------------------------------------------- profile


def profile(label: str, fn, out_dir: Path, top: int = 25) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    path = out_dir / f"{label}.prof"
    prof.dump_stats(str(path))
    for sort in ("tottime", "cumulative"):
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(sort).print_stats(top)
        log(f"\n==== profile {label} by {sort} ({path.relative_to(common.ROOT)})")
        log(buf.getvalue().split("\n", 4)[-1] if sort == "tottime" else buf.getvalue())


def run_profiles(settings: Settings, root: Path, queries: list[Query]) -> None:
    out_dir = common.work_dir("profiles")
    profile("rescan_nochange", lambda: scan_portfolio(settings), out_dir)
    profile("search", lambda: time_searches(settings, queries), out_dir)
    fresh = settings.with_(home=common.work_dir("home-profile"))
    common.remove_tree(fresh.home)
    refresh_registry(fresh)
    try:
        profile("full_scan", lambda: scan_portfolio(fresh), out_dir)
    finally:
        common.remove_tree(fresh.home)


# --------------------------------------------------------------------------- main


def run(args: argparse.Namespace, scale: int = 1) -> tuple[list[Figure], dict]:
    """Every figure at `scale` times the portfolio of `args`."""
    args = argparse.Namespace(**{**vars(args), "repos": args.repos * scale,
                                 "defs": args.defs * scale})
    load_before = os.getloadavg()
    root, catalog = portfolio(args)
    warmup, queries = make_queries(catalog, args.queries, args.seed)
    home = common.work_dir(f"home-{args.repos}r-{args.defs}d-{args.seed}")
    scanned = home / "full-scan.json"  # what the full scan measured, for --reuse-index
    reuse = args.reuse_index and scanned.exists()
    if not reuse:
        common.remove_tree(home)
    settings = Settings(home=home, scan_paths=(root,))
    figs: list[Figure] = []
    # The targets at ten times the size (issue 28), the first ones at one.
    p50_target = SEARCH_P50_TARGET_MS if scale < 10 else SEARCH_P50_TARGET_MS_10X

    def fig(*a, **k) -> Figure:
        f = Figure(*a, **k)
        figs.append(f)
        return f

    log("warming the page cache ...")
    warm_page_cache(root)

    # 1. Full scan into a fresh home (or the one a previous run made, with --reuse-index).
    if reuse:
        kept = json.loads(scanned.read_text(encoding="utf-8"))
        report, t_full, mem = kept["report"], common.Timing(**kept["timing"]), kept["memory"]
        log(f"reusing the index in {home} (its full scan figures are those of that run)")
    else:
        with timed() as t_reg:
            registry = refresh_registry(settings)
        log(f"registry: {len(registry['added'])} projects in {t_reg.wall:.2f}s; full scan ...")
        with common.peak_rss() as mem:
            report, t_full = scan_once(settings)
        scanned.write_text(json.dumps({"report": report, "timing": vars(t_full),
                                       "memory": mem}), encoding="utf-8")
    parsed = report["parsed"]
    log(f"  {report['summary']}")
    fig("projects", report["projects"], key="projects")
    fig("source files indexed", report["files"], key="files")
    fig("definitions indexed", report["symbols"], key="definitions",
        extra={"generated": catalog["definitions"]})
    fig("definitions generated", catalog["definitions"], key="definitions_generated")
    fig("source lines", catalog["lines"], key="lines")
    fig("full scan wall", t_full.wall, "s", key="full_scan_s")
    fig("full scan CPU (this process)", t_full.cpu, "s", key="full_scan_cpu_s")
    fig("full scan CPU (git children)", t_full.children_cpu, "s", key="full_scan_git_cpu_s")
    # The scan is single-threaded: files per CPU-second (its own and git's) is its one-core
    # throughput whatever else the machine runs; wall files/s also counts I/O waits and the
    # time other processes hold the CPU.
    cpu_rate = parsed / max(t_full.cpu + t_full.children_cpu, 1e-9)
    fig("scan throughput, one core (files/CPU-s)", cpu_rate, "files/s",
        f">= {SCAN_FILES_PER_S_TARGET:.0f} files/s", cpu_rate >= SCAN_FILES_PER_S_TARGET,
        key="scan_files_per_cpu_s")
    fig("scan throughput, wall", parsed / t_full.wall, "files/s", key="scan_files_per_s")
    fig("scan definitions/s (wall)", report["symbols"] / t_full.wall, "defs/s",
        key="scan_defs_per_s")
    fig("scan peak RSS", mem["peak_mb"], "MiB", key="scan_peak_rss_mib",
        extra={"before_mib": round(mem["before_mb"], 1), "exact": bool(mem["exact"])})
    fig("scan RSS growth (peak - before)", mem["delta_mb"], "MiB", key="scan_rss_delta_mib")
    fig("index size on disk", db_size_mb(settings), "MiB", key="index_mib")

    # 2. No-change rescans of the whole portfolio.
    log(f"no-change rescans x{RESCAN_RUNS} ...")
    rescans = []
    for _ in range(RESCAN_RUNS):
        r, t = scan_once(settings)
        if r["parsed"]:
            log(f"  warning: a no-change rescan read {r['parsed']} files")
        rescans.append(t)
    med = statistics.median(t.wall for t in rescans)
    fig("no-change rescan (median of 5)", med, "s", f"< {RESCAN_TARGET_S:.0f} s",
        med < RESCAN_TARGET_S, key="rescan_nochange_s",
        extra={"runs_s": [round(t.wall, 4) for t in rescans]})
    fig("no-change rescan CPU (process + git)",
        statistics.median(t.cpu + t.children_cpu for t in rescans), "s",
        key="rescan_nochange_cpu_s")

    # 3. Rescans after touching 10 files.
    log(f"rescans after touching {TOUCH_FILES} files x{TOUCH_ROUNDS} ...")
    rng = random.Random(args.seed + 31)
    touched = []
    for _ in range(TOUCH_ROUNDS):
        saved = touch_files(root, catalog, rng, TOUCH_FILES)
        try:
            r, t = scan_once(settings)
        finally:
            restore_files(saved)
        if r["parsed"] != TOUCH_FILES:
            log(f"  warning: expected {TOUCH_FILES} files re-read, got {r['parsed']}")
        touched.append(t.wall)
        scan_once(settings)  # untimed: the index follows the restored files again
    fig(f"rescan after touching {TOUCH_FILES} files (median of {TOUCH_ROUNDS})",
        statistics.median(touched), "s", key="rescan_touched_s",
        extra={"runs_s": [round(x, 4) for x in touched]})

    # 4. Symbol search, in-process, after a warm-up.
    log(f"symbol search: {len(warmup)} warm-up + {len(queries)} measured queries "
        f"x{args.rounds} rounds ...")
    time_searches(settings, warmup)
    samples, quality = time_searches(settings, queries, args.rounds)
    read_rss = common.reads_peak_rss_mb(
        "symbol_search", home, [(q.text, {"project": q.project}) for q in queries])
    s = common.summarize(samples)
    fig("symbol search p50 (kept reader: API, MCP)", s["p50"], "ms",
        f"<= {p50_target:.1f} ms", s["p50"] <= p50_target, key="search_p50_ms")
    fig("symbol search p50, CPU time", common.percentile(quality["cpu_ms"], 50), "ms",
        key="search_cpu_p50_ms")
    if scale >= 10:
        fig("symbol search p95", s["p95"], "ms", f"<= {SEARCH_P95_TARGET_MS_10X:.0f} ms",
            s["p95"] <= SEARCH_P95_TARGET_MS_10X, key="search_p95_ms")
    else:
        fig("symbol search p95", s["p95"], "ms", key="search_p95_ms")
    fig("peak RSS of a process making these searches", read_rss, "MiB", "< 300 MiB",
        read_rss < 300, key="search_peak_rss_mib")
    fig("symbol search max", s["max"], "ms", key="search_max_ms")
    by_kind: dict[str, list[float]] = {}
    for q, ms in zip(queries, samples, strict=True):
        by_kind.setdefault(q.kind, []).append(ms)
    for kind, values in by_kind.items():
        ks = common.summarize(values)
        fig(f"  search p50 / p95: {kind} ({len(values)})", f"{ks['p50']:.2f} / {ks['p95']:.2f}",
            "ms", key=f"search_{kind}_ms", extra={"p50": ks["p50"], "p95": ks["p95"],
                                                   "max": ks["max"], "n": len(values)})
    if quality["exact_total"]:
        fig("exact names found in top 20", f"{quality['exact_found']}/{quality['exact_total']}",
            key="exact_found")
    fresh_conn = common.summarize(time_searches(settings, queries, args.rounds, kept=False)[0])
    fig("symbol search p50, a connection each (one CLI read)", fresh_conn["p50"], "ms",
        key="search_fresh_conn_p50_ms",
        extra={"ratio_to_kept": round(fresh_conn["p50"] / s["p50"], 2)})
    core = common.summarize(time_core_searches(settings, queries, args.rounds))
    fig("search_symbols p50 / p95 (open connection)", f"{core['p50']:.2f} / {core['p95']:.2f}",
        "ms", key="core_search_ms", extra={"p50": core["p50"], "p95": core["p95"]})

    # 5. ripgrep and a naive Python scan over the same files, same queries.
    rg = None if args.no_rg else common.find_or_install("rg", "ripgrep")
    context_rg: dict = {"rg": rg}
    if args.no_rg:
        fig("ripgrep baseline", "skipped (--no-rg)", key="rg_p50_ms")
    elif rg is None:
        log("ripgrep not found and could not be installed: the rg baseline was skipped")
        fig("ripgrep baseline", "skipped (rg not installed)", key="rg_p50_ms")
    else:
        version = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout
        context_rg["rg_version"] = version.split("\n", 1)[0]
        log(f"ripgrep: {context_rg['rg_version']}, {len(queries)} queries x{args.rounds} ...")
        time_rg(rg, root, warmup[:3])
        rg_samples, rg_lines = time_rg(rg, root, queries, args.rounds)
        rs = common.summarize(rg_samples)
        if rg_lines == 0:
            log("  warning: rg matched nothing for any query: check the rg command line")
        fig("rg matching lines (all queries)", rg_lines, key="rg_matching_lines")
        fig("rg p50", rs["p50"], "ms", key="rg_p50_ms")
        fig("rg p95", rs["p95"], "ms", key="rg_p95_ms")
        fig("rg max", rs["max"], "ms", key="rg_max_ms")
        ratio = rs["p50"] / s["p50"]
        fig("search speed-up vs rg (rg p50 / search p50)", ratio, "x",
            f">= {RG_RATIO_TARGET:.0f}x", ratio >= RG_RATIO_TARGET, key="rg_ratio",
            )
        fig("search speed-up vs rg at p95 (rg p95 / search p95)", rs["p95"] / s["p95"], "x",
            key="rg_ratio_p95")
    files = indexed_files(settings)
    naive_queries = [next(q for q in queries if q.kind == kind) for kind in ("exact", "phrase")
                     if any(q.kind == kind for q in queries)]
    for q in naive_queries:
        ms, hits = time_naive(files, q)
        fig(f"naive Python read+regex: '{q.text}' ({hits} lines)", ms, "ms",
            key=f"naive_{q.kind}_ms", extra={"query": q.text, "matching_lines": hits})

    if args.profile:
        run_profiles(settings, root, queries)

    context = {
        "params": catalog["params"], "portfolio": str(root),
        "languages": catalog["languages"], "generated_bytes": catalog["bytes"],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "sqlite": sqlite3.sqlite_version, "platform": platform.platform(),
                    "loadavg_1m_before": round(load_before[0], 2),
                    "loadavg_1m_after": round(os.getloadavg()[0], 2)},
        "rounds": args.rounds,
        **context_rg,
    }
    if not (args.keep or args.reuse_index):
        common.remove_tree(home)
    else:
        context["home"] = str(home)
    return figs, context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_portfolio_args(parser)
    parser.add_argument("--queries", type=int, default=200, help="measured queries (200)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="passes over the queries (search and rg); each query's figure is "
                             "the median of its passes (3)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the index (SOLOGRAPH_HOME) in bench/.work/home afterwards")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    common.add_scale_arg(parser)
    parser.add_argument("--reuse-index", action="store_true",
                        help="keep each size's index and reuse it (and its full scan figures) "
                             "on the next run")
    parser.add_argument("--no-rg", action="store_true", help="leave out the rg baseline")
    parser.add_argument("--profile", action="store_true",
                        help="after measuring, cProfile a rescan, the searches and a full "
                             "scan; stats to stderr, .prof files in bench/.work/profiles")
    args = parser.parse_args(argv)
    if min(args.repos, args.defs, args.queries, args.rounds) < 1:
        parser.error("--repos, --defs, --queries and --rounds must be positive")

    scales = list(dict.fromkeys([1, max(1, args.scale)]))
    columns, context = [], {}
    for scale in scales:
        figs, context = run(args, scale)
        columns.append((f"{args.repos * scale}r / {args.defs * scale:,}d", figs))
    # The bench itself keeps one CPU busy: more than that over the CPU count means others ran.
    busy = context["machine"]["loadavg_1m_after"] > (os.cpu_count() or 1) + 1
    if busy:
        log("note: the load average exceeded the CPU count plus this bench: other processes "
            "competed for the CPU, so wall-clock figures are inflated; compare CPU figures")
    if args.json and len(columns) > 1:
        print(common.scaled_json(columns, **context))
    elif args.json:
        print(common.figures_json(figs, **context))
    else:
        print()
        print(f"portfolio bench: {context['params']['repos']} repos, "
              f">= {context['params']['defs']:,} definitions, {args.queries} queries, "
              f"seed {args.seed}; {context['machine']['cpus']} CPUs, "
              f"Python {context['machine']['python']}, SQLite {context['machine']['sqlite']}, "
              f"load average {context['machine']['loadavg_1m_before']} -> "
              f"{context['machine']['loadavg_1m_after']}")
        print(common.scaled_table(columns) if len(columns) > 1 else common.figures_table(figs))
    return 0 if all(f.ok for _, figs in columns for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
