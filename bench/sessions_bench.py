#!/usr/bin/env python3
"""Session index bench: search latency over 1,000 generated sessions (about 1 GB) including the
disk check, resync cost after appending 1 MB to a 400 MB transcript, and peak memory while
indexing that transcript.

    .venv/bin/python bench/sessions_bench.py                          # full size, as below
    .venv/bin/python bench/sessions_bench.py --sessions 100 --total-mb 100 --big-mb 50   # quick
    .venv/bin/python bench/sessions_bench.py --json > figures.json
    .venv/bin/python bench/sessions_bench.py --sessions 500 --total-mb 204.8 --big-mb 100 \
        --scale 10          # and 5,000 sessions (2 GiB), side by side

The transcripts are made from the real ones in $SOLOGRAPH_CORPORA/transcripts (default
../shared/corpora): each generated session is a run of real lines (progress, tool results,
replies, snapshots: the real mix) copied from the 12 real main transcripts, with fresh session
ids and uuids and its own working folder, and opens with a prompt of 8-12 words drawn from the
corpus vocabulary with a Zipf law. Sizes are log-normal (a few big, many small), scaled to
`--total-mb`. Generated files are cached under bench/.work/ by parameters; the index is built
fresh on each run (`--reuse-index` keeps it).

Figures (targets from issue 4):
- search p50 / p95: `reads.session_search(settings, query, limit=10)` in-process, the call the
  CLI, HTTP API and MCP tool make: the disk check (changed folders listed, live transcripts
  stat'ed), then the search; first on the thread's kept writer (`readers.keep()`, as the HTTP
  API and MCP server read), then with a writer opened and closed per read (as the CLI
  reads); queries are three words of a session's first prompt (the recipe of the known-answer
  eval), after 20 warm-up queries. Target p50 <= 12 ms.
- disk check alone: the sync a read makes (`quick`: the folders, the transcripts written last
  and others in turn, sessions/cold.py), beside it the same with a watcher naming what changed
  (`watched`, as a long-lived process has one), and the look at the folder before (every
  folder listed, every file stat'ed).
- peak RSS of a new process making the searches on kept readers (`common.reads_peak_rss_mb`).
- append resync: 1 MB of real lines appended to the 400 MB transcript, then `sessions.sync` on
  an open index (stat, hash the bytes before the saved offset, read the new tail, index it);
  median of 5 appends. Target < 15 ms. Then "search right after a 1 MB append": five more
  appends, each followed by `reads.session_search` (a new connection, the resync, the search).
- peak memory indexing the 400 MB transcript: the kernel's high-water mark (VmHWM) of a fresh
  process that opens a new index and syncs that one file. Target < 200 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common
from common import Figure, add_scale_arg, log, scaled_json, scaled_table, timed
from solograph import reads
from solograph.config import Settings
from solograph.sessions import folders
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync, sync_sessions
from solograph.text.tokens import words as split_words

GENERATOR_VERSION = 3
SEARCH_P50_TARGET_MS = 15.0  # issue 28, at ten times the data (issue 15 asked for 12)
RESYNC_TARGET_MS = 15.0
PEAK_TARGET_MB = 200.0
READS_RSS_TARGET_MB = 300.0
WARMUP = 20
APPENDS = 5

_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_WORD = re.compile(r"^[a-z]{4,14}$")


# --------------------------------------------------------------------------- generator


class Templates:
    """The real main transcripts as lines, with what each copy must rewrite."""

    def __init__(self, corpora: Path) -> None:
        root = corpora / "transcripts" / "claude-projects"
        self.files: list[tuple[list[bytes], bytes, bytes]] = []  # lines, session id, cwd
        vocab: dict[str, int] = {}
        for path in sorted(root.glob("*/*.jsonl")):
            lines = path.read_bytes().splitlines(keepends=True)
            sid = cwd = b""
            for raw in lines:
                rec = json.loads(raw)
                if rec.get("sessionId") and rec.get("cwd") and not sid:
                    sid, cwd = rec["sessionId"].encode(), rec["cwd"].encode()
                if rec.get("type") == "user" and isinstance(rec["message"]["content"], str):
                    for w in split_words(rec["message"]["content"]):
                        if _WORD.match(w):
                            vocab[w] = vocab.get(w, 0) + 1
            if sid:
                self.files.append((lines, sid, cwd))
        self.vocab = sorted(vocab, key=lambda w: (-vocab[w], w))
        if not self.files:
            raise SystemExit(f"no transcripts under {root}")


class Generator:
    def __init__(self, templates: Templates, seed: int) -> None:
        self.t = templates
        self.rng = random.Random(seed)
        # Prompts mix common and rare words: a flattened Zipf law past the 30 most common
        # words (this, that, with, ...), which any prompt may hold but no query is made of.
        self.vocab = templates.vocab[30:]
        self.weights = [1 / (i + 1) ** 0.5 for i in range(len(self.vocab))]

    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def prompt_words(self) -> list[str]:
        return self.rng.choices(self.vocab, weights=self.weights, k=self.rng.randint(8, 12))

    def first_line(self, sid: str, cwd: str, prompt: str) -> bytes:
        rec = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
               "sessionId": sid, "version": "2.1.39", "gitBranch": "main", "type": "user",
               "message": {"role": "user", "content": prompt}, "uuid": self.uuid(),
               "timestamp": "2026-02-01T10:00:00.000Z"}
        return (json.dumps(rec, separators=(",", ":")) + "\n").encode()

    def lines(self, sid: str, cwd: str, size: int):
        """Real lines rewritten for session `sid` in folder `cwd`, about `size` bytes."""
        written = 0
        new_sid, new_cwd = sid.encode(), cwd.encode()
        while written < size:
            lines, old_sid, old_cwd = self.rng.choice(self.t.files)
            start = self.rng.randrange(len(lines))
            mapping: dict[bytes, bytes] = {old_sid: new_sid}

            def swap(m: re.Match[bytes], mapping=mapping) -> bytes:
                got = mapping.get(m.group())
                if got is None:
                    got = mapping[m.group()] = self.uuid().encode()
                return got

            for raw in lines[start:] + lines[:start]:
                out = _UUID.sub(swap, raw.replace(old_cwd, new_cwd))
                written += len(out)
                yield out
                if written >= size:
                    return


def generate(corpora: Path, folder: Path, sessions: int, total_mb: float,
             seed: int) -> list[dict]:
    """Write `sessions` transcripts under folder/projects; returns their catalog (cached)."""
    catalog_file = folder / "catalog.json"
    if catalog_file.exists():
        return json.loads(catalog_file.read_text())
    gen = Generator(Templates(corpora), seed)
    sizes = [gen.rng.lognormvariate(0, 1.2) for _ in range(sessions)]
    scale = total_mb * (1 << 20) / sum(sizes)
    catalog = []
    started = time.perf_counter()
    for i, weight in enumerate(sizes):
        sid = gen.uuid()
        cwd = f"/home/bench/code/project-{i % 60:02d}" + ("/app" if i % 7 == 0 else "")
        prompt = " ".join(gen.prompt_words())
        path = folder / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd) / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.write(gen.first_line(sid, cwd, prompt))
            for raw in gen.lines(sid, cwd, int(weight * scale)):
                fh.write(raw)
        catalog.append({"session": sid, "prompt": prompt, "path": str(path)})
        if (i + 1) % 100 == 0:
            log(f"  generated {i + 1}/{sessions} sessions ({time.perf_counter() - started:.0f}s)")
    catalog_file.write_text(json.dumps(catalog))
    return catalog


def generate_big(corpora: Path, folder: Path, mb: int, seed: int) -> tuple[Path, Generator, str]:
    """One transcript of `mb` MiB (cached), and a generator to append to it."""
    gen = Generator(Templates(corpora), seed)
    sid, cwd = "b16b16b1-0000-4000-a000-000000000400", "/home/bench/code/big-project"
    path = folder / "projects" / "-home-bench-code-big-project" / f"{sid}.jsonl"
    stamp = folder / "stamp"
    if not stamp.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.write(gen.first_line(sid, cwd, "build the big project importer"))
            for raw in gen.lines(sid, cwd, mb << 20):
                fh.write(raw)
        stamp.write_text(str(path.stat().st_size))
    os.truncate(path, int(stamp.read_text()))  # drop what earlier runs appended
    return path, gen, sid


# --------------------------------------------------------------------------- measures


def index_only(root: Path, db: Path) -> None:
    """(A child process) index `root` into a new `db`; print seconds and peak RSS as JSON."""
    with timed() as t:
        conn = open_index(db)
        report = sync(conn, root)
        conn.close()
    print(json.dumps({"seconds": t.wall, "cpu": t.cpu, "peak_mb": common.peak_rss_mb(),
                      "bytes": report["bytes"], "entries": report["entries"]}))


def list_everything(root: Path) -> int:
    """The disk check before folder mtimes were kept: list every folder, stat every file."""
    found = 0
    for project in os.scandir(root):
        if not project.is_dir():
            continue
        for entry in os.scandir(project.path):
            if entry.name.endswith(".jsonl") and entry.is_file():
                entry.stat()
                found += 1
            elif entry.is_dir():
                agents = os.path.join(entry.path, "subagents")
                if os.path.isdir(agents):
                    for agent in os.scandir(agents):
                        if agent.name.endswith(".jsonl"):
                            agent.stat()
                            found += 1
    return found


def db_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
               if p.exists()) / (1 << 20)


def queries(catalog: list[dict], n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed + 7)
    out = []
    for entry in rng.sample(catalog, min(n, len(catalog))):
        words = entry["prompt"].split()
        start = rng.randrange(max(1, len(words) - 2))
        out.append((" ".join(words[start:start + 3]), entry["session"]))
    return out


def run(args: argparse.Namespace, sessions: int, total_mb: float) -> list[Figure]:
    corpora = Path(args.corpora)
    figs: list[Figure] = []
    base = common.work_dir(f"sessions-{sessions}s-{total_mb:g}mb-{args.seed}"
                           f"-v{GENERATOR_VERSION}")
    log(f"generating {sessions} sessions, {total_mb:g} MiB (cached) ...")
    catalog = generate(corpora, base, sessions, total_mb, args.seed)
    settings = Settings(home=base / "home", claude_projects=base / "projects")
    if not args.reuse_index:
        common.remove_tree(settings.home)
    log("indexing them ...")
    with timed() as t_index:
        report = sync_sessions(settings)
    log(f"  {report['summary']} in {t_index.wall:.1f}s")
    on_disk = sum(os.path.getsize(e["path"]) for e in catalog) / (1 << 20)
    figs += [Figure("sessions indexed", report["sessions"], key="sessions"),
             Figure("transcripts on disk", on_disk, "MiB", key="transcripts_mib"),
             Figure("full index time", t_index.wall, "s", key="index_s"),
             Figure("index size", db_mb(settings.sessions_db), "MiB", key="index_mib")]

    qs = queries(catalog, args.queries + WARMUP, args.seed)

    from solograph.errors import QueryTimeout

    timeouts = [0]  # searches past the query time limit (counted, their time kept)

    def measure() -> tuple[list[float], list[float], list[int | None]]:
        for q, _ in qs[:WARMUP]:
            with contextlib.suppress(QueryTimeout):
                reads.session_search(settings, q)
        times, cpu, ranks = [], [], []
        for q, expected in qs[WARMUP:]:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                answer = reads.session_search(settings, q, limit=10)
            except QueryTimeout:
                timeouts[0] += 1
                answer = {"results": []}
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            found = [r["session"] for r in answer["results"]]
            ranks.append(found.index(expected) + 1 if expected in found else None)
        return times, cpu, ranks

    # The thread's writer kept between reads, then one opened (migrations and redaction
    # checked) and closed per read.
    (times, cpu, ranks), (each_times, each_cpu, _) = common.kept_then_opened(measure)
    stats = common.summarize(times)
    figs += [
        Figure("search p50 (with disk check), kept writer", stats["p50"], "ms",
               f"<= {SEARCH_P50_TARGET_MS:.0f} ms", stats["p50"] <= SEARCH_P50_TARGET_MS,
               key="search_p50_ms"),
        Figure("search p95 (with disk check)", stats["p95"], "ms", key="search_p95_ms"),
        Figure("searches past the query time limit (both ways)", timeouts[0], "", "0",
               timeouts[0] == 0, key="search_timeouts"),
        Figure("search p50 CPU", statistics.median(cpu), "ms", key="search_p50_cpu_ms"),
        Figure("search p50, a connection opened per read (the CLI)",
               statistics.median(each_times), "ms", key="search_each_p50_ms"),
        Figure("  its CPU p50", statistics.median(each_cpu), "ms", key="search_each_p50_cpu_ms"),
        Figure("known session at rank 1", sum(r == 1 for r in ranks) / len(ranks), "",
               key="recall_at_1"),
        Figure("known session in top 5", sum(r is not None and r <= 5 for r in ranks)
               / len(ranks), "", key="recall_at_5")]
    rss = common.reads_peak_rss_mb("session_search", settings.home,
                                   [(q, {"limit": 10}) for q, _ in qs],
                                   projects=settings.claude_projects)
    figs.append(Figure("peak RSS of a process making these searches", rss, "MiB",
                       f"< {READS_RSS_TARGET_MB:.0f} MiB", rss < READS_RSS_TARGET_MB,
                       key="reads_peak_rss_mib"))
    conn = open_index(settings.sessions_db)
    root = settings.claude_projects
    far = time.monotonic() + 3600
    checks, check_cpu, watched, listed, baseline = [], [], [], [], []
    for _ in range(20):  # interleaved, so load hits them alike
        t0, c0 = time.perf_counter(), time.thread_time()
        sync(conn, root, deadline=far, quick=True)
        checks.append((time.perf_counter() - t0) * 1000)
        check_cpu.append((time.thread_time() - c0) * 1000)
        t0 = time.perf_counter()
        sync(conn, root, deadline=far, quick=True, watched={})  # a watcher saw nothing
        watched.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        folders.look(conn, root, quick=True)
        listed.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        list_everything(root)
        baseline.append((time.perf_counter() - t0) * 1000)
    unchecked = sync(conn, root, deadline=far, quick=True)["unchecked"]
    conn.close()
    check, cpu_, seen, look, everything = (statistics.median(x) for x in (
        checks, check_cpu, watched, listed, baseline))
    figs += [Figure("disk check alone (no change), p50", check, "ms", key="disk_check_ms"),
             Figure("  its CPU", cpu_, "ms", key="disk_check_cpu_ms"),
             Figure("  with a watcher that saw no change", seen, "ms",
                    key="disk_check_watched_ms"),
             Figure("  its look at the folder (changed folders, hot and cold transcripts)",
                    look, "ms", key="disk_look_ms"),
             Figure("  transcripts a read leaves unchecked (stat'ed in turn)", unchecked, "",
                    key="disk_unchecked"),
             Figure("  baseline: every folder listed, every file stat'ed",
                    everything, "ms", key="disk_list_all_ms",
                    extra={"ratio_look_to_baseline": round(look / everything, 2)})]

    big = common.work_dir(f"sessions-big-{args.big_mb}mb-{args.seed}-v{GENERATOR_VERSION}")
    log(f"generating a {args.big_mb} MiB transcript (cached) ...")
    path, gen, sid = generate_big(corpora, big, args.big_mb, args.seed)
    db = big / "home" / "sessions.db"
    common.remove_tree(big / "home")
    log("indexing it in a fresh process ...")
    child = subprocess.run([sys.executable, __file__, "--index-only", str(big / "projects"),
                            str(db)], capture_output=True, text=True, check=True)
    got = json.loads(child.stdout.strip().splitlines()[-1])
    figs += [
        Figure("big transcript", path.stat().st_size / (1 << 20), "MiB", key="big_mib"),
        Figure("peak RSS indexing it (whole process)", got["peak_mb"], "MiB",
               f"< {PEAK_TARGET_MB:.0f} MiB", got["peak_mb"] < PEAK_TARGET_MB,
               key="index_peak_rss_mib"),
        Figure("indexing it", got["seconds"], "s", key="big_index_s",
               extra={"mib_per_s": round(got["bytes"] / (1 << 20) / got["seconds"], 1)})]
    conn = open_index(db)
    sync(conn, big / "projects")
    resyncs, resync_cpu = [], []
    for _ in range(APPENDS):
        data = b"".join(gen.lines(sid, "/home/bench/code/big-project", 1 << 20))
        with path.open("ab") as fh:
            fh.write(data)
        t0, c0 = time.perf_counter(), time.thread_time()
        r = sync(conn, big / "projects")
        resyncs.append((time.perf_counter() - t0) * 1000)
        resync_cpu.append((time.thread_time() - c0) * 1000)
        if r["bytes"] != len(data):
            log(f"  warning: the resync read {r['bytes']} bytes, {len(data)} were appended")
    conn.close()
    med = statistics.median(resyncs)
    figs += [Figure("resync after appending 1 MiB (median of 5)", med, "ms",
                    f"< {RESYNC_TARGET_MS:.0f} ms", med < RESYNC_TARGET_MS,
                    key="append_resync_ms", extra={"runs_ms": [round(x, 2) for x in resyncs]}),
             Figure("  its CPU time (median of 5)", statistics.median(resync_cpu), "ms",
                    key="append_resync_cpu_ms")]
    # The same appends seen by a search as the CLI or the MCP tool makes it: a new connection
    # (cold page cache), the resync, then the search.
    big_settings = Settings(home=big / "home", claude_projects=big / "projects")
    searches = []
    for _ in range(APPENDS):
        data = b"".join(gen.lines(sid, "/home/bench/code/big-project", 1 << 20))
        with path.open("ab") as fh:
            fh.write(data)
        t0 = time.perf_counter()
        reads.session_search(big_settings, "importer project", limit=10)
        searches.append((time.perf_counter() - t0) * 1000)
    figs.append(Figure("search right after a 1 MiB append (open, resync, search)",
                       statistics.median(searches), "ms", key="append_search_ms",
                       extra={"runs_ms": [round(x, 2) for x in searches]}))
    return figs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--total-mb", type=float, default=1024)
    parser.add_argument("--big-mb", type=int, default=400)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpora", default=os.environ.get(
        "SOLOGRAPH_CORPORA", str(common.ROOT.parent / "shared" / "corpora")))
    parser.add_argument("--reuse-index", action="store_true",
                        help="keep the index of an earlier run instead of building it again")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--index-only", nargs=2, metavar=("ROOT", "DB"), help=argparse.SUPPRESS)
    add_scale_arg(parser)
    args = parser.parse_args()
    if args.index_only:
        index_only(Path(args.index_only[0]), Path(args.index_only[1]))
        return 0
    if args.sessions <= WARMUP:  # each search asks about one session, after WARMUP others
        parser.error(f"--sessions must be more than {WARMUP} (the warm-up's searches)")
    scale = max(1, args.scale)
    sizes = list(dict.fromkeys([(args.sessions, args.total_mb),
                                (args.sessions * scale, args.total_mb * scale)]))
    columns = [(f"{n:,}s / {mb:g} MiB", run(args, n, mb)) for n, mb in sizes]
    load = os.getloadavg()
    if args.json:
        print(scaled_json(columns, params=vars(args), cpus=os.cpu_count(), load=load))
    else:
        print(f"cpus {os.cpu_count()}, load average {load[0]:.2f}")
        print(scaled_table(columns))
    return 0 if all(f.ok for _, figs in columns for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
