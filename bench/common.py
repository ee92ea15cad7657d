"""Helpers shared by the benches: timing, percentiles, peak memory, tables and the work dir.

Everything here is standard library only, so a bench runs from the project venv without extras.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
WORK_DIR = BENCH_DIR / ".work"


# --------------------------------------------------------------------------- work dir


def add_portfolio_args(parser: Any) -> None:
    """The generated portfolio's size, as every portfolio bench takes it (portfolio_gen.py)."""
    parser.add_argument("--repos", type=int, default=50, help="git repositories (default 50)")
    parser.add_argument("--defs", type=int, default=50_000,
                        help="definitions in the whole portfolio, at least (default 50000)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (1)")


def work_dir(*parts: str) -> Path:
    """A folder under bench/.work/ (created), which git never sees.

    The repository's .gitignore lists bench/.work/; a `*` .gitignore inside it keeps it out
    of git even in a checkout whose top-level ignore file lacks the line."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    ignore = WORK_DIR / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    path = WORK_DIR.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def remove_tree(path: Path) -> None:
    """Delete a folder, refusing anything outside bench/.work/."""
    path = path.resolve()
    if WORK_DIR.resolve() not in path.parents:
        raise ValueError(f"refusing to delete {path}: not under {WORK_DIR}")
    shutil.rmtree(path, ignore_errors=True)


def log(message: str) -> None:
    """Progress goes to stderr so `--json` output on stdout stays parseable."""
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- timing


@dataclass
class Timing:
    wall: float = 0.0  # seconds, time.perf_counter
    cpu: float = 0.0  # seconds of this process, time.process_time (user + system)
    children_cpu: float = 0.0  # seconds of finished child processes (git, rg, ...)


@contextmanager
def timed() -> Iterator[Timing]:
    """`with timed() as t: ...` fills t.wall, t.cpu and t.children_cpu when the block ends."""
    result = Timing()
    before = os.times()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        yield result
    finally:
        result.wall = time.perf_counter() - wall0
        result.cpu = time.process_time() - cpu0
        after = os.times()
        result.children_cpu = ((after.children_user - before.children_user)
                               + (after.children_system - before.children_system))


def repeat(fn: Callable[[], Any], times: int) -> list[Timing]:
    """Run `fn` `times` times, one Timing each."""
    out = []
    for _ in range(times):
        with timed() as t:
            fn()
        out.append(t)
    return out


def kept_then_opened(measure: Callable[[], Any]) -> tuple[Any, Any]:
    """`measure()` as the HTTP API and the MCP server read (each thread's connections kept
    between reads, `readers.keep()`), then as one CLI process reads (a connection opened and
    closed per read)."""
    from solograph import readers

    readers.keep()
    try:
        kept = measure()
    finally:
        readers.release()
    return kept, measure()


def percentile(samples: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100) with linear interpolation between closest ranks."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    if len(ordered) == 1:
        return ordered[0]
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """n, p50, p95, max, mean of a list of durations (same unit out as in)."""
    if not samples:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "max": float("nan"),
                "mean": float("nan")}
    return {"n": len(samples), "p50": percentile(samples, 50), "p95": percentile(samples, 95),
            "max": max(samples), "mean": statistics.fmean(samples)}


# --------------------------------------------------------------------------- memory


def _status_kb(field_name: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc; 0 elsewhere)."""
    kb = _status_kb("VmRSS")
    return kb / 1024 if kb is not None else 0.0


def reset_peak_rss() -> bool:
    """Reset the kernel's high-water mark of this process (Linux >= 4.0: clear_refs 5).

    Returns False when it cannot, in which case peak_rss_mb() is the lifetime peak."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    """Peak resident set size in MiB since start or the last reset_peak_rss()."""
    kb = _status_kb("VmHWM")
    if kb is None:  # not Linux: ru_maxrss is KiB on Linux, bytes on macOS
        raw = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return raw / (1024 * 1024) if sys.platform == "darwin" else raw / 1024
    return kb / 1024


@contextmanager
def peak_rss() -> Iterator[dict[str, float]]:
    """`with peak_rss() as m:` -> m["before_mb"], m["peak_mb"], m["delta_mb"], m["exact"]."""
    exact = reset_peak_rss()
    info = {"before_mb": rss_mb(), "peak_mb": 0.0, "delta_mb": 0.0, "exact": float(exact)}
    try:
        yield info
    finally:
        info["peak_mb"] = peak_rss_mb()
        info["delta_mb"] = info["peak_mb"] - info["before_mb"]


_READS_PEAK = """
import json, sys
from pathlib import Path
from solograph import readers, reads
from solograph.config import Settings
from solograph.errors import SolographError
job = json.loads(sys.stdin.read())
more = {"claude_projects": Path(job["projects"])} if job.get("projects") else {}
more.update({k: tuple(v) if isinstance(v, list) else v for k, v in job["settings"].items()})
settings = Settings(home=Path(job["home"]), kb_path=Path(job["kb"]) if job["kb"] else None,
                    **more)
readers.keep()
for query, params in job["calls"]:
    try:
        getattr(reads, job["read"])(settings, query, **params)
    except SolographError:  # a query past the time limit is still a read
        pass
with open("/proc/self/status", encoding="ascii") as fh:
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")))
"""


def reads_peak_rss_mb(read: str, home: Path, calls: list[tuple[str, dict]], *,
                      kb: Path | None = None, projects: Path | None = None,
                      settings: dict | None = None) -> float:
    """The peak resident set (MiB, the kernel's VmHWM) of a new process that makes these
    calls (query, keyword arguments) of `solograph.reads.<read>` on kept readers, as the HTTP
    API and MCP do: what the reads cost, without the memory of the bench that built the
    index (the pages of the index it reads through mmap count, as the kernel counts them).
    `settings`: more Settings fields (JSON values; lists become tuples)."""
    job = json.dumps({"read": read, "home": str(home), "kb": str(kb) if kb else "",
                      "projects": str(projects) if projects else "", "calls": calls,
                      "settings": settings or {}})
    done = subprocess.run([sys.executable, "-c", _READS_PEAK], input=job.encode(),
                          capture_output=True, timeout=1800, check=False)
    try:
        return int(done.stdout.split()[-1]) / 1024
    except (IndexError, ValueError):
        log(f"  the read process failed: {done.stderr.decode(errors='replace')[-500:]}")
        return float("nan")


def python_heap_peak_mb(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Run `fn` under tracemalloc: (its result, peak MiB of Python allocations).

    tracemalloc slows allocation-heavy code several-fold: never wrap a timed run with it."""
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak / (1024 * 1024)


# --------------------------------------------------------------------------- external tools


def find_or_install(binary: str, apt_package: str) -> str | None:
    """Path of `binary` on PATH; else try `apt-get install` (root only) once; else None."""
    found = shutil.which(binary)
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", apt_package]
    for attempt in (install, ["apt-get", "update", "-qq"], install):
        log(f"  running: {' '.join(attempt)}")
        try:
            subprocess.run(attempt, check=False, capture_output=True, timeout=600, env=env)
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = shutil.which(binary)
        if found:
            return found
    return None


# --------------------------------------------------------------------------- output


@dataclass
class Figure:
    """One measured figure, optionally checked against a target."""

    name: str
    value: float | int | str
    unit: str = ""
    target: str = ""  # human text, e.g. "< 1 s"
    ok: bool | None = None  # None: informational, no target
    key: str = ""  # JSON key
    extra: dict[str, Any] = field(default_factory=dict)

    def shown(self) -> str:
        v = self.value
        if isinstance(v, float):
            text = f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"
        elif isinstance(v, int):
            text = f"{v:,}"
        else:
            text = str(v)
        return f"{text} {self.unit}".strip()

    def verdict(self) -> str:
        return "" if self.ok is None else ("PASS" if self.ok else "FAIL")


def format_table(rows: Iterable[Sequence[str]], headers: Sequence[str]) -> str:
    """A plain-text table with a header rule, columns padded to their widest cell."""
    body = [list(map(str, r)) for r in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in body)])


def figures_table(figures: Sequence[Figure]) -> str:
    return format_table([(f.name, f.shown(), f.target, f.verdict()) for f in figures],
                        ("figure", "value", "target", "result"))


def add_scale_arg(parser: Any) -> None:
    """`--scale N`: the same bench again at N times its size, printed beside the first."""
    parser.add_argument("--scale", type=int, default=1,
                        help="also run at N times the size and print both side by side (1)")


def scaled_table(columns: Sequence[tuple[str, Sequence[Figure]]]) -> str:
    """One row per figure (by key), one value column per size, then target and results."""
    first = columns[0][1]
    rows = []
    for i, fig in enumerate(first):
        cells = [fig.name]
        verdicts = []
        for _, figures in columns:
            match = figures[i] if i < len(figures) else None
            cells.append(match.shown() if match else "")
            if match is not None and match.ok is not None:
                verdicts.append(match.verdict())
        rows.append([*cells, fig.target, " / ".join(verdicts)])
    return format_table(rows, ("figure", *(label for label, _ in columns), "target", "result"))


def scaled_json(columns: Sequence[tuple[str, Sequence[Figure]]], **context: Any) -> str:
    out: dict[str, Any] = dict(context)
    out["sizes"] = {label: json.loads(figures_json(figures)) for label, figures in columns}
    out["all_targets_pass"] = all(f.ok for _, figures in columns for f in figures
                                  if f.ok is not None)
    return json.dumps(out, indent=2, default=str)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def figures_json(figures: Sequence[Figure], **context: Any) -> str:
    out: dict[str, Any] = dict(context)
    out["figures"] = {
        (f.key or f.name): {"value": _rounded(f.value), "unit": f.unit,
                            "target": f.target or None, "pass": f.ok,
                            **{k: _rounded(v) for k, v in f.extra.items()}}
        for f in figures}
    out["all_targets_pass"] = all(f.ok for f in figures if f.ok is not None)
    return json.dumps(out, indent=2, default=str)


# --------------------------------------------------------------------------- HTTP load


def http_load(port: int, paths: Sequence[str], *, clients: int, total: int | None = None,
              seconds: float | None = None) -> dict[str, Any]:
    """`clients` threads, one keep-alive connection each, GET the `paths` in turn on
    127.0.0.1:`port` until `total` requests were made or `seconds` passed (one of the two
    bounds is required). Returns requests, errors, wall seconds, rps and latencies (ms)."""
    import http.client
    import threading

    if total is None and seconds is None:
        raise ValueError("give total or seconds")
    stop = time.monotonic() + seconds if seconds is not None else float("inf")
    lock = threading.Lock()
    latencies: list[float] = []
    errors = [0]
    counter = iter(range(total)) if total is not None else None

    def client(first: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine, bad, k = [], 0, first
        while time.monotonic() < stop:
            if counter is not None:
                with lock:
                    if next(counter, None) is None:
                        break
            path = paths[k % len(paths)]
            k += clients
            started = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                bad += response.status != 200
            except (OSError, http.client.HTTPException):
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            mine.append((time.perf_counter() - started) * 1000)
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    return {"requests": len(latencies), "errors": errors[0], "wall": wall,
            "rps": len(latencies) / wall if wall else 0.0, "latencies": latencies}
