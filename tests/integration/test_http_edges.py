"""The HTTP edges tried the way an attacker or a clumsy client would: foreign and `null`
origins, the token rule under a published address, the publish address as a Host, digits
that are not ASCII, chunked bodies past the limit, arguments of 50,000 characters, the access
log, and the OpenAPI spec's error answers. TestClient for the guard's semantics; a real
uvicorn wherever the server itself (chunked reads, logging, start-up) is what is tested."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery, ConfigError
from solograph.kb.sync import index_kb
from solograph.limits import MAX_NAME_CHARS
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph_services.api.app import create_app
from solograph_services.common.security import check_bind, origin_key
from solograph_services.mcp.server import build_server
from tests.support import procs
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio

TOKEN = "edge-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
HUGE = "a" * 50_000
SECRET = "ghp_" + "Q7w8" * 9


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("edges")
    kb = make_kb(base)
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),), kb_path=kb,
                        claude_projects=base / "claude-projects")
    (base / "claude-projects").mkdir()
    refresh_registry(settings)
    scan_portfolio(settings)
    index_kb(settings)
    return settings


def api(settings: Settings, host: str = "127.0.0.1:8765") -> TestClient:
    return TestClient(create_app(settings), base_url=f"http://{host}")


def child_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_PATH"))}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path),
            "CLAUDE_PROJECTS_PATH": str(settings.claude_projects), **extra}


# --- Origin -----------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [
    "null", "http://localhost:5173", "http://127.0.0.1:9000", "http://localhost:8765",
    "https://evil.example", "file://", "http://127.0.0.1:8765.evil.example", "garbage",
])
def test_a_foreign_origin_is_refused_reads_and_jobs_alike(indexed: Settings, origin: str):
    with api(indexed) as c:
        read = c.get("/v1/symbols", params={"q": "auth"}, headers={"Origin": origin})
        job = c.post("/v1/jobs/registry", headers={"Origin": origin})
    assert read.status_code == 403 and read.json()["error"] == "bad_origin"
    assert job.status_code == 403


def test_the_services_own_origin_and_listed_ones_pass(indexed: Settings):
    with api(indexed) as c:
        own = c.get("/v1/symbols", params={"q": "auth"},
                    headers={"Origin": "http://127.0.0.1:8765"})
        no_origin = c.get("/v1/symbols", params={"q": "auth"})
    assert own.status_code == 200 and no_origin.status_code == 200
    listed = indexed.with_(allowed_origins=("http://localhost:5173/", "HTTPS://Tools.Example"))
    with api(listed) as c:
        for origin in ("http://localhost:5173", "https://tools.example:443"):
            assert c.get("/v1/symbols", params={"q": "auth"},
                         headers={"Origin": origin}).status_code == 200, origin
        assert c.get("/v1/symbols", params={"q": "auth"},
                     headers={"Origin": "http://localhost:5174"}).status_code == 403


@pytest.mark.parametrize(("origin", "key"), [
    ("http://LOCALHOST:80", "http://localhost"), ("https://x.io:443/", "https://x.io"),
    ("http://[::1]:8765", "http://[::1]:8765"), ("null", None), ("ftp://x.io", None),
    ("http://x.io/path", None), ("http://x.io:99999", None),
])
def test_origins_compare_by_scheme_host_and_port(origin: str, key: str | None):
    assert origin_key(origin) == key


# --- the token rule and the Host --------------------------------------------------------------


@pytest.mark.parametrize(("host", "published", "ok"), [
    ("127.0.0.1", "", True),
    ("0.0.0.0", "127.0.0.1", True),       # compose: a wildcard inside, published on loopback
    ("0.0.0.0", "", False),
    ("0.0.0.0", "192.168.1.20", False),
    ("192.168.1.20", "127.0.0.1", False),  # a LAN address is reachable whatever is published
    ("::", "::1", True),
])
def test_the_bind_address_decides_the_token(tmp_path: Path, host: str, published: str, ok: bool):
    settings = Settings(home=tmp_path, host=host, published_host=published)
    if ok:
        check_bind(settings)
    else:
        with pytest.raises(ConfigError, match="needs a token"):
            check_bind(settings)
    # A --host on the command line drops the published address: the bind alone decides.
    with pytest.raises(ConfigError):
        check_bind(settings.bind("0.0.0.0"))
    check_bind(settings.bind("127.0.0.1"))


@pytest.mark.integration
@pytest.mark.parametrize("command", [["api"], ["mcp", "--http"], ["http"]])
def test_a_published_loopback_address_does_not_lift_the_token_for_host_0000(
        indexed: Settings, command: list[str]):
    env = child_env(indexed, SOLOGRAPH_PUBLISHED_HOST="127.0.0.1")
    run = subprocess.run(procs.solograph_cmd(*command, "--host", "0.0.0.0", "--port",
                                             str(procs.free_port())),
                         env=env, capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert "needs a token" in run.stderr and "Traceback" not in run.stderr


def test_the_publish_address_is_an_accepted_host(indexed: Settings):
    lan = indexed.with_(host="0.0.0.0", published_host="192.168.1.20", token=TOKEN)
    with api(lan, "192.168.1.20:8765") as c:
        assert c.get("/v1/symbols", params={"q": "auth"}, headers=AUTH).status_code == 200
        assert c.get("/health", headers={"Host": "192.168.1.21:8765"}).status_code == 421
        assert c.get("/health", headers={"Host": "0.0.0.0:8765"}).status_code == 421


# --- bad numbers, big bodies, long arguments ----------------------------------------------------


def test_a_content_length_in_other_digits_is_refused_not_a_crash(indexed: Settings):
    with api(indexed) as c:
        answer = c.post("/v1/jobs/registry", headers={"Content-Length": "³".encode("latin-1")})
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"


def test_a_chunked_body_past_the_limit_is_413(indexed: Settings):
    def chunks():
        for _ in range(120):
            yield b"x" * 10_000

    with api(indexed) as c:
        answer = c.post("/v1/jobs/scan", content=chunks(),
                        headers={"Content-Type": "application/json"})
        small = c.post("/v1/jobs/scan", content=iter([b'{"registry": ', b"false}"]),
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"
    assert small.status_code == 503  # read whole, then refused for want of a broker


@pytest.mark.integration
def test_a_chunked_body_past_the_limit_to_mcp_is_413_without_a_traceback(indexed: Settings,
                                                                          tmp_path: Path):
    port = procs.free_port()
    log = tmp_path / "mcp.log"
    with procs.process(procs.solograph_cmd("mcp", "--http", "--port", str(port)),
                       env=child_env(indexed, SOLOGRAPH_TOKEN=TOKEN), log=log) as proc:
        procs.wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        conn.putrequest("POST", "/mcp")
        for name, value in {**AUTH, "Content-Type": "application/json",
                            "Accept": "application/json, text/event-stream",
                            "Transfer-Encoding": "chunked"}.items():
            conn.putheader(name, value)
        conn.endheaders()
        status = body = None
        try:
            for _ in range(80):
                piece = b"x" * 16_384
                conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            conn.send(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the rest was sent
        response = conn.getresponse()
        status, body = response.status, response.read()
        conn.close()
        assert proc.poll() is None
    assert status == 413 and json.loads(body)["error"] == "too_large"
    assert "Traceback" not in log.read_text(errors="replace")


def test_a_huge_project_or_path_is_a_bad_query_in_the_core(indexed: Settings):
    for read in (lambda: reads.session_search(indexed, "auth", project=HUGE),
                 lambda: reads.kb_search(indexed, "recipe", path=HUGE),
                 lambda: reads.kb_graph(indexed, path=HUGE)):
        with pytest.raises(BadQuery) as caught:
            read()
        assert caught.value.hint and "50,000 characters" in caught.value.message
    just = "p" * MAX_NAME_CHARS  # at the bound: an ordinary answer
    assert reads.kb_search(indexed, "recipe", path=just)["results"] == []


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_huge_project_or_path_is_a_tool_error_not_internal(indexed: Settings):
    async with Client(build_server(indexed)) as client:
        answers = [await client.call_tool("session_search", {"query": "x", "project": HUGE}),
                   await client.call_tool("kb_search", {"query": "x", "path": HUGE})]
    for answer in answers:
        assert answer.is_error
        assert json.loads(answer.content[0].text)["error"] == "bad_query"


@pytest.mark.integration
def test_a_huge_path_on_the_command_line_is_a_message_not_a_traceback(indexed: Settings):
    for argv in (["kb", "recipe", "--path", HUGE], ["kb-graph", "--path", HUGE],
                 ["sessions", "auth", "-p", HUGE]):
        run = subprocess.run(procs.solograph_cmd(*argv), env=child_env(indexed),
                             capture_output=True, text=True, timeout=60)
        assert run.returncode != 0, argv[0]
        assert "Traceback" not in run.stderr and "characters long" in run.stderr, argv[0]


# --- the access log and the spec ---------------------------------------------------------------


@pytest.mark.integration
def test_the_access_log_drops_query_strings(indexed: Settings, tmp_path: Path):
    port = procs.free_port()
    log = tmp_path / "api.log"
    with procs.process(procs.solograph_cmd("api", "--port", str(port)),
                       env=child_env(indexed), log=log) as proc:
        procs.wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", f"/v1/symbols?q=token%20{SECRET}&limit=5")
        assert conn.getresponse().read()
        conn.close()
    text = log.read_text(errors="replace")
    assert "/v1/symbols?…" in text
    assert SECRET not in text and "q=token" not in text


def test_the_openapi_spec_lists_the_error_answers(indexed: Settings):
    with api(indexed) as c:
        spec = c.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            codes = set(operation["responses"])
            assert {"400", "404", "413", "503"} <= codes, (method, path)
    error = spec["components"]["schemas"]["ErrorBody"]
    assert {"error", "message"} <= set(error["required"])
