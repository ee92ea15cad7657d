"""Real processes for the service tests: one redis-server per session, workers and APIs per test.

Each module keeps to its own Redis database number, so queues, results and locks never mix and
nothing is ever flushed on a server we did not start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit, urlunsplit

import pytest
from celery.utils.nodenames import host_format

from solograph.config import Settings
from solograph_services.common.jobs import create_celery, job_status
from solograph_services.worker.app import node_name
from tests.support import hosts, procs
from tests.support.transcripts import Transcripts

# Database numbers by user: test_api 5, the worker stack 6, the crash test 7, beat 8, locks 9,
# the hand-over of unfinished search syncs 10, broker faults 11, lost workers 12, the spread
# scan 13 and its faults 14, the meaning lane's embed chain 15, the HTTP fuzzing 4.
DB = {"api": 5, "stack": 6, "crash": 7, "beat": 8, "locks": 9, "handoff": 10, "faults": 11,
      "lost": 12, "pool": 13, "pool_faults": 14, "embed": 15, "fuzz": 4}


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """REDIS_URL, else a private redis-server. Without either the tests that need a broker
    are skipped with the reason, unless SOLOGRAPH_REQUIRE_REDIS is set (CI sets it, so a
    missing server fails the run instead of hiding tests)."""
    if not os.environ.get("REDIS_URL") and not shutil.which("redis-server"):
        if os.environ.get("SOLOGRAPH_REQUIRE_REDIS"):
            pytest.fail("redis-server is not installed and REDIS_URL is unset")
        pytest.skip("needs redis-server (apt-get install redis-server) or REDIS_URL")
    with procs.redis_server() as url:
        yield url


def with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


@dataclass
class Home:
    """One solograph installation: its home, scan path and broker, as env and as Settings."""

    home: Path
    scan_path: Path
    redis_url: str
    logs: Path

    @property
    def env(self) -> dict[str, str]:
        env = {"SOLOGRAPH_HOME": str(self.home), "CODEGRAPH_SCAN_PATH": str(self.scan_path),
               "CLAUDE_PROJECTS_PATH": str(self.claude_projects), "KB_PATH": "",
               "SOLOGRAPH_REDIS_URL": self.redis_url, "SOLOGRAPH_SCOPE": "",
               "PYTHONUNBUFFERED": "1",
               # Claude Code's test transcripts only: never the developer's other agents.
               "SOLOGRAPH_AGENTS": "claude"}
        # Never let the developer's token or host leak into a child process.
        for name in ("SOLOGRAPH_TOKEN", "SOLOGRAPH_HOST", "SOLOGRAPH_PUBLISHED_HOST",
                     "SOLOGRAPH_ALLOWED_HOSTS"):
            env[name] = ""
        return env

    @property
    def claude_projects(self) -> Path:
        """One small real-shaped transcript, so the sessions sync has something to read."""
        return self.home.parent / "claude-projects"

    @property
    def settings(self) -> Settings:
        return Settings(home=self.home, scan_paths=(self.scan_path,), redis_url=self.redis_url,
                        claude_projects=self.claude_projects)


def make_home(base: Path, scan_path: Path, redis_url: str) -> Home:
    logs = base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    Transcripts(base / "claude-projects").conversation(
        "/home/dev/code/web-app", "fix the webhook retry in the billing worker", "Done.")
    return Home(home=base / "home", scan_path=scan_path, redis_url=redis_url, logs=logs)


def generate_project(root: Path, name: str, *, files: int, defs_per_file: int = 8) -> int:
    """A git checkout of `files` small Python modules; returns the definitions it holds."""
    project = root / name
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for i in range(files):
        folder = project / f"pkg{i // 100}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"def handler_{name.replace('-', '_')}_{i}_{k}(request):\n"
                       f"    return request\n\n\n" for k in range(defs_per_file - 1))
        (folder / f"mod{i}.py").write_text(f"class Widget{i}:\n    pass\n\n\n{body}")
    return files * defs_per_file


def wait_until_ready(celery, proc: subprocess.Popen, timeout: float = 30.0,
                     node: str | None = None) -> None:
    """Until a worker (`node`, when given) answers a ping."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited with {proc.returncode} before it was ready")
        if celery.control.ping(timeout=0.5, destination=[node] if node else None):
            return
    raise TimeoutError(f"worker did not answer a ping within {timeout}s")


@contextmanager
def worker(home: Home, *, concurrency: int = 2, log_name: str = "worker.log",
           extra_env: dict[str, str] | None = None,
           queues: str = "portfolio,scan,sessions,kb", hostname: str | None = None,
           netns: str | None = None) -> Iterator[subprocess.Popen]:
    """`solograph worker` on the portfolio, scan, sessions and kb queues, ready when it answers
    a ping; under its own `hostname` (and network namespace) when given (`support.hosts`)."""
    cmd = procs.solograph_cmd("worker", "-Q", queues, "-c", str(concurrency))
    if hostname:
        cmd = hosts.as_host(hostname, cmd, netns=netns)
    celery = create_celery(home.settings)
    try:
        with procs.process(cmd, env={**home.env, **(extra_env or {})},
                           log=home.logs / log_name) as proc:
            node = host_format(node_name(queues.split(",")), host=hostname) if hostname else None
            wait_until_ready(celery, proc, node=node)
            yield proc
    finally:
        celery.close()


@contextmanager
def api(home: Home, *, extra_env: dict[str, str] | None = None,
        log_name: str = "api.log") -> Iterator[tuple[subprocess.Popen, str]]:
    port = procs.free_port()
    cmd = procs.solograph_cmd("api", "--port", str(port))
    with procs.process(cmd, env={**home.env, **(extra_env or {})},
                       log=home.logs / log_name) as proc:
        base = f"http://127.0.0.1:{port}"
        procs.wait_for_http(base + "/health", proc=proc)
        yield proc, base


def wait_for_job(celery, job_id: str, *, timeout: float = 60.0,
                 until: tuple[str, ...] = ("SUCCESS", "FAILURE")) -> dict:
    deadline = time.monotonic() + timeout
    status: dict = {}
    while time.monotonic() < deadline:
        status = job_status(celery, job_id)
        if status["state"] in until:
            return status
        time.sleep(0.05)
    raise TimeoutError(f"job {job_id} still {status.get('state')} after {timeout}s")


def show_log(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="session")
def svc() -> SimpleNamespace:
    """The helpers above, for test modules (conftest modules are not imported directly)."""
    return SimpleNamespace(DB=DB, Home=Home, api=api, generate_project=generate_project,
                           make_home=make_home, show_log=show_log, wait_for_job=wait_for_job,
                           wait_until_ready=wait_until_ready, with_db=with_db, worker=worker)
