"""The stdio server answers `initialize` before the MCP SDK has loaded, with exactly the answer
the SDK gives (compared here, so an SDK upgrade cannot make them drift), then serves through
the SDK as if it had answered itself."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from solograph.config import Settings
from solograph_services.mcp.handshake import HANDSHAKE_VERSIONS, initialize_result
from solograph_services.mcp.server import build_server
from tests.support.procs import solograph_cmd

pytestmark = pytest.mark.integration


def initialize(version: str, request_id: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}


class _Lines:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    async def __aiter__(self):
        for line in self.lines:
            yield line


class _Collect:
    def __init__(self) -> None:
        self.text: list[str] = []

    async def write(self, text: str) -> None:
        self.text.append(text)

    async def flush(self) -> None:
        pass


def sdk_answer(settings: Settings, request: dict) -> dict:
    """What the SDK itself writes on stdio for `request`."""
    server = build_server(settings)
    out = _Collect()

    async def run() -> None:
        low = server._lowlevel_server
        async with stdio_server(stdin=_Lines([json.dumps(request) + "\n"]), stdout=out) as (
                read, write):
            await low.run(read, write, low.create_initialization_options())

    anyio.run(run)
    return json.loads(out.text[0])


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
