"""The stdio server answers `initialize`, the lists and plain tool calls before the MCP SDK has
loaded, with exactly the answers the SDK gives (compared here, so an SDK upgrade or a changed
tool cannot make them drift), then serves through the SDK as if it had answered itself."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.usage import read_records, usage_dir
from solograph_services.mcp import listing
from solograph_services.mcp.early import ANSWERED, DEFER, KEEP, Early
from solograph_services.mcp.handshake import HANDSHAKE_VERSIONS, initialize_result
from solograph_services.mcp.listing import sdk_answers
from tests.support.portfolio import make_portfolio
from tests.support.procs import solograph_cmd

pytestmark = pytest.mark.integration


def initialize(version: str, request_id: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}


def sdk_answer(settings: Settings, request: dict) -> dict:
    """What the SDK itself writes on stdio for `request`."""
    return sdk_answers(settings, [request])[0]


def test_the_handshake_revisions_are_the_sdks():
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "1999-01-01"])
def test_the_early_answer_is_the_sdks_answer(tmp_path: Path, version: str):
    sdk = sdk_answer(Settings(home=tmp_path), initialize(version))
    assert sdk == {"jsonrpc": "2.0", "id": 1, "result": initialize_result(
        initialize(version)["params"])}


def test_the_process_answers_initialize_then_serves_through_the_sdk(tmp_path: Path):
    lines = [initialize("2025-11-25", 7), {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}]
    done = subprocess.run(solograph_cmd("mcp"), input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=60,
                          env={"SOLOGRAPH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"})
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [7, 8]  # the SDK's own answer to 7 was dropped
    assert answers[0]["result"] == initialize_result(lines[0]["params"])
    assert {t["name"] for t in answers[1]["result"]["tools"]} == {
        "symbol_search", "project_info", "session_search", "kb_search", "source_search"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("early")
    kb = base / "kb"
    kb.mkdir()
    (kb / "auth.md").write_text("# Auth middleware\n\nTokens are checked before routing.\n")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),), kb_path=kb,
                        claude_projects=base / "claude-projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings


def call(request_id: int, name: str, arguments: dict | None = None) -> dict:
    params: dict = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


EARLY = [  # requests the early server answers itself, each as the SDK would
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
    {"jsonrpc": "2.0", "id": 5, "method": "resources/templates/list"},
    call(6, "symbol_search", {"query": "auth middleware"}),
    call(7, "symbol_search", {"query": "auth middleware", "limit": 2, "project": None}),
    call(8, "kb_search", {"query": "auth middleware", "pages": False}),
    call(9, "kb_search"),  # no query: the domain error
    call(10, "project_info", {"action": "explain", "project": "no-such-project"}),
    call(11, "session_search", {"query": "tokens"}),
    call(12, "project_info", {"action": "no-such-action"}),  # the read's bad_query, as the SDK's
]
LEFT_TO_THE_SDK = [
    call(20, "symbol_search", {"query": "auth", "limit": "2"}),  # the SDK coerces or refuses
    call(21, "symbol_search", {"query": "auth", "unknown": 1}),
    call(22, "symbol_search", {"limit": 2}),  # a required argument missing
    call(23, "no_such_tool", {}),
    {"jsonrpc": "2.0", "id": 25, "method": "tools/list", "params": {"cursor": "x"}},
    {"jsonrpc": "2.0", "id": 26, "method": "resources/read", "params": {"uri": "x://y"}},
    {"jsonrpc": "2.0", "id": 27, "method": "tools/call", "params": "not an object"},
]


def early_answers(settings: Settings, requests: list[dict]) -> list[tuple[str, dict | None]]:
    out: list[dict] = []
    early = Early(settings, usage=None, handoff=None, client="test", write=out.append)
    verdicts = []
    for request in requests:
        before = len(out)
        verdict = early.handle(json.dumps(request).encode())
        verdicts.append((verdict, out[before] if len(out) > before else None))
    return verdicts


def test_the_shipped_lists_are_the_sdks():
    # When a tool, a parameter or an output schema changes this fails until
    # `python -m solograph_services.mcp.listing` writes lists.json again.
    assert listing.shipped() == listing.from_sdk()


def test_early_answers_are_the_sdks_answers(indexed: Settings):
    sdk = sdk_answers(indexed, [initialize("2025-11-25", 0),
                                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                *EARLY])[1:]
    early = early_answers(indexed, EARLY)
    assert [v for v, _ in early] == [ANSWERED] * len(EARLY)
    assert [a for _, a in early] == sdk


def test_what_the_early_server_cannot_judge_it_leaves_to_the_sdk(indexed: Settings):
    verdicts = early_answers(indexed, LEFT_TO_THE_SDK)
    assert verdicts == [(DEFER, None)] * len(LEFT_TO_THE_SDK)
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert early_answers(indexed, [note]) == [(KEEP, None)]


def test_lists_of_another_build_are_not_answered(monkeypatch: pytest.MonkeyPatch,
                                                 indexed: Settings):
    monkeypatch.setattr(listing, "tool_names", lambda: ["symbol_search"])
    assert listing.shipped() == {}
    assert early_answers(indexed, [EARLY[1]]) == [(DEFER, None)]


def test_the_process_answers_every_request_once_early_or_through_the_sdk(indexed: Settings):
    again = [dict(m, id=m["id"] + 1000) for m in EARLY]  # after the deferred call: the SDK's
    lines = [initialize("2025-11-25", 100),
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *EARLY, LEFT_TO_THE_SDK[0], *again]
    wanted = {m["id"] for m in lines if "id" in m}
    env = {"SOLOGRAPH_HOME": str(indexed.home), "KB_PATH": str(indexed.kb_path),
           "CODEGRAPH_SCAN_PATH": str(indexed.scan_paths[0]),
           "CLAUDE_PROJECTS_PATH": str(indexed.claude_projects), "PATH": "/usr/bin:/bin",
           "SOLOGRAPH_EMBEDDER": "off"}  # no store embedded between the two rounds
    with subprocess.Popen(solograph_cmd("mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdin and proc.stdout
        watchdog = threading.Timer(60, proc.kill)  # a hung server fails the test, not the run
        watchdog.start()
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
        proc.stdin.flush()
        answers: dict = {}
        while set(answers) != wanted:  # stdin stays open until every answer is in, as a client's
            line = proc.stdout.readline()
            assert line, f"the server stopped with {sorted(wanted - set(answers))} unanswered"
            message = json.loads(line)
            assert message["id"] not in answers, message["id"]
            answers[message["id"]] = message
        proc.stdin.close()
        stderr = proc.stderr.read() if proc.stderr else ""
        watchdog.cancel()
    for request in EARLY:
        assert answers[request["id"]]["result"] == answers[request["id"] + 1000]["result"]
    assert "call symbol_search" in stderr  # the early calls log as the SDK's do


def test_an_early_call_is_counted_in_the_usage_log_as_the_sdks_is(indexed: Settings):
    from datetime import UTC, datetime, timedelta

    since = datetime.now(UTC) - timedelta(seconds=1)
    from solograph.usage import UsageLog

    usage = UsageLog(usage_dir(indexed))
    early = Early(indexed, usage=usage, handoff=None, client="early-client", write=lambda m: 0)
    assert early.handle(json.dumps(call(1, "symbol_search", {"query": "auth middleware"}))
                        .encode()) == ANSWERED
    record = [r for r in read_records(usage_dir(indexed), since) if r.get("kind") == "tool"][-1]
    assert record["tool"] == "symbol_search" and record["client"] == "early-client"
    assert record["error"] is None and record["count"] >= 1
