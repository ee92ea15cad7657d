"""One implementation of every read: the CLI `--json`, the HTTP API, MCP over stdio and MCP
over streamable HTTP (the SDK's real client) return the same bytes, answers and errors alike."""

from __future__ import annotations

import contextlib
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from urllib.parse import urlencode

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from solograph import jobs
from solograph.config import Settings
from tests.support.portfolio import make_portfolio
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

# (tool, arguments): each read the product has, plus errors that must also agree.
CASES = [
    ("symbol_search", {"query": "auth middleware"}),
    ("symbol_search", {"query": "parse http response", "project": "web-app", "limit": 3}),
    ("symbol_search", {"query": 'NEAR("auth" OR) *draw'}),
    ("symbol_search", {"query": "widget", "project": "nope"}),
    ("symbol_search", {"query": "!!!"}),
    ("project_info", {"action": "explain", "project": "web-app"}),
    ("project_info", {"action": "deps", "project": "native-tools"}),
    ("project_info", {"action": "stats"}),
    ("project_info", {"action": "shared"}),
    ("project_info", {"action": "shared", "package": "react"}),
    ("project_info", {"action": "dupes", "name": "auth middleware"}),
    ("project_info", {"action": "projects"}),
    ("project_info", {"action": "explain", "project": "nope"}),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("contract")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),))
    jobs.refresh_registry(settings)
    jobs.scan_portfolio(settings)
    return settings


def child_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLOGRAPH_")}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "PYTHONUNBUFFERED": "1"}


@pytest.fixture(scope="module")
def servers(indexed, tmp_path_factory):
    """The real `solograph api` and `solograph mcp --http` commands on free loopback ports."""
    logs = tmp_path_factory.mktemp("contract-logs")
    api_port, mcp_port = free_port(), free_port()
    env = child_env(indexed)
    with process(solograph_cmd("api", "--port", str(api_port)), env=env,
                 log=logs / "api.log") as api, \
            process(solograph_cmd("mcp", "--http", "--port", str(mcp_port)), env=env,
                    log=logs / "mcp.log") as mcp:
        for port, proc, name in ((api_port, api, "api"), (mcp_port, mcp, "mcp")):
            try:
                wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
            except (RuntimeError, TimeoutError):
                pytest.fail((logs / f"{name}.log").read_text(errors="replace"))
        yield f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{mcp_port}"


def via_cli(settings: Settings, tool: str, args: dict) -> str:
    if tool == "symbol_search":
        argv = ["symbols", args["query"]]
        if "project" in args:
            argv += ["-p", args["project"]]
        if "limit" in args:
            argv += ["-n", str(args["limit"])]
    else:
        action = args["action"]
        positional = args.get("project") or args.get("package") or args.get("name")
        argv = [action, *([positional] if positional else [])]
    out = subprocess.run(solograph_cmd(*argv, "--json"), env=child_env(settings),
                         capture_output=True, text=True, timeout=60)
    return out.stdout.rstrip("\n")


def via_api(base: str, tool: str, args: dict) -> str:
    if tool == "symbol_search":
        params = {"q": args["query"], **{k: v for k, v in args.items() if k != "query"}}
        url = f"{base}/v1/symbols?{urlencode(params)}"
    else:
        url = f"{base}/v1/project_info?{urlencode(args)}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.read().decode()


@contextlib.asynccontextmanager
async def http_client(base: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http, \
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        yield client


async def via_mcp(client: Client, tool: str, args: dict) -> str:
    result = await client.call_tool(tool, args)
    assert len(result.content) == 1
    return result.content[0].text


async def test_every_read_is_the_same_bytes_everywhere(indexed, servers):
    api_base, mcp_base = servers
    command, *argv = solograph_cmd("mcp")
    stdio = StdioServerParameters(command=command, args=argv, env=child_env(indexed))
    async with Client(stdio) as over_stdio, http_client(mcp_base) as over_http:
        for tool, args in CASES:
            answers = {
                "cli": via_cli(indexed, tool, args),
                "api": via_api(api_base, tool, args),
                "mcp-stdio": await via_mcp(over_stdio, tool, args),
                "mcp-http": await via_mcp(over_http, tool, args),
            }
            assert answers["cli"].startswith("{"), (tool, args, answers["cli"])
            assert len(set(answers.values())) == 1, (tool, args, answers)
