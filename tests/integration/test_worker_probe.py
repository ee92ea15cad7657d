"""The worker's health probe under load: it reads the age of the heartbeat file the worker
writes after each heartbeat Redis took, so a broker that is slow or hung, and a machine too
busy for the probe to import Celery within its timeout, never fail a healthy worker.

Before, the probe did a Redis round trip after importing Celery (through `common.liveness`);
on a busy machine the worker's first probes timed out and the stack took 80 s to be healthy.
The real worker writes the file: test_lost_worker's probes of a live and a killed worker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solograph.config import Settings
from solograph_services.worker import probe
from tests.support import procs

TIMEOUT_S = 30


def run_probe(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solograph_services.worker.probe", "worker"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


def beat_file(home: Path) -> Path:
    import socket

    return probe.heartbeat_file(Settings(home=home), probe.worker_node(socket.gethostname()))


@pytest.mark.integration
def test_a_fresh_heartbeat_is_healthy_while_the_broker_hangs(tmp_path: Path):
    with procs.HungListener() as hung:
        env = {"SOLOGRAPH_HOME": str(tmp_path / "home"), "SOLOGRAPH_REDIS_URL": hung.url(),
               "SOLOGRAPH_WORKER_TIMEOUT_S": str(TIMEOUT_S)}
        missing = run_probe(env)
        assert missing.returncode == 1 and "no heartbeat from solograph@" in missing.stdout
        probe.touch(beat_file(tmp_path / "home"))
        started = time.monotonic()
        healthy = run_probe(env)
        took = time.monotonic() - started
        assert healthy.returncode == 0, healthy.stdout + healthy.stderr
        assert healthy.stdout.strip() == "ok"
        assert not hung.connections, "the worker probe asked the broker"
        print(f"probe took {took:.2f} s with the broker hung")
        # Older than the timeout: the worker stopped beating (or could not reach Redis).
        old = time.time() - TIMEOUT_S - 5
        os.utime(beat_file(tmp_path / "home"), (old, old))
        stale = run_probe(env)
        assert stale.returncode == 1 and "no heartbeat" in stale.stdout


def test_the_worker_probe_imports_neither_celery_nor_redis():
    code = ("import sys, solograph_services.worker.probe as p; "
            "print(sorted(m for m in ('celery', 'kombu', 'redis') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_each_node_has_its_own_file(tmp_path: Path):
    settings = Settings(home=tmp_path, worker_timeout_s=10)
    probe.touch(probe.heartbeat_file(settings, probe.worker_node("box-a")))
    assert probe.check_worker(settings, "box-a") is None
    assert "solograph@box-b" in probe.check_worker(settings, "box-b")
    later = time.time() + 11
    assert probe.check_worker(settings, "box-a", now=later) is not None
