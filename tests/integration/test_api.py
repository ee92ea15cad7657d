"""The HTTP API: the core's bytes, its error mapping, the guard, /health and job submission.

Most tests drive `create_app` through FastAPI's TestClient on a real scanned store; those that
start processes (redis-server, uvicorn) are marked integration.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from solograph import __version__, reads
from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import migration_files, migration_names
from solograph_services.api.app import create_app
from solograph_services.common.jobs import create_celery
from tests.support import procs
from tests.support.portfolio import make_portfolio

BASE = "http://127.0.0.1"
INTERNAL = b'{"error":"internal","message":"internal error"}'


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("api")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),), max_results=50)
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings


@pytest.fixture
def client(indexed: Settings):
    with TestClient(create_app(indexed), base_url=BASE) as c:
        yield c


def test_symbols_are_the_core_bytes(client: TestClient, indexed: Settings):
    for params, call in (
        ({"q": "auth middleware"}, {"query": "auth middleware"}),
        ({"q": "escape", "project": "py-service"}, {"query": "escape", "project": "py-service"}),
        ({"q": "render", "limit": "2"}, {"query": "render", "limit": 2}),
    ):
        r = client.get("/v1/symbols", params=params)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/json"
        want = reads.to_json(reads.symbol_search(indexed, call.pop("query"), **call))
        assert r.content == want.encode()
    assert b"AuthMiddleware" in client.get("/v1/symbols", params={"q": "auth middleware"}).content


def test_project_info_is_the_core_bytes(client: TestClient, indexed: Settings):
    for params in ({"action": "explain", "project": "web-app"},
                   {"action": "deps", "project": "py-service"}, {"action": "stats"},
                   {"action": "shared"}, {"action": "shared", "package": "react"},
                   {"action": "dupes", "name": "escape"}, {"action": "projects"}):
        r = client.get("/v1/project_info", params=params)
        assert r.status_code == 200, (params, r.text)
        args = {k: v for k, v in params.items() if k != "action"}
        assert r.content == reads.to_json(reads.project_info(indexed, params["action"],
                                                             **args)).encode()


def test_domain_errors_map_to_statuses_with_the_core_body(client: TestClient):
    r = client.get("/v1/symbols", params={"q": '"*" () ^ - :'})
    assert r.status_code == 400
    assert r.json()["error"] == "bad_query" and r.json()["hint"]
    r = client.get("/v1/symbols", params={"q": "auth", "project": "no-such-project"})
    assert (r.status_code, r.json()["error"]) == (404, "unknown_project")
    r = client.get("/v1/project_info", params={"action": "explode"})
    assert (r.status_code, r.json()["error"]) == (400, "bad_query")
    r = client.get("/v1/project_info", params={"action": "explain"})
    assert (r.status_code, r.json()["error"]) == (400, "bad_query")
    r = client.get("/v1/sessions")  # no q
    assert (r.status_code, r.json()["error"]) == (422, "bad_request")
    assert "q" in r.json()["message"]
    r = client.get("/v1/sessions", params={"q": "webhook"})  # no transcripts folder here
    assert (r.status_code, r.json()["error"]) == (404, "not_indexed")
    r = client.get("/v1/symbols", params={"q": "auth", "limit": 0})
    assert (r.status_code, r.json()["error"]) == (422, "bad_request")
    r = client.get("/v1/kb", params={"q": "sandbox"})  # these settings name no KB_PATH
    assert (r.status_code, r.json()["error"]) == (404, "not_indexed")
    assert "KB_PATH" in r.json()["hint"]


def test_empty_home_is_not_indexed(settings: Settings):
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.get("/v1/symbols", params={"q": "auth"})
        assert r.status_code == 404
        assert r.json()["error"] == "not_indexed" and "solograph scan" in r.json()["hint"]
        health = c.get("/health")
    assert health.status_code == 200
    absent = {"present": False, "readable": False, "schema": None, "migrations_current": False}
    assert health.json() == {
        "ok": True, "version": __version__,
        "stores": {"portfolio": absent, "sessions": absent,
                   "kb": {**absent, "configured": False,
                          "problem": "no knowledge base: set KB_PATH to the folder of your "
                                     "notes"},
                   "sources": absent},
        "folders": {"sessions": {"path": str(settings.claude_projects), "present": False,
                                 "files": 0, "unreadable": 0}},
        "redis": {"configured": False, "reachable": False}}
    assert not settings.portfolio_db.exists()  # a probe never creates a store


def test_unreadable_store_is_a_store_error_and_unhealthy(settings: Settings):
    settings.home.mkdir(parents=True)
    settings.portfolio_db.write_bytes(b"this is not a sqlite database" * 100)
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.get("/v1/symbols", params={"q": "auth"})
        health = c.get("/health")
    assert r.status_code == 503
    assert r.json()["error"] == "store_error" and "Traceback" not in r.text
    assert health.status_code == 503
    assert health.json()["ok"] is False
    store = health.json()["stores"]["portfolio"]
    assert (store["present"], store["readable"], store["migrations_current"]) == (
        True, False, False) and "not a database" in store["problem"]


def test_internal_error_is_generic_and_has_no_traceback(settings: Settings):
    """A store damaged by hand (migrations recorded, tables gone) fails below the core's
    domain errors: the client gets a bare 500 and the server keeps the details."""
    settings.home.mkdir(parents=True)
    conn = sqlite3.connect(settings.portfolio_db)
    with conn:
        conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        conn.executemany("INSERT INTO _migrations VALUES (?, 0)",
                         [(name,) for name, _ in migration_files("portfolio")])
    conn.close()
    with TestClient(create_app(settings), base_url=BASE, raise_server_exceptions=False) as c:
        r = c.get("/v1/symbols", params={"q": "auth"})
        assert c.get("/health").json()["stores"]["portfolio"]["migrations_current"] is True
    assert r.status_code == 500
    assert r.content == INTERNAL
    assert r.headers["content-type"] == "application/json"


def test_health_of_an_indexed_home(client: TestClient):
    r = client.get("/health")
    assert r.status_code == 200
    assert r.json()["stores"]["portfolio"] == {"present": True, "readable": True,
                                               "schema": migration_names("portfolio")[-1],
                                               "migrations_current": True}
    assert r.json()["ok"] is True and r.json()["version"] == __version__


def test_limit_is_bounded_by_max_results(client: TestClient, indexed: Settings):
    assert client.get("/v1/symbols", params={"q": "a", "limit": "0"}).status_code == 422
    too_many = str(indexed.max_results + 1)
    assert client.get("/v1/symbols", params={"q": "render", "limit": too_many}).status_code == 422
    ok = client.get("/v1/symbols", params={"q": "render", "limit": str(indexed.max_results)})
    assert ok.status_code == 200
    assert client.get("/v1/symbols").status_code == 422  # q is required


def test_jobs_without_a_broker_answer_503(client: TestClient):
    for path in ("/v1/jobs/scan", "/v1/jobs/registry", "/v1/jobs/sync-sessions",
                 "/v1/jobs/index-kb"):
        r = client.post(path)
        assert r.status_code == 503, (path, r.text)
        assert r.json()["error"] == "config_error"
        assert "SOLOGRAPH_REDIS_URL" in r.json()["hint"]
    assert client.get("/v1/jobs/0b7c-42").status_code == 503
    assert client.get("/v1/jobs/not%20an%20id").status_code == 422


def test_docs_and_openapi(client: TestClient):
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    assert spec["info"]["title"] == "solograph"
    assert {"/v1/symbols", "/v1/project_info", "/v1/jobs/scan", "/v1/jobs/{job_id}",
            "/health"} <= set(spec["paths"])


def test_guard_token_host_origin_and_body_size(indexed: Settings):
    secured = indexed.with_(token="s3cret-token-for-tests")
    with TestClient(create_app(secured), base_url=BASE) as c:
        q = {"q": "auth middleware"}
        assert c.get("/v1/symbols", params=q).status_code == 401
        wrong = c.get("/v1/symbols", params=q, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["error"] == "unauthorized"
        right = c.get("/v1/symbols", params=q,
                      headers={"Authorization": "Bearer s3cret-token-for-tests"})
        assert right.status_code == 200
        assert right.content == reads.to_json(reads.symbol_search(indexed,
                                                                  "auth middleware")).encode()
        assert c.get("/health").status_code == 200  # probes need no token
        auth = {"Authorization": "Bearer s3cret-token-for-tests"}
        foreign_host = c.get("/v1/symbols", params=q, headers={**auth, "Host": "evil.example"})
        assert foreign_host.status_code == 421
        assert c.get("/health", headers={"Host": "evil.example"}).status_code == 421
        foreign_origin = c.get("/v1/symbols", params=q,
                               headers={**auth, "Origin": "https://evil.example"})
        assert foreign_origin.status_code == 403
        same_origin = c.get("/v1/symbols", params=q,
                            headers={**auth, "Origin": "http://127.0.0.1:8765",
                                     "Host": "127.0.0.1:8765"})
        assert same_origin.status_code == 200
        big = c.post("/v1/jobs/scan", content=b"x" * 1_100_000,
                     headers={**auth, "Content-Type": "application/json"})
        assert big.status_code == 413


def test_create_app_refuses_beyond_loopback_without_token(indexed: Settings):
    from solograph.errors import ConfigError

    with pytest.raises(ConfigError, match="needs a token"):
        create_app(indexed.with_(host="0.0.0.0"))


@pytest.mark.integration
def test_jobs_with_a_broker_are_queued_and_polled(indexed: Settings, redis_url: str, svc):
    """No worker here: the job waits in its queue, PENDING, and the body names the queue."""
    settings = indexed.with_(redis_url=svc.with_db(redis_url, svc.DB["api"]))
    with TestClient(create_app(settings), base_url=BASE) as c:
        r = c.post("/v1/jobs/scan", json={"projects": ["web-app"], "registry": False})
        assert r.status_code == 202, r.text
        assert r.json()["queue"] == "portfolio"
        status = c.get(f"/v1/jobs/{r.json()['job']}")
        assert status.status_code == 200
        assert status.json()["state"] == "PENDING"
        for path, queue in (("/v1/jobs/registry", "portfolio"),
                            ("/v1/jobs/sync-sessions", "sessions"), ("/v1/jobs/index-kb", "kb")):
            r = c.post(path)
            assert (r.status_code, r.json()["queue"]) == (202, queue)
        assert c.post("/v1/jobs/scan", json={"projects": "web-app"}).status_code == 422
        assert c.post("/v1/jobs/scan", json={"bogus": 1}).status_code == 422
        health = c.get("/health").json()
    assert health["redis"] == {"configured": True, "reachable": True}
    # The queued messages sit in their own Redis lists, one each.
    import redis

    r = redis.Redis.from_url(settings.redis_url)
    try:
        assert {q: r.llen(q) for q in ("portfolio", "sessions", "kb")} == {
            "portfolio": 2, "sessions": 1, "kb": 1}
        r.delete("portfolio", "sessions", "kb")  # only our own queues, in our own database
    finally:
        r.close()


@pytest.mark.integration
def test_unreachable_broker_is_503_and_unhealthy(indexed: Settings):
    dead = f"redis://127.0.0.1:{procs.free_port()}/0"
    settings = indexed.with_(redis_url=dead)
    with TestClient(create_app(settings), base_url=BASE) as c:
        health = c.get("/health")
        r = c.post("/v1/jobs/registry")
        status = c.get("/v1/jobs/0b7c-42")
    assert status.status_code == 503 and status.json()["error"] == "broker_unavailable"
    assert health.status_code == 503
    assert health.json()["redis"] == {"configured": True, "reachable": False}
    assert r.status_code == 503 and r.json()["error"] == "broker_unavailable"


@pytest.mark.integration
def test_api_beyond_loopback_without_token_exits_with_a_message(tmp_path: Path):
    env = {**os.environ, "SOLOGRAPH_HOME": str(tmp_path / "home"), "SOLOGRAPH_TOKEN": ""}
    run = subprocess.run(procs.solograph_cmd("api", "--host", "0.0.0.0", "--port",
                                             str(procs.free_port())),
                         env=env, capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert "needs a token" in run.stderr and "SOLOGRAPH_TOKEN" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.integration
def test_real_uvicorn_binds_loopback_by_default(indexed: Settings, tmp_path: Path):
    port = procs.free_port()
    env = {"SOLOGRAPH_HOME": str(indexed.home), "SOLOGRAPH_HOST": "", "SOLOGRAPH_TOKEN": "",
           "SOLOGRAPH_REDIS_URL": "", "CODEGRAPH_SCAN_PATH": str(indexed.scan_paths[0])}
    with procs.process(procs.solograph_cmd("api", "--port", str(port)), env=env,
                       log=tmp_path / "api.log") as proc:
        procs.wait_for_http(f"{BASE}:{port}/health", proc=proc)
        listening = _listening_addresses(port)
        with urllib.request.urlopen(f"{BASE}:{port}/v1/symbols?q=auth%20middleware") as r:
            body = r.read()
    assert body == reads.to_json(reads.symbol_search(indexed, "auth middleware")).encode()
    if listening is not None:
        assert listening == {"127.0.0.1"}


def _listening_addresses(port: int) -> set[str] | None:
    """Local addresses listening on `port`, from /proc/net/tcp (None where there is none)."""
    path = Path("/proc/net/tcp")
    if not path.exists():
        return None
    found = set()
    for line in path.read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        addr, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(".".join(str(int(addr[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return found


def test_create_celery_needs_a_broker_url(settings: Settings):
    from solograph.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        create_celery(settings)
    assert "SOLOGRAPH_REDIS_URL" in err.value.hint
