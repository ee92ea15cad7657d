"""A scan spread over the pool, for real: a worker's processes read batches of files on the `scan`
queue, one writer per project applies them, and the finishing step answers for the job. What it
stores is what a scan in one process stores, byte for byte.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import redis

from solograph.config import Settings
from solograph.portfolio.sync import RUN_KEYS, refresh_registry, scan_portfolio
from solograph_services.common.jobs import create_celery, submit
from solograph_services.worker import locks, writes
from tests.support.portfolio import make_portfolio, stored_definitions

BIG_FILES = 600  # three batches of files


def one_process_scan(base: Path, scan_path: Path) -> bytes:
    """The reference: `solograph scan` without a broker, over the same checkouts."""
    settings = Settings(home=base / "one-process", scan_paths=(scan_path,))
    refresh_registry(settings)
    scan_portfolio(settings)
    return stored_definitions(settings.portfolio_db)


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory, redis_url: str, svc) -> dict:
    base = tmp_path_factory.mktemp("pool")
    scan_path = make_portfolio(base)
    svc.generate_project(scan_path, "big", files=BIG_FILES)
    for i in range(4):
        svc.generate_project(scan_path, f"small{i}", files=3 + i)
    home = svc.make_home(base, scan_path, svc.with_db(redis_url, svc.DB["pool"]))
    return {"base": base, "home": home, "reference": one_process_scan(base, scan_path)}


@pytest.mark.integration
def test_a_spread_scan_stores_what_a_one_process_scan_stores(pool: dict, svc):
    home = pool["home"]
    celery = create_celery(home.settings)
    try:
        with svc.worker(home, concurrency=2):
            status = svc.wait_for_job(celery, submit(celery, "scan", registry=True), timeout=120)
            assert status["state"] == "SUCCESS", status
            assert status["job"] == "scan"
            result = status["result"]
            assert result["failed"] == [] and result["missing"] == []
            assert list(result) == ["registry", "projects", "failed", "missing"]
            assert all(tuple(run) == RUN_KEYS for run in result["projects"])
            runs = {run["project"]: run for run in result["projects"]}
            assert set(runs) >= {"web-app", "py-service", "big", "small0", "small3"}
            assert runs["big"]["report"]["parsed"] == BIG_FILES
            assert all(run["read_by"] for name, run in runs.items() if run["report"]["parsed"])
            assert stored_definitions(home.settings.portfolio_db) == pool["reference"]

            again = svc.wait_for_job(celery, submit(celery, "scan", registry=False))
        assert again["state"] == "SUCCESS", again
        reports = [run["report"] for run in again["result"]["projects"]]
        assert sum(r["parsed"] for r in reports) == 0
        assert sum(r["unchanged"] for r in reports) == sum(r["files"] for r in reports) > 0
        assert stored_definitions(home.settings.portfolio_db) == pool["reference"]
    finally:
        celery.close()


@pytest.mark.integration
def test_a_spread_scan_reports_progress_and_keeps_the_job_id(pool: dict, svc, tmp_path: Path):
    """While it runs the job is PROGRESS with projects and files done of total; an unknown
    project fails the job before anything is read."""
    home = svc.make_home(tmp_path, pool["home"].scan_path,
                         svc.with_db(pool["home"].redis_url, svc.DB["pool"]))
    gone = pool["home"].scan_path / "gone"
    svc.generate_project(pool["home"].scan_path, "gone", files=1)
    celery = create_celery(home.settings)
    seen: list[dict] = []
    try:
        with svc.worker(home, concurrency=1):
            job = submit(celery, "scan", registry=True)
            status = svc.wait_for_job(celery, job, timeout=120, until=("SUCCESS", "FAILURE",
                                                                        "PROGRESS"))
            while status["state"] == "PROGRESS":
                seen.append(status["progress"])
                status = svc.wait_for_job(celery, job, timeout=120)
            assert status["state"] == "SUCCESS", status
            shutil.rmtree(gone)
            bad = svc.wait_for_job(celery, submit(celery, "scan", projects=["nope"],
                                                  registry=False))
            # A scope of projects whose checkouts are all gone: nothing to read or write.
            empty = svc.wait_for_job(celery, submit(celery, "scan", projects=["gone"],
                                                    registry=False))
        assert seen, "the job was never seen in progress"
        last = seen[-1]
        assert set(last) >= {"project", "done", "total", "projects_done", "projects"}
        assert 0 <= last["done"] <= last["total"] and last["projects_done"] <= last["projects"]
        assert bad["state"] == "FAILURE" and bad["error"]["error"] == "unknown_project"
        assert empty["state"] == "SUCCESS", empty
        assert (empty["result"]["projects"], empty["result"]["missing"]) == ([], ["gone"])
        conn = sqlite3.connect(home.settings.portfolio_db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            conn.close()
    finally:
        celery.close()


@pytest.mark.integration
def test_the_write_queue_has_one_writer_and_keeps_a_failed_write_first(redis_url: str, svc):
    client = redis.Redis.from_url(svc.with_db(redis_url, svc.DB["pool"]))
    store = "write-queue-test"
    applied: list[int] = []
    try:
        client.delete(writes.PENDING + store)
        for n in range(3):
            writes.offer(client, store, {"n": n})
        with locks.hold(client, locks.store_lock(store), owner="another-writer"):
            # The lock is held: the write waits for its holder, this call returns at once.
            assert writes.drain(client, store, lambda w: applied.append(w["n"]),
                                owner="me") == 0
        assert applied == []

        def fail_on_one(write: dict) -> None:
            if write["n"] == 1:
                raise RuntimeError("the store went away")
            applied.append(write["n"])
        with pytest.raises(RuntimeError):
            writes.drain(client, store, fail_on_one, owner="me")
        assert applied == [0] and client.llen(writes.PENDING + store) == 2  # 1 is still first
        assert writes.drain(client, store, lambda w: applied.append(w["n"]), owner="me") == 2
        assert applied == [0, 1, 2] and client.llen(writes.PENDING + store) == 0
    finally:
        client.delete(writes.PENDING + store)
        client.close()
