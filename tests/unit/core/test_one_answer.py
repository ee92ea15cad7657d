"""One answer everywhere, for the reads whose adapters once differed: a page read through
kb_search's `get` is the page alone (as `kb get --json` and /v1/kb/page print it), a bad
`project_info` action is the read's own bad_query error over MCP too (the SDK's tools and the
stdio server's early answers), and the usage log counts a page read as one found."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from solograph import reads
from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.usage import UsageLog, read_records
from solograph_services.api.app import create_app
from solograph_services.mcp import calls
from solograph_services.mcp.early import ANSWERED, Early
from solograph_services.mcp.server import build_server
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.procs import solograph_cmd

PAGE = "wiki/recipe-box.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # A generous sync budget: on a loaded machine a read must not leave files for later, or
    # the answers would differ by their freshness, not by their shape.
    return Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path),
                    claude_projects=tmp_path / "claude", sync_budget_ms=60_000)


@pytest.fixture
def portfolio(tmp_path: Path, settings: Settings) -> Settings:
    scanned = Settings(home=settings.home, scan_paths=(make_portfolio(tmp_path),))
    refresh_registry(scanned)
    scan_portfolio(scanned)
    return scanned


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "KB_"))}
    env.update(SOLOGRAPH_HOME=str(settings.home), KB_PATH=str(settings.kb_path),
               SOLOGRAPH_CLI_SERVER="off", SOLOGRAPH_SEMANTIC=settings.semantic,
               SOLOGRAPH_SYNC_BUDGET_MS=str(settings.sync_budget_ms))
    return subprocess.run(solograph_cmd(*args), capture_output=True, text=True, timeout=60,
                          env=env)


@pytest.mark.anyio
async def test_a_page_read_through_kb_search_is_the_page_alone_everywhere(settings):
    reads.kb_get(settings, PAGE)  # synced once, so every adapter below reads a settled index
    async with Client(build_server(settings, usage=UsageLog(settings.home / "usage")),
                      raise_exceptions=True) as client:
        result = await client.call_tool("kb_search", {"get": PAGE})
    over_mcp = result.content[0].text
    from_cli = cli(settings, "kb", "get", PAGE, "--json")
    assert from_cli.returncode == 0, from_cli.stderr
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        over_http = http.get("/v1/kb/page", params={"ref": PAGE})
        searched = http.get("/v1/kb", params={"get": PAGE})
    assert over_http.status_code == 200 and searched.status_code == 200
    answers = {"mcp": over_mcp, "cli": from_cli.stdout.rstrip("\n"), "http": over_http.text,
               "http-search": searched.text}
    assert len(set(answers.values())) == 1, answers
    page = json.loads(over_mcp)
    assert page["path"] == PAGE and "results" not in page and "count" not in page
    assert not result.is_error and result.structured_content == page


@pytest.mark.anyio
async def test_a_bad_action_over_mcp_is_the_reads_bad_query(portfolio):
    settings = portfolio
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        over_http = http.get("/v1/project_info", params={"action": "explian"})
    assert over_http.status_code == 400
    async with Client(build_server(settings), raise_exceptions=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("project_info", {"action": "explian"})
    assert result.is_error
    error = json.loads(result.content[0].text)
    assert error["error"] == "bad_query" and "explain" in error["hint"]
    assert error == json.loads(over_http.text)  # the same error the API answers
    # the choices are still listed for the agent
    assert "stats" in tools["project_info"].input_schema["properties"]["action"]["enum"]


def test_the_stdio_servers_early_answer_is_the_same_bad_query(portfolio):
    settings = portfolio
    written: list[dict] = []
    early = Early(settings, usage=None, handoff=None, client="test", write=written.append)
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "project_info", "arguments": {"action": "explian"}}}).encode()
    assert early.handle(line) == ANSWERED
    result = written[0]["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"])["error"] == "bad_query"


def test_the_usage_log_counts_a_page_read_as_one_found(settings):
    log = UsageLog(settings.home / "usage")
    outcome = calls.run(settings, "kb_search", {"get": PAGE}, usage=log)
    assert outcome.error is None
    missing = calls.run(settings, "kb_search", {"get": "wiki/no-such-page.md"}, usage=log)
    assert missing.error is not None
    from datetime import UTC, datetime, timedelta

    found, failed = list(read_records(log.folder, datetime.now(UTC) - timedelta(days=1)))
    assert found["count"] == 1 and found["ids"] == [PAGE] and found["error"] is None
    assert failed["count"] is None and failed["error"] == "not_found"
