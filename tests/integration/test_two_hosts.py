"""Two worker "hosts" sharing one Redis, for real: each worker in a network namespace the test
makes (its loopback and one veth pair, nothing else), under its own host name, reaching a
password-protected redis-server over a private /30 on that veth pair only.

The store's host consumes `portfolio` and `scan`; the worker-only host consumes `scan` alone and
has no store at all (an empty SOLOGRAPH_HOME of its own). A scan completes with files read on
both, and stores what a one-worker run stores, byte for byte. Likewise the meaning lane: the
store's host collects texts and saves vectors, the other host runs the model on the `embed`
queue, and the vectors are a one-worker run's.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from solograph import semantic
from solograph_services.common.jobs import create_celery, submit
from tests.support import hosts, procs
from tests.support.portfolio import stored_definitions

# A private /30 per host, on the veth pairs this test makes and on nothing else.
LINKS = {"a": ("10.250.17.1", "10.250.17.2"), "b": ("10.250.18.1", "10.250.18.2")}
PROJECTS = 8
FILES = 120  # per project: one batch each, so eight reads to share


def run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30)


def netns_reason() -> str | None:
    """None when this test may make network namespaces here, else why not."""
    if os.geteuid() != 0:
        return "needs root for ip netns"
    if shutil.which("ip") is None or shutil.which("redis-server") is None:
        return "needs iproute2 (ip) and redis-server"
    reason = hosts.uts_reason()
    if reason:
        return reason
    used = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True,
                          text=True).stdout
    ours = ipaddress.ip_network("10.250.0.0/16")
    for word in used.split():
        if "/" in word and "." in word:
            try:
                if ipaddress.ip_interface(word).network.overlaps(ours):
                    return f"10.250.0.0/16 is already in use here ({word})"
            except ValueError:
                continue
    probe = f"sgprobe{os.getpid() % 100000}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns is not permitted here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return None


REASON = netns_reason()


@pytest.fixture
def namespaces() -> Iterator[dict[str, str]]:
    """Two namespaces, each joined to this one by its own veth pair: {"a": name, "b": name}."""
    tag = os.getpid() % 100000
    made: dict[str, str] = {}
    try:
        for side, (here, there) in LINKS.items():
            ns, outer, inner = f"sgpool{tag}{side}", f"sgp{tag}{side}0", f"sgp{tag}{side}1"
            run("ip", "netns", "add", ns)
            made[side] = ns
            run("ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
            run("ip", "link", "set", inner, "netns", ns)
            run("ip", "addr", "add", f"{here}/30", "dev", outer)
            run("ip", "link", "set", outer, "up")
            run("ip", "netns", "exec", ns, "ip", "addr", "add", f"{there}/30", "dev", inner)
            run("ip", "netns", "exec", ns, "ip", "link", "set", inner, "up")
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        yield made
    finally:
        for side, ns in made.items():
            # Deleting a namespace deletes its end of the pair, and with it the other end.
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True)
            subprocess.run(["ip", "link", "delete", f"sgp{tag}{side}0"], capture_output=True)


@pytest.fixture
def shared_redis(tmp_path: Path, namespaces: dict[str, str]) -> Iterator[dict]:
    """A redis-server with a password, on loopback (the test) and on this side of each veth."""
    password = secrets.token_hex(16)
    port = procs.free_port()
    cmd = ["redis-server", "--bind", "127.0.0.1", *(here for here, _ in LINKS.values()),
           "--port", str(port), "--requirepass", password, "--save", "", "--appendonly", "no"]
    with procs.process(cmd, log=tmp_path / "redis.log") as proc:
        procs.wait_for_port(port, proc=proc)
        yield {"port": port, "url": lambda host, db: f"redis://:{password}@{host}:{port}/{db}"}


@pytest.mark.integration
@pytest.mark.skipif(REASON is not None, reason=str(REASON))
def test_a_scan_shares_its_reads_between_two_hosts(tmp_path: Path, namespaces: dict[str, str],
                                                   shared_redis: dict, svc):
    scan_path = tmp_path / "projects"
    for i in range(PROJECTS):
        svc.generate_project(scan_path, f"repo{i}", files=FILES)
    url = shared_redis["url"]

    # The reference: one worker, on this host.
    one = svc.make_home(tmp_path / "one", scan_path, url("127.0.0.1", 1))
    celery = create_celery(one.settings)
    try:
        with svc.worker(one, concurrency=1, queues="portfolio,scan", log_name="one.log"):
            status = svc.wait_for_job(celery, submit(celery, "scan", registry=True), timeout=120)
        assert status["state"] == "SUCCESS", status
    finally:
        celery.close()
    reference = stored_definitions(one.settings.portfolio_db)

    store = svc.make_home(tmp_path / "store-host", scan_path, url("127.0.0.1", 0))
    other = svc.make_home(tmp_path / "worker-host", scan_path, url("127.0.0.1", 0))
    celery = create_celery(store.settings)
    try:
        with svc.worker(store, concurrency=1, queues="portfolio,scan", hostname="store-host",
                        netns=namespaces["a"], log_name="store-host.log",
                        extra_env={"SOLOGRAPH_REDIS_URL": url(LINKS["a"][0], 0)}), \
                svc.worker(other, concurrency=1, queues="scan", hostname="worker-host",
                           netns=namespaces["b"], log_name="worker-host.log",
                           extra_env={"SOLOGRAPH_REDIS_URL": url(LINKS["b"][0], 0)}):
            status = svc.wait_for_job(celery, submit(celery, "scan", registry=True), timeout=120)
        assert status["state"] == "SUCCESS", status
        result = status["result"]
        assert result["failed"] == [] and len(result["projects"]) == PROJECTS
        readers = {host for run in result["projects"] for host in run["read_by"]}
        assert readers == {"solograph@store-host", "solograph@worker-host"}, result["projects"]
        assert stored_definitions(store.settings.portfolio_db) == reference
        # The worker-only host never had a store.
        assert not other.settings.portfolio_db.exists()
    finally:
        celery.close()


TOPICS = ("the card payment was charged twice", "the webhook retry never stopped",
          "the cache kept a stale price", "the login token expired too early",
          "the invoice total lost its tax", "the upload stalled at ninety percent")


def write_sessions(projects: Path) -> None:
    """The same handful of conversations in any home: enough texts for several rounds."""
    from tests.support.transcripts import Transcripts

    transcripts = Transcripts(projects)
    for i in range(24):
        topic = TOPICS[i % len(TOPICS)]
        transcripts.conversation(f"/home/dev/code/app{i % 4}", f"why {topic} in case {i}?",
                                 f"Because of a race in step {i}; fixed with a lock.",
                                 f"and what about {topic} on retry {i}?", "A key per request.")


def stored_vectors(db: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT digest, model, hex(vector) FROM entry_vectors "
                            "ORDER BY digest").fetchall()
    finally:
        conn.close()


def pending_texts(db: Path) -> int:
    from solograph.semantic.embedder import shared_embedder
    from solograph.sessions.meaning import LANE

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return LANE.pending_count(conn, shared_embedder().model_id)
    finally:
        conn.close()


def embed_workers(client: redis.Redis) -> set[str]:
    """Which workers ran the model's tasks, from their stored results."""
    hosts = set()
    for key in client.scan_iter(match="celery-task-meta-*", count=500):
        meta = json.loads(client.get(key) or b"{}")
        if meta.get("name") == "solograph.embed_texts" and meta.get("status") == "SUCCESS":
            hosts.add(meta.get("worker"))
    return hosts


def embed_sessions(svc, home, celery, **worker: object) -> None:
    with svc.worker(home, concurrency=1, **worker):
        synced = svc.wait_for_job(celery, submit(celery, "sync_sessions"), timeout=120)
        assert synced["state"] == "SUCCESS", synced
        deadline = time.monotonic() + 300
        while pending_texts(home.settings.sessions_db) and time.monotonic() < deadline:
            time.sleep(0.2)
    assert pending_texts(home.settings.sessions_db) == 0


@pytest.mark.integration
@pytest.mark.skipif(REASON is not None, reason=str(REASON))
@pytest.mark.skipif(not semantic.available(), reason="the `semantic` extra is not installed")
def test_an_embedding_job_runs_its_model_on_the_other_host(tmp_path: Path,
                                                           namespaces: dict[str, str],
                                                           shared_redis: dict, svc):
    """The store's host collects the texts and saves the vectors; the worker-only host, with
    no store and no transcripts, runs the model; the vectors are a one-worker run's."""
    url, lane = shared_redis["url"], {"SOLOGRAPH_SEMANTIC": "on"}
    one = svc.make_home(tmp_path / "one", tmp_path / "none", url("127.0.0.1", 2))
    write_sessions(one.claude_projects)
    celery = create_celery(one.settings)
    try:
        embed_sessions(svc, one, celery, queues="sessions,embed", log_name="one.log",
                       extra_env=lane)
    finally:
        celery.close()
    reference = stored_vectors(one.settings.sessions_db)
    assert reference

    store = svc.make_home(tmp_path / "store-host", tmp_path / "none", url("127.0.0.1", 3))
    write_sessions(store.claude_projects)
    other = svc.make_home(tmp_path / "worker-host", tmp_path / "none", url("127.0.0.1", 3))
    celery = create_celery(store.settings)
    client = redis.Redis.from_url(store.redis_url)
    try:
        with svc.worker(other, concurrency=1, queues="embed", hostname="worker-host",
                        netns=namespaces["b"], log_name="worker-host.log",
                        extra_env={**lane, "SOLOGRAPH_REDIS_URL": url(LINKS["b"][0], 3),
                                   "CLAUDE_PROJECTS_PATH": str(tmp_path / "nothing")}):
            embed_sessions(svc, store, celery, queues="sessions", hostname="store-host",
                           netns=namespaces["a"], log_name="store-host.log",
                           extra_env={**lane, "SOLOGRAPH_REDIS_URL": url(LINKS["a"][0], 3)})
        assert embed_workers(client) == {"solograph-embed@worker-host"}
        assert stored_vectors(store.settings.sessions_db) == reference
        assert not list((tmp_path / "worker-host").rglob("*.db"))  # it never had a store
    finally:
        client.close()
        celery.close()
