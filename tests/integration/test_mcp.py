"""The MCP gateway through the SDK's own client: in-process, over stdio, over streamable HTTP.

Every answer is compared byte for byte with what the core read returns through `reads.to_json`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator

import httpx
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from solograph import reads
from solograph.config import Settings
from solograph.errors import SolographError, UnknownProject
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_writer
from solograph_services.mcp.server import build_server
from tests.support.portfolio import make_portfolio
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http

TOOLS = {"session_search", "kb_search", "symbol_search", "source_search", "project_info"}
ALWAYS_LOADED = {"session_search", "kb_search"}
TOKEN = "test-token-0123456789abcdef"
QUERY = "auth middleware"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A scanned fixture portfolio, shared by the module (scanning is the slow part)."""
    base = tmp_path_factory.mktemp("mcp")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        claude_projects=base / "claude-projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings


def core_error(fn, *args, **kwargs) -> str:
    """The JSON the core's domain error becomes, for comparing with a tool error."""
    with pytest.raises(SolographError) as caught:
        fn(*args, **kwargs)
    return reads.to_json(caught.value.to_dict())


def core_text(fn, *args, **kwargs) -> str:
    """What the core answers, or the JSON of the domain error it raises."""
    try:
        return reads.to_json(fn(*args, **kwargs))
    except SolographError as exc:
        return reads.to_json(exc.to_dict())


def only_text(result) -> str:
    assert len(result.content) == 1
    assert result.content[0].type == "text"
    return result.content[0].text


def env_for(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_PATH"))}
    return {**env, "SOLOGRAPH_HOME": str(settings.home),
            "CLAUDE_PROJECTS_PATH": str(settings.claude_projects), **extra}


# --- in process ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_tools_annotations_meta_and_instructions(indexed: Settings):
    async with Client(build_server(indexed)) as client:
        listed = (await client.list_tools()).tools
        instructions = client.instructions
    wire = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed}
    assert set(wire) == TOOLS
    for name, tool in wire.items():
        assert tool["annotations"]["readOnlyHint"] is True, name
        assert tool["annotations"]["openWorldHint"] is False, name
        assert tool["annotations"]["idempotentHint"] is True, name
        assert "Example" in tool["description"], name
        for prop in tool["inputSchema"]["properties"].values():
            assert prop.get("description"), name
        assert "ctx" not in tool["inputSchema"]["properties"], name
    loaded = {n for n, t in wire.items() if t.get("_meta", {}).get("anthropic/alwaysLoad") is True}
    assert loaded == ALWAYS_LOADED
    assert instructions and len(instructions) < 1000
    for name in TOOLS:
        assert name in instructions


@pytest.mark.anyio
async def test_symbol_search_is_the_core_answer(indexed: Settings):
    async with Client(build_server(indexed)) as client:
        result = await client.call_tool("symbol_search", {"query": QUERY})
        scoped = await client.call_tool("symbol_search",
                                        {"query": "auth", "project": "web-app", "limit": 3})
    answer = reads.symbol_search(indexed, QUERY)
    assert answer["count"] > 0
    assert not result.is_error
    assert only_text(result) == reads.to_json(answer)
    assert result.structured_content == answer
    assert only_text(scoped) == reads.to_json(
        reads.symbol_search(indexed, "auth", project="web-app", limit=3))


@pytest.mark.anyio
async def test_limit_is_capped_at_max_results(indexed: Settings):
    capped = indexed.with_(max_results=2)
    async with Client(build_server(capped)) as client:
        result = await client.call_tool("symbol_search", {"query": "auth", "limit": 50})
    assert json.loads(only_text(result))["count"] == 2
    assert only_text(result) == reads.to_json(reads.symbol_search(indexed, "auth", limit=2))


@pytest.mark.anyio
async def test_project_info_explain_and_stats(indexed: Settings):
    async with Client(build_server(indexed)) as client:
        explain = await client.call_tool("project_info",
                                          {"action": "explain", "project": "py-service"})
        stats = await client.call_tool("project_info", {"action": "stats"})
    assert not explain.is_error and not stats.is_error
    assert only_text(explain) == reads.to_json(
        reads.project_info(indexed, "explain", project="py-service"))
    assert only_text(stats) == reads.to_json(reads.project_info(indexed, "stats"))
    assert stats.structured_content["projects"] >= 3


@pytest.mark.anyio
async def test_domain_errors_are_tool_errors_with_the_core_json(indexed: Settings):
    async with Client(build_server(indexed)) as client:
        unknown = await client.call_tool("project_info",
                                         {"action": "explain", "project": "no-such-project"})
        bad_action = await client.call_tool("project_info", {"action": "nonsense"})
        empty = await client.call_tool("symbol_search", {"query": "   "})
        scoped = await client.call_tool("symbol_search", {"query": "x", "project": "nope"})
    assert unknown.is_error
    error = json.loads(only_text(unknown))
    assert error["error"] == UnknownProject.code and error["hint"]
    assert only_text(unknown) == core_error(reads.project_info, indexed, "explain",
                                            project="no-such-project")
    # The schema lists the six actions; a wrong one is the read's own bad_query, as the CLI's
    # and the API's, not the SDK's validation text.
    assert bad_action.is_error and only_text(bad_action) == core_error(
        reads.project_info, indexed, "nonsense")
    assert json.loads(only_text(bad_action))["error"] == "bad_query"
    assert empty.is_error
    assert json.loads(only_text(empty))["error"] == "bad_query"
    assert scoped.is_error
    assert json.loads(only_text(scoped))["error"] == "unknown_project"


@pytest.mark.anyio
@pytest.mark.parametrize(("tool", "args"), [
    ("session_search", {"query": "webhook retry"}),
    ("kb_search", {"query": "privacy architecture", "path": "wiki/"}),
    ("source_search", {"query": "pricing tiers", "source": "youtube"}),
    ("source_search", {"action": "list"}),
])
async def test_indexes_with_nothing_to_read_answer_what_the_core_answers(
        indexed: Settings, tool: str, args: dict):
    """No transcripts, no KB_PATH, no sources yet: an empty answer or an error naming the next
    step, exactly as the core gives it, never a crash."""
    async with Client(build_server(indexed)) as client:
        result = await client.call_tool(tool, args)
    text = only_text(result)
    read = {"session_search": reads.session_search, "kb_search": reads.kb_search,
            "source_search": reads.source_search}[tool]
    args = dict(args)
    query = args.pop("query", None)
    try:
        expected = reads.to_json(read(indexed, query, **args))
    except SolographError as exc:
        expected = reads.to_json(exc.to_dict())
        assert result.is_error and exc.hint
    assert text == expected


@pytest.mark.anyio
async def test_never_scanned_home_is_not_indexed_not_a_crash(settings: Settings):
    async with Client(build_server(settings)) as client:
        symbols = await client.call_tool("symbol_search", {"query": QUERY})
        stats = await client.call_tool("project_info", {"action": "stats"})
    for result in (symbols, stats):
        assert result.is_error
        error = json.loads(only_text(result))
        assert error["error"] == "not_indexed"
        assert "solograph scan" in error["hint"]
    assert only_text(symbols) == core_error(reads.symbol_search, settings, QUERY)


@pytest.mark.anyio
async def test_empty_store_answers_what_the_core_answers(settings: Settings):
    connect_writer(settings.portfolio_db, "portfolio").close()  # migrated, nothing registered
    async with Client(build_server(settings)) as client:
        symbols = await client.call_tool("symbol_search", {"query": QUERY})
        stats = await client.call_tool("project_info", {"action": "stats"})
    # A store nobody scanned yet: symbol search says what to run, stats says what it holds.
    assert symbols.is_error
    assert only_text(symbols) == core_error(reads.symbol_search, settings, QUERY)
    assert only_text(stats) == reads.to_json(reads.project_info(settings, "stats"))


@pytest.mark.anyio
async def test_unexpected_failure_is_a_generic_error_without_traceback(
        settings: Settings, caplog: pytest.LogCaptureFixture):
    conn = connect_writer(settings.portfolio_db, "portfolio")  # migrations recorded...
    conn.execute("DROP TABLE projects")  # ...but a table gone: a failure no domain error names
    conn.close()
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("symbol_search", {"query": QUERY})
        after = await client.call_tool("session_search", {"query": "still serving"})
    assert result.is_error
    text = only_text(result)
    assert "Traceback" not in text and "sqlite" not in text.lower()
    assert json.loads(text)["error"] == "internal"
    assert json.loads(only_text(after))["error"] != "internal"  # the server still serves
    # The traceback goes to the server's log (stderr), never to the client.
    failed = [r for r in caplog.records if r.name == "solograph.mcp" and r.exc_info]
    assert failed and "symbol_search" in failed[0].getMessage()


# --- stdio ---------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.anyio
async def test_stdio_subprocess_answers_like_the_core(indexed: Settings):
    command, *args = solograph_cmd("mcp")
    params = StdioServerParameters(command=command, args=args, env=env_for(indexed))
    async with Client(params) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("symbol_search", {"query": QUERY})
        missing = await client.call_tool("project_info", {"action": "deps", "project": "nope"})
    assert listed == TOOLS
    assert not result.is_error
    assert only_text(result) == reads.to_json(reads.symbol_search(indexed, QUERY))
    assert missing.is_error
    assert only_text(missing) == core_error(reads.project_info, indexed, "deps", project="nope")


# --- streamable HTTP -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server(indexed: Settings, tmp_path_factory: pytest.TempPathFactory):
    """The real `solograph mcp --http` command, with a token."""
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    with process(solograph_cmd("mcp", "--http", "--port", str(port)),
                 env=env_for(indexed, SOLOGRAPH_TOKEN=TOKEN), log=log) as proc:
        try:
            wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        except (RuntimeError, TimeoutError):
            pytest.fail(f"server did not start:\n{log.read_text(errors='replace')}")
        yield f"http://127.0.0.1:{port}"
        assert proc.poll() is None, log.read_text(errors="replace")


@contextlib.asynccontextmanager
async def sdk_client(base: str, token: str | None = TOKEN, *,
                     mode: str = "auto") -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending the bearer token on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(20.0)) as http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


@pytest.mark.integration
@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http_answers_like_the_core(indexed: Settings, http_server: str, mode: str):
    async with sdk_client(http_server, mode=mode) as client:
        wire = {t.name: t.model_dump(by_alias=True, exclude_none=True)
                for t in (await client.list_tools()).tools}
        result = await client.call_tool("symbol_search", {"query": QUERY})
        stats = await client.call_tool("project_info", {"action": "stats"})
        sessions = await client.call_tool("session_search", {"query": "x"})
        assert client.instructions
    assert set(wire) == TOOLS
    assert {n for n, t in wire.items() if t.get("_meta", {}).get("anthropic/alwaysLoad")} == \
        ALWAYS_LOADED
    assert only_text(result) == reads.to_json(reads.symbol_search(indexed, QUERY))
    assert only_text(stats) == reads.to_json(reads.project_info(indexed, "stats"))
    assert only_text(sessions) == core_text(reads.session_search, indexed, "x")


@pytest.mark.integration
@pytest.mark.anyio
async def test_http_sdk_client_without_token_is_refused(http_server: str):
    # The SDK reports the 401 as MCPError(-32603, "Server returned an error response"), nested
    # in task-group ExceptionGroups; the status itself is checked with httpx below.
    with pytest.raises((MCPError, ExceptionGroup)) as caught:
        async with sdk_client(http_server, token=None) as client:
            await client.list_tools()
    assert caught.errisinstance(MCPError) or caught.group_contains(MCPError)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}


@pytest.mark.integration
def test_http_guard_token_host_origin_and_health(http_server: str):
    url = f"{http_server}/mcp"
    with httpx.Client(timeout=10) as http:
        none = http.post(url, json=INITIALIZE, headers=MCP_HEADERS)
        wrong = http.post(url, json=INITIALIZE,
                          headers={**MCP_HEADERS, "Authorization": "Bearer wrong"})
        right = http.post(url, json=INITIALIZE,
                          headers={**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"})
        host = http.get(f"{http_server}/health", headers={"Host": "evil.example:8766"})
        host_mcp = http.post(url, json=INITIALIZE, headers={
            **MCP_HEADERS, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example"})
        origin = http.post(url, json=INITIALIZE, headers={
            **MCP_HEADERS, "Authorization": f"Bearer {TOKEN}",
            "Origin": "http://evil.example"})
        health = http.get(f"{http_server}/health")
    assert none.status_code == 401 and none.json()["error"] == "unauthorized"
    assert none.headers["www-authenticate"].startswith("Bearer")
    assert wrong.status_code == 401
    assert right.status_code == 200  # exactly /mcp: no 307 to /mcp/
    assert "solograph" in right.text
    assert host.status_code == 421 and host_mcp.status_code == 421
    assert origin.status_code == 403
    assert health.status_code == 200 and health.json()["ok"] is True
    assert set(health.json()["stores"]) == {"portfolio", "sessions", "kb", "sources"}


@pytest.mark.integration
def test_http_beyond_loopback_without_token_refuses_to_start(indexed: Settings):
    port = free_port()
    done = subprocess.run(solograph_cmd("mcp", "--http", "--host", "0.0.0.0", "--port", str(port)),
                          env=env_for(indexed), capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "token" in done.stderr and "SOLOGRAPH_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.integration
@pytest.mark.anyio
async def test_http_logs_one_line_per_call_without_its_arguments(indexed: Settings, tmp_path):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    port = free_port()
    log = tmp_path / "server.log"
    with process(solograph_cmd("mcp", "--http", "--port", str(port)),
                 env=env_for(indexed, SOLOGRAPH_TOKEN=TOKEN), log=log) as proc:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(f"{base}/health", proc=proc)
        async with sdk_client(base) as client:
            await client.call_tool("symbol_search", {"query": QUERY})
            await client.call_tool("symbol_search", {"query": f"token {secret}",
                                                     "project": "private-thing"})
            await client.call_tool("project_info", {"action": "deps", "project": "nope"})
    lines = [ln for ln in log.read_text(errors="replace").splitlines() if " call " in ln]
    assert len(lines) == 3, lines
    expected = reads.symbol_search(indexed, QUERY)["count"]
    assert "call symbol_search ms=" in lines[0] and f"results={expected} error=-" in lines[0]
    assert lines[2].endswith("results=- error=unknown_project"), lines[2]
    text = log.read_text(errors="replace")
    assert secret not in text and "private-thing" not in text and "ghp_" not in text
