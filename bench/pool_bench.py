#!/usr/bin/env python3
"""Worker pool bench: the same generated portfolio scanned by 1 and by 2 worker processes.

Uses the portfolio of `portfolio_bench.py` (50 repositories, >= 50,000 definitions by default;
generated once under bench/.work/), a private redis-server on a free loopback port and two real
workers, `solograph worker -Q portfolio,scan -c 1` and `-c 2`, each with its own home and Redis
database, both up for the whole run and warmed by one untimed scan. Their rounds alternate (a
change in the machine's load falls on both alike): each empties its store, merges the registry,
then times one spread scan from submission to the job's SUCCESS, which must have stored the
definitions a scan in one process stores. Then the meaning lane's model work, when the
`semantic` extra is there: 128 texts sent at once as `embed_texts` tasks of 32 (a round's size)
to `solograph worker -Q embed -c N`, in texts per second, rounds alternating the same way. The
last line is the ratio of the scans' medians:

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
from solograph_services.common.jobs import create_celery, job_status, job_table, submit

SOLOGRAPH = Path(sys.executable).parent / "solograph"
TARGET = 1.7
JOB_TIMEOUT_S = 900
EMBED_BATCH = 32  # texts per embed_texts task, as a round of the meaning lane sends
EMBED_TEXTS = 128


def semantic_available() -> bool:
    from solograph import semantic

    return semantic.available()


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


@contextmanager
def worker_on(processes: int, settings: Settings, env: dict[str, str], queues: str,
              log_path: Path) -> Iterator[subprocess.Popen]:
    """`solograph worker -Q queues -c processes`, once it answers a ping."""
    cmd = [str(SOLOGRAPH), "worker", "-Q", queues, "-c", str(processes)]
    with process(cmd, env=env, log_path=log_path) as worker:
        celery = create_celery(settings)
        try:
            deadline = time.monotonic() + 60
            while not celery.control.ping(timeout=0.5):
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the worker did not start; see {log_path}")
        finally:
            celery.close()
        yield worker


def scan_round(processes: int, settings: Settings, worker: subprocess.Popen, *,
               expected: str, label: str) -> tuple[float, float]:
    """(seconds, CPU seconds of the pool) of one spread scan into an empty store."""
    empty_store(settings)
    cpu_before = pool_cpu(worker.pid)
    seconds = spread_scan(settings)
    cpu = pool_cpu(worker.pid) - cpu_before
    got = fingerprint(settings.portfolio_db)
    if got != expected:
        raise RuntimeError(f"{processes} process(es), {label}: stored {got}, "
                           f"a one-process scan stored {expected}")
    log(f"  {processes} worker process(es), {label}: {seconds:.2f} s, {cpu:.2f} s of CPU "
        f"in the pool")
    return seconds, cpu


def embed_texts_sample(count: int, seed: int = 1) -> list[str]:
    """Sentences of 30-60 words drawn from the generator's vocabulary."""
    import random

    import portfolio_gen

    rng = random.Random(seed)
    words = portfolio_gen.NOUNS + portfolio_gen.VERBS + portfolio_gen.ADJECTIVES
    return [" ".join(rng.choice(words) for _ in range(rng.randint(30, 60)))
            for _ in range(count)]


def run_tasks(settings: Settings, texts: list[str], per_task: int) -> float:
    """Seconds to embed `texts` as `embed_texts` tasks of `per_task`, all sent at once."""
    spec = job_table()["embed_texts"]
    celery = create_celery(settings)
    try:
        started = time.perf_counter()
        ids = [celery.send_task(spec.task, args=[texts[i:i + per_task]], queue=spec.queue).id
               for i in range(0, len(texts), per_task)]
        deadline = time.monotonic() + JOB_TIMEOUT_S
        waiting = set(ids)
        while waiting:
            for job in list(waiting):
                state = job_status(celery, job)["state"]
                if state == "SUCCESS":
                    waiting.discard(job)
                elif state == "FAILURE" or time.monotonic() > deadline:
                    raise RuntimeError(f"embedding failed: {job_status(celery, job)}")
            time.sleep(0.02)
        return time.perf_counter() - started
    finally:
        celery.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_portfolio_args(parser)
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
    port = free_port()
    # One home and one Redis database per pool size: both workers stay up, and their rounds
    # alternate, so a change in the machine's load falls on both alike.
    settings, env = {}, {}
    for n in (1, 2):
        home = work / f"home-{n}"
        common.remove_tree(home)
        url = f"redis://127.0.0.1:{port}/{n}"
        settings[n] = Settings(home=home, scan_paths=(root,), redis_url=url)
        env[n] = {"SOLOGRAPH_HOME": str(home), "CODEGRAPH_SCAN_PATH": str(root), "KB_PATH": "",
                  "SOLOGRAPH_REDIS_URL": url, "SOLOGRAPH_SCOPE": "", "SOLOGRAPH_TOKEN": ""}

    # The reference, in this process: what every spread scan must store.
    empty_store(settings[1])
    with common.timed() as one:
        scan_portfolio(settings[1])
    expected = fingerprint(settings[1].portfolio_db)
    log(f"one-process scan (no broker): {one.wall:.2f} s, {catalog['definitions']:,} "
        f"definitions generated, stored {expected}")

    ceilings = [machine_ceiling()]
    load_before = os.getloadavg()[0]
    times: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    embedding: dict[int, list[float]] = {}
    with process([redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                  "--appendonly", "no"], log_path=work / "redis.log"):
        wait_for_port(port)
        with worker_on(1, settings[1], env[1], "portfolio,scan", work / "worker-1.log") as w1, \
                worker_on(2, settings[2], env[2], "portfolio,scan", work / "worker-2.log") as w2:
            workers = {1: w1, 2: w2}
            for n in (1, 2):  # warm: each pool process loads its grammars once
                scan_round(n, settings[n], workers[n], expected=expected, label="warm-up")
            for i in range(args.rounds):
                for n in (1, 2) if i % 2 == 0 else (2, 1):
                    seconds, cpu = scan_round(n, settings[n], workers[n], expected=expected,
                                              label=f"round {i + 1}")
                    times[n].append(seconds)
                    cpus[n].append(cpu)
        if "embed_texts" in job_table() and semantic_available():
            texts = embed_texts_sample(EMBED_TEXTS, args.seed)
            embedding = {1: [], 2: []}
            with worker_on(1, settings[1], env[1], "embed", work / "embed-1.log"), \
                    worker_on(2, settings[2], env[2], "embed", work / "embed-2.log"):
                for n in (1, 2):  # load the model in every process
                    run_tasks(settings[n], texts[:EMBED_BATCH * 2 * n], EMBED_BATCH)
                for i in range(args.rounds):
                    for n in (1, 2) if i % 2 == 0 else (2, 1):
                        seconds = run_tasks(settings[n], texts, EMBED_BATCH)
                        embedding[n].append(len(texts) / seconds)
                        log(f"  embedding, {n} worker process(es), round {i + 1}: "
                            f"{seconds:.2f} s, {embedding[n][-1]:.1f} texts/s")
    load_after = os.getloadavg()[0]
    ceilings.append(machine_ceiling())
    for n in (1, 2):
        common.remove_tree(settings[n].home)

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
    if embedding:
        rates = {n: statistics.median(r) for n, r in embedding.items()}
        for n, samples in embedding.items():
            runs = ", ".join(f"{r:.1f}" for r in samples)
            print(f"embedding, {n} worker process(es): median {rates[n]:.1f} texts/s "
                  f"(runs: {runs}; {EMBED_TEXTS} texts in tasks of {EMBED_BATCH})")
        print(f"embedding speedup: {rates[2] / rates[1]:.2f}x (2 worker processes vs 1)")
    else:
        print("embedding throughput: not measured (no embed task, or the `semantic` extra "
              "is not installed)")
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
