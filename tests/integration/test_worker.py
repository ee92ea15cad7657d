"""The worker pool for real: `solograph worker` and `solograph api` subprocesses on a real
redis-server, jobs submitted over HTTP, scans serialised by their project lock, a worker killed
mid-scan, and beat's single-instance lock.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from celery.schedules import crontab

from solograph import reads
from solograph.config import Settings
from solograph.errors import ConfigError
from solograph.portfolio.sync import RUN_KEYS
from solograph_services.common.jobs import create_celery, submit
from solograph_services.worker import locks
from solograph_services.worker.app import beat_schedule
from solograph_services.worker.context import transient as _transient
from solograph_services.worker.tasks import run_scan
from tests.support import procs
from tests.support.portfolio import make_portfolio


def http(method: str, url: str, body: dict | None = None) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def wait_http_job(base: str, job_id: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    status: dict = {}
    while time.monotonic() < deadline:
        code, body = http("GET", f"{base}/v1/jobs/{job_id}")
        assert code == 200, body
        status = json.loads(body)
        if status["state"] in ("SUCCESS", "FAILURE"):
            return status
        time.sleep(0.05)
    raise TimeoutError(f"job {job_id} still {status.get('state')} after {timeout}s")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, redis_url: str, svc) -> Iterator[dict]:
    """A worker (two processes) and an API over one home and the fixture portfolio."""
    base = tmp_path_factory.mktemp("stack")
    home = svc.make_home(base, make_portfolio(base), svc.with_db(redis_url, svc.DB["stack"]))
    celery = create_celery(home.settings)
    try:
        with svc.worker(home, concurrency=2) as worker, svc.api(home) as (api, url):
            yield {"home": home, "celery": celery, "url": url, "worker": worker, "api": api}
    except BaseException:
        print(svc.show_log(home.logs / "worker.log"))
        raise
    finally:
        celery.close()


@pytest.mark.integration
def test_scan_submitted_over_http_runs_on_the_worker_and_is_searchable(stack: dict):
    base, settings = stack["url"], stack["home"].settings
    code, body = http("POST", f"{base}/v1/jobs/scan", {"registry": True})
    assert code == 202, body
    queued = json.loads(body)
    assert queued["queue"] == "portfolio"
    status = wait_http_job(base, queued["job"])
    assert status["state"] == "SUCCESS", status
    assert status["job"] == "scan"
    result = status["result"]
    assert set(result["registry"]["added"]) >= {"web-app", "py-service", "native-tools"}
    assert {p["project"] for p in result["projects"]} >= {"web-app", "py-service"}

    for query, project in (("auth middleware", None), ("escape", "py-service")):
        url = f"{base}/v1/symbols?q={urllib.parse.quote(query)}"
        url += f"&project={project}" if project else ""
        code, body = http("GET", url)
        assert code == 200
        assert body == reads.to_json(reads.symbol_search(settings, query,
                                                         project=project)).encode()
    assert b"AuthMiddleware" in body or b"escape" in body
    code, body = http("GET", f"{base}/v1/project_info?action=stats")
    assert body == reads.to_json(reads.project_info(settings, "stats")).encode()


@pytest.mark.integration
def test_two_scans_of_one_project_run_one_after_the_other(stack: dict, svc):
    """Their writes never interleave (the project's lock), and the second writes nothing: it
    finds every file as the first wrote it, whether it read them before or after."""
    home, celery = stack["home"], stack["celery"]
    expected = svc.generate_project(home.scan_path, "bulk", files=1500)
    registered = svc.wait_for_job(celery, submit(celery, "registry"))
    assert "bulk" in registered["result"]["added"], registered
    # Without the registry merge both jobs reach the project lock within milliseconds.
    jobs = [submit(celery, "scan", projects=["bulk"], registry=False) for _ in range(2)]
    results = [svc.wait_for_job(celery, j)["result"] for j in jobs]
    runs = sorted((r["projects"][0] for r in results), key=lambda run: run["started"])
    first, second = runs
    assert first["project"] == second["project"] == "bulk"
    assert first["finished"] <= second["started"], runs  # never interleaved
    assert first["report"]["parsed"] == 1500
    assert second["report"]["unchanged"] == 1500 and second["report"]["parsed"] == 0
    conn = sqlite3.connect(home.settings.portfolio_db)
    try:
        (count,) = conn.execute("SELECT COUNT(*) FROM symbols s JOIN projects p "
                                "ON p.id = s.project_id WHERE p.name = 'bulk'").fetchone()
    finally:
        conn.close()
    assert count == expected


@pytest.mark.integration
def test_sessions_sync_runs_on_its_queue_and_kb_without_a_folder_fails_clearly(
        stack: dict, svc):
    synced = svc.wait_for_job(stack["celery"], submit(stack["celery"], "sync_sessions"))
    assert synced["state"] == "SUCCESS", synced
    assert (synced["result"]["sessions"], synced["result"]["messages"]) == (1, 2)
    kb = svc.wait_for_job(stack["celery"], submit(stack["celery"], "index_kb"))
    assert kb["state"] == "FAILURE"  # no KB_PATH in this home
    assert kb["error"]["error"] in ("not_indexed", "config_error")
    assert "Traceback" not in json.dumps(kb)


@pytest.mark.integration
def test_unknown_project_fails_the_job_not_the_worker(stack: dict, svc):
    status = svc.wait_for_job(stack["celery"],
                              submit(stack["celery"], "scan", projects=["nope"], registry=False))
    assert status["state"] == "FAILURE"
    assert status["error"] == {"error": "unknown_project",
                               "message": "project 'nope' is not in the registry"}
    assert stack["worker"].poll() is None


@pytest.mark.integration
def test_cli_queued_scan_and_the_nightly_job_run_on_the_worker(stack: dict, svc):
    home, celery = stack["home"], stack["celery"]
    run = subprocess.run(procs.solograph_cmd("scan", "--queue", "--json", "-p", "web-app"),
                         env={**os.environ, **home.env}, capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 0, run.stderr
    queued = json.loads(run.stdout)
    assert queued["queued"] == "scan"
    status = svc.wait_for_job(celery, queued["job"])
    assert status["state"] == "SUCCESS", status
    assert status["result"]["registry"] is None  # naming a project skips the registry merge
    assert [p["project"] for p in status["result"]["projects"]] == ["web-app"]

    nightly = svc.wait_for_job(celery, submit(celery, "nightly"))
    assert nightly["state"] == "SUCCESS", nightly
    assert nightly["result"]["scan"]["registry"] is not None
    # The same steps as `solograph refresh`: the sessions sync ran in it, under its lock.
    assert "sessions" in nightly["result"]["sessions"]
    assert nightly["result"]["sessions"]["summary"] in nightly["result"]["summary"]


def test_only_transient_faults_are_retried():
    assert _transient(sqlite3.OperationalError("database is locked"))
    assert _transient(redis.exceptions.ConnectionError("Connection refused"))
    assert not _transient(sqlite3.OperationalError("no such table: symbols"))
    assert not _transient(ConfigError("bad setting"))


def _counts(db: Path) -> dict[str, tuple[int, int, float | None]]:
    conn = sqlite3.connect(db)
    try:
        return {name: (files, symbols, scanned) for name, files, symbols, scanned in conn.execute(
            "SELECT p.name, (SELECT COUNT(*) FROM files WHERE project_id = p.id), "
            "(SELECT COUNT(*) FROM symbols WHERE project_id = p.id), p.scanned_at "
            "FROM projects p")}
    finally:
        conn.close()


def _integrity(db: Path) -> tuple[str, str]:
    conn = sqlite3.connect(db)
    try:
        (check,) = conn.execute("PRAGMA integrity_check").fetchone()
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('integrity-check')")
        return check, "ok"
    except sqlite3.DatabaseError as exc:
        return "failed", str(exc)
    finally:
        conn.close()


@pytest.mark.integration
def test_worker_killed_mid_scan_leaves_a_consistent_index(tmp_path: Path, redis_url: str, svc):
    scan_path = tmp_path / "projects"
    names = ["gen0", "gen1", "gen2"]
    per_project = {n: svc.generate_project(scan_path, n, files=1500) for n in names}
    home = svc.make_home(tmp_path, scan_path, svc.with_db(redis_url, svc.DB["crash"]))
    celery = create_celery(home.settings)
    try:
        with svc.worker(home, concurrency=1, log_name="doomed.log") as doomed:
            job = submit(celery, "scan", registry=True)
            # Kill once the second project is being read: the first is committed by then.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                status = celery.AsyncResult(job).info
                if isinstance(status, dict) and status.get("project") == "gen1":
                    break
                time.sleep(0.01)
            else:
                pytest.fail("the scan never reached the second project")
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait(timeout=10)

        assert _integrity(home.settings.portfolio_db) == ("ok", "ok")
        counts = _counts(home.settings.portfolio_db)
        assert set(counts) == set(names)
        for name, (files, symbols, scanned) in counts.items():
            # Each project is all there or not there at all.
            assert (files, symbols, scanned is not None) in (
                (1500, per_project[name], True), (0, 0, False)), (name, counts[name])
        assert counts["gen0"][0] == 1500 and counts["gen2"][0] == 0

        with svc.worker(home, concurrency=1, log_name="fresh.log"):
            status = svc.wait_for_job(celery, submit(celery, "scan", registry=True))
        assert status["state"] == "SUCCESS", status
        runs = {run["project"]: run for run in status["result"]["projects"]}
        # The dead worker's lock on gen1 was dropped when a worker of that name came back.
        assert runs["gen1"]["waited_s"] < 5
        assert runs["gen0"]["report"]["unchanged"] == 1500
        assert _integrity(home.settings.portfolio_db) == ("ok", "ok")
        assert {n: c[:2] for n, c in _counts(home.settings.portfolio_db).items()} == {
            n: (1500, per_project[n]) for n in names}
        hit = reads.symbol_search(home.settings, "handler_gen2_1499_6", limit=1)["results"]
        assert hit and hit[0]["name"] == "handler_gen2_1499_6"
    finally:
        celery.close()


@pytest.mark.integration
def test_run_scan_without_celery_takes_the_same_locks(tmp_path: Path, redis_url: str, svc):
    settings = Settings(home=tmp_path / "home", scan_paths=(make_portfolio(tmp_path),),
                        redis_url=svc.with_db(redis_url, svc.DB["locks"]))
    client = redis.Redis.from_url(settings.redis_url)
    try:
        with locks.hold(client, locks.project_lock("web-app"), owner="someone-else"), \
                pytest.raises(locks.LockTimeout), \
                locks.hold(client, locks.project_lock("web-app"), owner="me", wait=None):
            pass
        out = run_scan(settings, client, owner="test", projects=["web-app"])
        assert [p["project"] for p in out["projects"]] == ["web-app"]
        # The shape of a spread scan's result: one shape, made by portfolio.sync.
        assert list(out) == ["registry", "projects", "failed", "missing"] and out["failed"] == []
        assert tuple(out["projects"][0]) == RUN_KEYS and out["projects"][0]["read_by"] == ["test"]
        assert out["projects"][0]["waited_s"] < 1
        assert client.get(locks.PREFIX + locks.project_lock("web-app")) is None
    finally:
        client.close()


@pytest.mark.integration
def test_drop_owned_drops_only_that_owners_locks(redis_url: str, svc):
    client = redis.Redis.from_url(svc.with_db(redis_url, svc.DB["locks"]))
    try:
        with locks.hold(client, "scan:mine", owner="solograph@box"), \
                locks.hold(client, "scan:theirs", owner="solograph@other"):
            assert locks.drop_owned(client, "solograph@box") == ["scan:mine"]
            assert client.get(locks.PREFIX + "scan:mine") is None
            assert client.get(locks.PREFIX + "scan:theirs") is not None
    finally:
        client.close()


def test_beat_schedule_has_the_nightly_refresh_at_the_configured_hour(settings: Settings):
    entry = beat_schedule(settings.with_(nightly_hour=3))["nightly-refresh"]
    assert entry["task"] == "solograph.nightly"
    assert entry["options"] == {"queue": "portfolio"}
    assert entry["schedule"] == crontab(hour=3, minute=0)
    assert entry["schedule"].hour == {3} and entry["schedule"].minute == {0}


@pytest.mark.integration
def test_single_beat_lock_refuses_a_second_holder(redis_url: str, svc):
    client = redis.Redis.from_url(svc.with_db(redis_url, svc.DB["locks"]))
    try:
        with locks.single_beat(client, owner="first"), \
                pytest.raises(ConfigError, match="another beat"), \
                locks.single_beat(client, owner="second"):
            pass
        with locks.single_beat(client, owner="third"):  # released when the first stopped
            pass
    finally:
        client.close()


@pytest.mark.integration
def test_a_second_beat_process_refuses_to_start(tmp_path: Path, redis_url: str, svc):
    home = svc.make_home(tmp_path, tmp_path / "projects", svc.with_db(redis_url, svc.DB["beat"]))
    client = redis.Redis.from_url(home.redis_url)
    key = locks.PREFIX + locks.BEAT_LOCK
    try:
        with procs.process(procs.solograph_cmd("beat"), env=home.env,
                           log=home.logs / "beat.log") as first:
            deadline = time.monotonic() + 20
            while client.get(key) is None:
                assert first.poll() is None, svc.show_log(home.logs / "beat.log")
                assert time.monotonic() < deadline, "beat never took its lock"
                time.sleep(0.05)
            second = subprocess.run(procs.solograph_cmd("beat"), env={**os.environ, **home.env},
                                    capture_output=True, text=True, timeout=30)
            assert second.returncode != 0
            assert "another beat is already running" in second.stderr
            assert "Traceback" not in second.stderr
            assert first.poll() is None  # the first keeps running
        assert client.get(key) is None  # a beat stopped with SIGTERM lets go of its lock
        assert (home.home / "celerybeat-schedule").exists() or any(
            p.name.startswith("celerybeat-schedule") for p in home.home.iterdir())
    finally:
        client.close()
