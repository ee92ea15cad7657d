"""A spread scan under faults, for real: a worker killed outright mid-read (the whole process
group, as `docker kill` or a lost host), one pool process killed mid-read (the OOM killer), and
Redis restarted empty mid-job.

A read or a write is safe to repeat, so a lost one goes back to its queue: the job finishes on
another worker, and what it stores is what a scan in one process stores, byte for byte. Redis
keeps nothing across a restart, the job with it: its state is forgotten, each project is
written whole or not at all, and the next scan reads only what was not written (nothing twice).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
import redis

from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph_services.common import liveness
from solograph_services.common.jobs import SCAN_PARTS, create_celery, submit
from tests.support import hosts, procs
from tests.support.portfolio import stored_definitions

FILES = 1500  # per project: six batches each
PROJECTS = ("gen0", "gen1", "gen2")
TIMEOUT_S = "3"  # SOLOGRAPH_WORKER_TIMEOUT_S: a silent worker is taken for dead this soon
WAIT_S = 120.0  # generous: the machine is shared


def wait_for(what: str, check, timeout: float = WAIT_S):
    return procs.wait_for(what, check, timeout, interval=0.02)


@pytest.fixture(scope="module")
def portfolio(tmp_path_factory: pytest.TempPathFactory, svc) -> dict:
    base = tmp_path_factory.mktemp("faults")
    scan_path = base / "projects"
    for name in PROJECTS:
        svc.generate_project(scan_path, name, files=FILES)
    reference = Settings(home=base / "one-process", scan_paths=(scan_path,))
    refresh_registry(reference)
    scan_portfolio(reference)
    return {"scan_path": scan_path, "reference": stored_definitions(reference.portfolio_db)}


@pytest.fixture
def home(tmp_path: Path, portfolio: dict, redis_url: str, svc):
    home = svc.make_home(tmp_path, portfolio["scan_path"],
                         svc.with_db(redis_url, svc.DB["pool_faults"]))
    client = redis.Redis.from_url(home.redis_url)
    client.flushdb()  # only this test's database
    yield home
    client.flushdb()
    client.close()


def started_read(client: redis.Redis, celery, node: str | None = None) -> str | None:
    """A read of a spread scan that a worker (of `node`, when given) is running now."""
    for raw_id, raw in client.hgetall(liveness.JOBS).items():
        entry, task_id = json.loads(raw), raw_id.decode()
        if node and liveness.node_of(entry["worker"]) != node:
            continue
        result = celery.AsyncResult(task_id)
        if result.name == SCAN_PARTS["read"].task and result.state == "STARTED":
            return task_id
    return None


def idle(celery) -> bool:
    """Every worker answers, and none is running anything."""
    try:
        active = celery.control.inspect(timeout=1).active()
    except (redis.RedisError, OSError):
        return False
    return bool(active) and not any(active.values())


class Quiet:
    """Whether nothing has moved for `seconds`: no line in the worker's log (Celery logs each
    task it receives and ends at INFO), no change to the store's files. The fallback for a
    worker that has stopped answering remote control, which a Redis restart can leave it."""

    def __init__(self, log: Path, db: Path, seconds: float) -> None:
        self.paths = (log, db, db.with_name(db.name + "-wal"))
        self.seconds = seconds
        self.seen: tuple = ()
        self.since = time.monotonic()

    def __call__(self) -> bool:
        now = tuple((p.stat().st_size, p.stat().st_mtime_ns) if p.exists() else None
                    for p in self.paths)
        if now != self.seen:
            self.seen, self.since = now, time.monotonic()
        return time.monotonic() - self.since >= self.seconds


def settled(celery, quiet: Quiet, deaf_after: float, started: float) -> bool:
    """Idle by the worker's own word; past `deaf_after` seconds without its answer, by a
    long stillness instead."""
    if idle(celery):
        return True
    return time.monotonic() - started >= deaf_after and quiet()


def consistent(db: Path) -> dict[str, tuple[int, int]]:
    """Integrity checked; then each project's (files, definitions)."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('integrity-check')")
        return {name: (files, symbols) for name, files, symbols in conn.execute(
            "SELECT p.name, (SELECT COUNT(*) FROM files WHERE project_id = p.id), "
            "(SELECT COUNT(*) FROM symbols WHERE project_id = p.id) FROM projects p")}
    finally:
        conn.close()


@pytest.mark.integration
@pytest.mark.skipif(hosts.uts_reason() is not None, reason=str(hosts.uts_reason()))
def test_a_worker_killed_mid_read_leaves_its_job_to_another(home, portfolio: dict, svc):
    env = {"SOLOGRAPH_WORKER_TIMEOUT_S": TIMEOUT_S}
    celery = create_celery(home.settings)
    client = redis.Redis.from_url(home.redis_url)
    try:
        with svc.worker(home, concurrency=1, hostname="beta", extra_env=env,
                        log_name="beta.log"):
            with svc.worker(home, concurrency=1, hostname="alpha", extra_env=env,
                            log_name="alpha.log") as alpha:
                job = submit(celery, "scan", registry=True)
                killed = wait_for("alpha never ran a read",
                                  lambda: started_read(client, celery, "solograph@alpha"))
                os.killpg(alpha.pid, signal.SIGKILL)
                alpha.wait(timeout=10)
            # beta's heartbeat finds alpha silent and puts its reads back in their queue.
            status = svc.wait_for_job(celery, job, timeout=WAIT_S)
        assert status["state"] == "SUCCESS", status
        result = status["result"]
        assert result["failed"] == []
        assert {run["project"] for run in result["projects"]} == set(PROJECTS)
        assert "solograph@beta" in {h for run in result["projects"] for h in run["read_by"]}
        assert celery.AsyncResult(killed).state == "SUCCESS"  # run again, by beta
        assert consistent(home.settings.portfolio_db) == {
            n: (FILES, FILES * 8) for n in PROJECTS}
        assert stored_definitions(home.settings.portfolio_db) == portfolio["reference"]
        assert "requeued" in (home.logs / "beta.log").read_text(errors="replace")
    finally:
        client.close()
        celery.close()


def pool_children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True,
                         text=True, check=False).stdout
    return [int(p) for p in out.split()]


@pytest.mark.integration
def test_a_pool_process_killed_mid_read_is_replaced_and_its_read_rerun(home, portfolio: dict,
                                                                        svc):
    celery = create_celery(home.settings)
    client = redis.Redis.from_url(home.redis_url)
    try:
        with svc.worker(home, concurrency=1) as worker:
            job = submit(celery, "scan", registry=True)
            killed = wait_for("no read ever ran", lambda: started_read(client, celery))
            children = pool_children(worker.pid)
            assert len(children) == 1, children
            os.kill(children[0], signal.SIGKILL)
            status = svc.wait_for_job(celery, job, timeout=WAIT_S)
            assert worker.poll() is None
        assert status["state"] == "SUCCESS", status
        assert status["result"]["failed"] == []
        assert celery.AsyncResult(killed).state == "SUCCESS"
        assert stored_definitions(home.settings.portfolio_db) == portfolio["reference"]
    finally:
        client.close()
        celery.close()


@pytest.mark.integration
def test_redis_restarted_mid_job_loses_the_job_and_writes_nothing_twice(
        tmp_path: Path, portfolio: dict, svc):
    with procs.RedisServer(log=tmp_path / "redis.log") as server:
        home = svc.make_home(tmp_path, portfolio["scan_path"], server.url())
        celery = create_celery(home.settings)
        client = redis.Redis.from_url(server.url())
        try:
            with svc.worker(home, concurrency=2) as worker:
                job = submit(celery, "scan", registry=True)
                wait_for("no read ever ran", lambda: started_read(client, celery))
                server.restart()
                celery.close()
                celery = create_celery(home.settings)  # a client's connection does not retry
                # What was running finishes; what waited in Redis is gone with the job.
                quiet = Quiet(home.logs / "worker.log", home.settings.portfolio_db, 20.0)
                started = time.monotonic()
                try:
                    wait_for("the worker never went idle", lambda: settled(
                        celery, quiet, 60.0, started) and (time.sleep(1) or idle(celery)
                                                           or quiet()))
                except AssertionError as exc:  # what the worker was doing says why
                    raise AssertionError(f"{exc}\n{svc.show_log(home.logs / 'worker.log')}"
                                         ) from None
                assert worker.poll() is None
                assert celery.AsyncResult(job).state == "PENDING"  # forgotten, not stuck
                before = consistent(home.settings.portfolio_db)
                for name, counts in before.items():  # each project whole or not at all
                    assert counts in ((0, 0), (FILES, FILES * 8)), (name, before)
                written = sum(files for files, _ in before.values())

                again = svc.wait_for_job(celery, submit(celery, "scan", registry=True),
                                         timeout=WAIT_S)
                assert again["state"] == "SUCCESS", again
            reports = [run["report"] for run in again["result"]["projects"]]
            # Nothing the first job wrote is written again.
            assert sum(r["parsed"] for r in reports) == len(PROJECTS) * FILES - written
            assert stored_definitions(home.settings.portfolio_db) == portfolio["reference"]
        finally:
            client.close()
            celery.close()
