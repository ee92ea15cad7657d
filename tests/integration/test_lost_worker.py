"""A worker killed outright, for real: `solograph worker` processes on a real redis-server,
killed with SIGKILL (the whole process group, as `docker kill` or the OOM killer on the main
process would), with SOLOGRAPH_WORKER_TIMEOUT_S set short.

Before, its started scan stayed PROGRESS and its message waited in Redis for the visibility
timeout (6 h), then ran again. Now the API reports it failed (`worker_lost`) once the worker has
been silent for the timeout, a job it held unstarted is back in its queue, /health says no worker
is alive, and a worker restarting under the same node name settles its predecessor's jobs at
once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from solograph_services.common import liveness
from solograph_services.common.jobs import create_celery, job_table, submit
from tests.support import procs

TIMEOUT_S = 3
WAIT_S = 20 * TIMEOUT_S  # generous: the machine is shared


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def wait_for(what: str, check, timeout: float = WAIT_S):
    return procs.wait_for(what, check, timeout, interval=0.05)


@pytest.fixture
def lost(tmp_path: Path, redis_url: str, svc) -> Iterator[dict]:
    """A home with three projects big enough for a scan to be caught mid-way, its own Redis
    database emptied before and after (only queues, results and records of this test)."""
    scan_path = tmp_path / "projects"
    for name in ("big0", "big1", "big2"):
        svc.generate_project(scan_path, name, files=1500)
    home = svc.make_home(tmp_path, scan_path, svc.with_db(redis_url, svc.DB["lost"]))
    client = redis.Redis.from_url(home.redis_url)
    client.flushdb()
    celery = create_celery(home.settings)
    try:
        yield {"home": home, "client": client, "celery": celery,
               "env": {"SOLOGRAPH_WORKER_TIMEOUT_S": str(TIMEOUT_S)}}
    finally:
        celery.close()
        client.flushdb()
        client.close()


def probe(env: dict[str, str]) -> subprocess.CompletedProcess:
    """The worker container's health check, as compose runs it."""
    return subprocess.run([sys.executable, "-m", "solograph_services.worker.probe", "worker"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


def kill(proc) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def caught_scanning(celery, job_id: str) -> dict:
    return wait_for("the scan never reported progress", lambda: (
        info if isinstance(info := celery.AsyncResult(job_id).info, dict) and info.get("project")
        else None))


@pytest.mark.integration
def test_a_killed_workers_started_job_is_reported_failed_and_never_reruns(lost: dict, svc):
    home, client, celery = lost["home"], lost["client"], lost["celery"]
    with svc.api(home, extra_env=lost["env"]) as (_api, base):
        with svc.worker(home, concurrency=1, log_name="doomed.log", extra_env=lost["env"]) as w:
            code, health = get(f"{base}/health")
            assert health["workers"]["alive"] == 1, health
            env = {**home.env, **lost["env"]}
            assert probe(env).returncode == 0
            # The nightly refresh scans in one task (a spread scan's parts are requeued
            # instead: test_pool_faults).
            job = submit(celery, "nightly")
            caught_scanning(celery, job)
            assert client.hget(liveness.JOBS, job) is not None  # recorded when received
            assert client.hlen("unacked") == 1  # acks_late: the message waits for the end
            kill(w)
        status = wait_for("the job was never reported failed", lambda: (
            s if (s := get(f"{base}/v1/jobs/{job}")[1])["state"] == "FAILURE" else None))
        assert status["job"] == "nightly"
        assert status["error"]["error"] == "worker_lost", status
        assert "stopped before it finished" in status["error"]["message"]
        # Its message is gone, not waiting six hours to run the scan again.
        assert client.hlen("unacked") == 0 and client.llen("portfolio") == 0
        assert client.hget(liveness.JOBS, job) is None
        code, health = get(f"{base}/health")
        assert (code, health["workers"]) == (200, {"alive": 0, "names": []}), health
        assert any("no worker is alive" in w for w in health["warnings"])
        dead = probe(env)
        assert dead.returncode == 1 and "no heartbeat from solograph@" in dead.stdout

        with svc.worker(home, concurrency=1, log_name="fresh.log", extra_env=lost["env"]):
            again = svc.wait_for_job(celery, submit(celery, "scan", projects=["big0"],
                                                    registry=False))
            assert again["state"] == "SUCCESS", again
            assert get(f"{base}/v1/jobs/{job}")[1]["state"] == "FAILURE"  # not re-run
            assert get(f"{base}/health")[1]["workers"]["alive"] == 1


@pytest.mark.integration
def test_a_job_a_killed_worker_held_unstarted_goes_back_to_its_queue(lost: dict, svc):
    home, client, celery = lost["home"], lost["client"], lost["celery"]
    with svc.api(home, extra_env=lost["env"]) as (_api, base):
        with svc.worker(home, concurrency=1, log_name="doomed.log", extra_env=lost["env"]) as w:
            # A job the worker received and holds until its countdown: started nowhere.
            spec = job_table()["registry"]
            job = celery.send_task(spec.task, queue=spec.queue, countdown=600).id
            wait_for("the worker never received the job",
                     lambda: client.hget(liveness.JOBS, job))
            kill(w)
        # Each poll asks the API, which settles the job once its worker is silent too long.
        status = wait_for("the job was never put back", lambda: (
            s if (s := get(f"{base}/v1/jobs/{job}")[1])["state"] == "PENDING"
            and client.llen("portfolio") == 1 else None))
        assert status["state"] == "PENDING"
        assert client.hlen("unacked") == 0 and client.hget(liveness.JOBS, job) is None


@pytest.mark.integration
def test_a_restarted_worker_settles_its_predecessors_jobs_at_once(lost: dict, svc):
    """Under the same node name (a restarted container): no waiting out the timeout, and no
    API call needed; the new worker's first heartbeat does it."""
    home, client, celery = lost["home"], lost["client"], lost["celery"]
    env = {"SOLOGRAPH_WORKER_TIMEOUT_S": "3600"}
    with svc.worker(home, concurrency=1, log_name="doomed.log", extra_env=env) as w:
        job = submit(celery, "nightly")
        caught_scanning(celery, job)
        kill(w)
    assert celery.AsyncResult(job).state == "PROGRESS"
    with svc.worker(home, concurrency=1, log_name="fresh.log", extra_env=env):
        wait_for("the new worker did not settle the job",
                 lambda: celery.AsyncResult(job).state == "FAILURE", timeout=30)
        assert client.hlen("unacked") == 0
        assert len(liveness.alive(client, timeout=3600)) == 1
    log = (home.logs / "fresh.log").read_text(errors="replace")
    assert "earlier runs of this worker are gone" in log


@pytest.mark.integration
def test_a_worker_stopped_cleanly_leaves_no_records_and_counts_out_at_once(lost: dict, svc):
    home, client, celery = lost["home"], lost["client"], lost["celery"]
    env = {"SOLOGRAPH_WORKER_TIMEOUT_S": "3600"}  # nothing here may wait for the timeout
    with svc.worker(home, concurrency=1, log_name="stopped.log", extra_env=env):
        spec = job_table()["registry"]
        job = celery.send_task(spec.task, queue=spec.queue, countdown=600).id
        wait_for("the worker never received the job", lambda: client.hget(liveness.JOBS, job))
        assert len(liveness.alive(client, timeout=3600)) == 1
    # SIGTERM: Celery's warm shutdown; kombu puts the held job back, the worker leaves.
    assert liveness.alive(client, timeout=3600) == []
    assert client.hlen(liveness.JOBS) == 0
    assert client.llen("portfolio") == 1 and client.hlen("unacked") == 0


def test_the_probe_looks_for_the_node_name_the_worker_runs_under():
    from celery.utils.nodenames import host_format

    from solograph_services.worker.app import NODE_NAME, node_name
    from solograph_services.worker.probe import worker_node

    assert worker_node("box.example") == host_format(NODE_NAME, host="box.example")
    assert worker_node("box.example", "embedder") == host_format(node_name(["embed"]),
                                                                 host="box.example")
    assert node_name(["embed", "scan"]) == NODE_NAME
