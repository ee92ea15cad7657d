"""A job the broker forgot, for real: a redis-server started by the test, restarted with no
persistence under a real `solograph api` and a real `solograph worker`.

Before, a job waiting in its queue when Redis restarted answered PENDING for ever, as a job
still waiting does, and a finished job's result vanished with the restart. Now the ledger
(`common.ledger`, SQLite in the home) keeps what each job is and where it stands: the finished
job still answers SUCCESS with its result, the forgotten one answers `lost` with a hint to run
it again, and an id nobody submitted is still PENDING.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support import procs

TIMEOUT_S = 3
WAIT_S = 60


def call(method: str, url: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=b"" if method == "POST" else None, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def state_of(base: str, job: str) -> dict:
    code, body = call("GET", f"{base}/v1/jobs/{job}")
    assert code == 200, body
    return body


def until(base: str, job: str, states: tuple[str, ...]) -> dict:
    return procs.wait_for(f"job {job} never reached {states}", lambda: (
        s if (s := state_of(base, job))["state"] in states else None), WAIT_S, interval=0.1)


@pytest.mark.integration
def test_a_job_redis_forgot_is_lost_and_a_finished_one_keeps_its_result(tmp_path: Path, svc):
    svc.generate_project(tmp_path / "projects", "small", files=5)
    with procs.RedisServer(log=tmp_path / "redis.log") as server:
        home = svc.make_home(tmp_path, tmp_path / "projects", server.url())
        env = {"SOLOGRAPH_WORKER_TIMEOUT_S": str(TIMEOUT_S)}
        # The worker takes the portfolio queue only: a sessions job waits in its queue.
        with svc.api(home, extra_env=env) as (_api, base), \
                svc.worker(home, concurrency=1, queues="portfolio", extra_env=env):
            code, done = call("POST", f"{base}/v1/jobs/registry")
            assert code == 202, done
            finished = until(base, done["job"], ("SUCCESS", "FAILURE"))
            assert finished["state"] == "SUCCESS", finished
            code, waiting = call("POST", f"{base}/v1/jobs/sync-sessions")
            assert code == 202, waiting
            assert state_of(base, waiting["job"])["state"] == "PENDING"  # in its queue

            server.restart()  # an empty server: no queue, no result

            kept = procs.wait_for("the API never reached the restarted redis", lambda: (
                s if (s := call("GET", f"{base}/v1/jobs/{done['job']}"))[0] == 200 else None),
                WAIT_S, interval=0.1)[1]
            assert kept == finished  # from the ledger: the backend has nothing now
            lost = state_of(base, waiting["job"])
            assert lost["state"] == "lost", lost
            assert lost["job"] == "sync_sessions", lost
            assert lost["error"]["error"] == "lost"
            assert "run it again" in lost["hint"] and "/v1/jobs/sync-sessions" in lost["hint"]
            assert state_of(base, "0b7c-42")["state"] == "PENDING"  # never submitted

            code, again = call("POST", f"{base}/v1/jobs/registry")  # everything recovers
            assert code == 202, again
            assert until(base, again["job"], ("SUCCESS", "FAILURE"))["state"] == "SUCCESS"
