#!/usr/bin/env python3
"""Worker pool bench: the same generated portfolio scanned by 1 and by 2 worker processes.

Uses the portfolio of `portfolio_bench.py` (50 repositories, >= 50,000 definitions by default;
generated once under bench/.work/), a private redis-server on a free loopback port and a real
`solograph worker -Q portfolio,scan -c N`. Each round empties the store, merges the registry,
then times one spread scan from submission to the job's SUCCESS; the worker is started (and
warmed by one untimed scan) before its rounds. Every round must store the definitions a scan in
one process stores. The last line is the ratio of the medians:

    pool speedup: X.XXx (2 worker processes vs 1)

    .venv/bin/python bench/pool_bench.py                     # 50 repos, 3 rounds each
    .venv/bin/python bench/pool_bench.py --repos 8 --defs 5000 --rounds 2   # a quick run
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import portfolio_bench

import common
from common import log
from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph_services.common.jobs import create_celery, job_status, queues, submit

SOLOGRAPH = Path(sys.executable).parent / "solograph"
TARGET = 1.7
JOB_TIMEOUT_S = 900


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on {port} within {timeout}s")


@contextmanager
def process(cmd: list[str], *, env: dict[str, str] | None = None,
            log_path: Path | None = None) -> Iterator[subprocess.Popen]:
    out = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, env={**os.environ, **(env or {})}, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        if log_path:
            out.close()


def fingerprint(db: Path) -> str:
    """A digest of every stored file and definition, without row ids or times."""
    digest = hashlib.sha256()
    conn = sqlite3.connect(db)
    try:
        for row in conn.execute(
                "SELECT p.name, f.path, f.status, f.lines, f.size, f.mtime_ns, s.name, s.kind, "
                "s.line, s.scope, s.words FROM symbols s JOIN files f ON f.id = s.file_id "
                "JOIN projects p ON p.id = s.project_id ORDER BY p.name, f.path, s.id"):
            digest.update(repr(row).encode())
        (files,) = conn.execute("SELECT COUNT(*) FROM files").fetchone()
    finally:
        conn.close()
    return f"{digest.hexdigest()[:16]}/{files}"


def pool_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a worker's main process and its pool processes so far."""
    def own(p: int) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return own(pid) + sum(own(int(c)) for c in children)


def _burn(loops: int) -> float:
    started = time.perf_counter()
    x = 0
    for i in range(loops):
        x += i
    return time.perf_counter() - started


def machine_ceiling(loops: int = 20_000_000) -> float:
    """What 2 CPU-bound processes get done here against 1, right now (2.00 on 2 idle cores):
    the most any pool of 2 could gain on this machine at the moment of measuring."""
    import multiprocessing

    with multiprocessing.Pool(2) as pool:
        alone = pool.apply(_burn, (loops,))
        started = time.perf_counter()
        pool.map(_burn, [loops, loops])
        together = time.perf_counter() - started
    return 2 * alone / together


def empty_store(settings: Settings) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{settings.portfolio_db}{suffix}").unlink(missing_ok=True)
    refresh_registry(settings)


def spread_scan(settings: Settings) -> float:
    """Seconds from submitting a scan to its SUCCESS."""
    celery = create_celery(settings)
    try:
        started = time.perf_counter()
        job = submit(celery, "scan", registry=False)
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while True:
            status = job_status(celery, job)
            if status["state"] == "SUCCESS":
                break
            if status["state"] == "FAILURE" or time.monotonic() > deadline:
                raise RuntimeError(f"the scan did not succeed: {status}")
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        if status["result"]["failed"]:
            raise RuntimeError(f"projects failed: {status['result']['failed']}")
        return seconds
    finally:
        celery.close()


def rounds_with(processes: int, settings: Settings, env: dict[str, str], *, rounds: int,
                expected: str, logs: Path) -> list[float]:
    cmd = [str(SOLOGRAPH), "worker", "-Q", "portfolio,scan", "-c", str(processes)]
    with process(cmd, env=env, log_path=logs / f"worker-{processes}.log") as worker:
        celery = create_celery(settings)
        try:
            deadline = time.monotonic() + 60
            while not celery.control.ping(timeout=0.5):
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the worker did not start; see {logs}")
        finally:
            celery.close()
        empty_store(settings)
        spread_scan(settings)  # warm: each pool process loads its grammars once
        times, cpus = [], []
        for i in range(rounds):
            empty_store(settings)
            cpu_before = pool_cpu(worker.pid)
            seconds = spread_scan(settings)
            cpu = pool_cpu(worker.pid) - cpu_before
            got = fingerprint(settings.portfolio_db)
            if got != expected:
                raise RuntimeError(f"{processes} process(es), round {i + 1}: stored {got}, "
                                   f"a one-process scan stored {expected}")
            log(f"  {processes} worker process(es), round {i + 1}: {seconds:.2f} s, "
                f"{cpu:.2f} s of CPU in the pool")
            times.append(seconds)
            cpus.append(cpu)
    return times, cpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", type=int, default=50, help="git repositories (default 50)")
    parser.add_argument("--defs", type=int, default=50_000,
                        help="definitions in the whole portfolio, at least (default 50000)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (1)")
    parser.add_argument("--rounds", type=int, default=3, help="timed scans per pool size (3)")
    args = parser.parse_args(argv)
    if min(args.repos, args.defs, args.rounds) < 1:
        parser.error("--repos, --defs and --rounds must be positive")
    redis_server = common.find_or_install("redis-server", "redis-server")
    if redis_server is None:
        log("pool bench: needs redis-server (apt-get install redis-server)")
        return 2

    root, catalog = portfolio_bench.portfolio(args)
    work = common.work_dir("pool")
    home = work / "home"
    common.remove_tree(home)
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    settings = Settings(home=home, scan_paths=(root,), redis_url=url)
    env = {"SOLOGRAPH_HOME": str(home), "CODEGRAPH_SCAN_PATH": str(root), "KB_PATH": "",
           "SOLOGRAPH_REDIS_URL": url, "SOLOGRAPH_SCOPE": "", "SOLOGRAPH_TOKEN": ""}

    # The reference, in this process: what every spread scan must store.
    empty_store(settings)
    with common.timed() as one:
        scan_portfolio(settings)
    expected = fingerprint(settings.portfolio_db)
    log(f"one-process scan (no broker): {one.wall:.2f} s, {catalog['definitions']:,} "
        f"definitions generated, stored {expected}")

    ceilings = [machine_ceiling()]
    load_before = os.getloadavg()[0]
    with process([redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                  "--appendonly", "no"], log_path=work / "redis.log"):
        wait_for_port(port)
        measured = {n: rounds_with(n, settings, env, rounds=args.rounds, expected=expected,
                                   logs=work) for n in (1, 2)}
    times = {n: t for n, (t, _) in measured.items()}
    cpus = {n: c for n, (_, c) in measured.items()}
    load_after = os.getloadavg()[0]
    ceilings.append(machine_ceiling())
    common.remove_tree(home)

    medians = {n: statistics.median(t) for n, t in times.items()}
    print(f"pool bench: {args.repos} repos, {catalog['files']:,} files, "
          f"{catalog['definitions']:,} definitions, {os.cpu_count()} CPUs, load average "
          f"{load_before:.2f} before, {load_after:.2f} after")
    print(f"one-process scan without a broker: {one.wall:.2f} s")
    for n, samples in times.items():
        runs = ", ".join(f"{s:.2f}" for s in samples)
        cpu = statistics.median(cpus[n])
        # CPU seconds per wall second: how many cores the pool really had (the machine may be
        # shared), next to how many processes it ran.
        print(f"{n} worker process(es): median {medians[n]:.2f} s (runs: {runs}); "
              f"{cpu:.2f} s of CPU, {cpu / medians[n]:.2f} cores busy")
    if "embed" in queues():
        print("embedding throughput: the embed queue exists but this bench does not measure "
              "it yet")
    else:
        print("embedding throughput: not measured (no embed task in this tree)")
    if load_after > (os.cpu_count() or 1) + 1:
        print("note: other processes competed for the CPU during the run")
    speedup = medians[1] / medians[2]
    print(f"machine ceiling: {min(ceilings):.2f}x to {max(ceilings):.2f}x (2 CPU-bound processes "
          f"against 1, pure Python, before and after); the pool reached "
          f"{speedup / statistics.fmean(ceilings):.0%} of it")
    if speedup < TARGET:
        log(f"below the target of {TARGET:.1f}x")
    print(f"pool speedup: {speedup:.2f}x (2 worker processes vs 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
