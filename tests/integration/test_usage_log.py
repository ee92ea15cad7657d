"""Usage lines from the real MCP server over stdio and streamable HTTP; none from the CLI or
from a server started inside a private folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.usage import usage_dir
from tests.support.portfolio import make_portfolio
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http

pytestmark = [pytest.mark.integration]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def indexed(tmp_path) -> Settings:
    settings = Settings(home=tmp_path / "home", scan_paths=(make_portfolio(tmp_path),))
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings


def env_for(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), **extra}


def logged(settings: Settings) -> list[dict]:
    folder = usage_dir(settings)
    if not folder.exists():
        return []
    return [json.loads(line) for p in sorted(folder.glob("usage-*.jsonl"))
            for line in p.read_text().splitlines()]


async def _stdio_call(settings: Settings, cwd: Path | None = None, **env: str) -> None:
    command, *args = solograph_cmd("mcp")
    params = StdioServerParameters(command=command, args=args, env=env_for(settings, **env),
                                   cwd=str(cwd) if cwd else None)
    async with Client(params) as client:
        result = await client.call_tool("symbol_search", {"query": "auth middleware"})
        assert not result.is_error


@pytest.mark.anyio
async def test_stdio_calls_are_logged_with_the_session(indexed):
    await _stdio_call(indexed, CLAUDE_CODE_SESSION_ID="sess-stdio")
    (line,) = logged(indexed)
    assert line["tool"] == "symbol_search" and line["session"] == "sess-stdio"
    assert line["count"] > 0 and len(line["ids"]) == 3 and line["client"]
    assert line["ms"] > 0 and line["bytes"] > 100


@pytest.mark.anyio
async def test_nothing_is_logged_from_a_server_started_in_a_private_folder(indexed, tmp_path):
    private = tmp_path / "secret-client"
    private.mkdir()
    (private / ".solograph-private").touch()
    await _stdio_call(indexed, cwd=private, CLAUDE_CODE_SESSION_ID="sess-private")
    assert logged(indexed) == []


@pytest.mark.anyio
async def test_http_calls_are_logged_with_the_session_header(indexed, tmp_path):
    port = free_port()
    with process(solograph_cmd("mcp", "--http", "--port", str(port)), env=env_for(indexed),
                 log=tmp_path / "mcp.log") as proc:
        wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        headers = {"x-claude-code-session-id": "sess-http"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(20)) as http, \
                Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                              http_client=http)) as client:
            await client.call_tool("project_info", {"action": "explain", "project": "nope"})
    (line,) = logged(indexed)
    assert line["tool"] == "project_info" and line["session"] == "sess-http"
    assert line["error"] == "unknown_project"


def test_cli_reads_are_not_logged(indexed):
    out = subprocess.run(solograph_cmd("symbols", "auth middleware", "--json"),
                         env=env_for(indexed), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout)["count"] > 0
    assert logged(indexed) == []
