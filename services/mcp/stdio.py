"""MCP over stdio (`solograph mcp`, what `claude mcp add ... -- solograph` runs), answering
`initialize` before the MCP SDK has loaded.

Importing the SDK takes most of half a second, and a client whose first request waits that long
may start its session without our tools. So the SDK loads in a thread while the first line is
read; an `initialize` is answered at once from `handshake.py` (a test keeps it equal to the
SDK's own answer), then handed to the SDK as well, whose own answer to it is dropped, so its
session is in the state the client believes. Until the SDK has loaded, `early.py` answers the
lists and tool calls it can (bench/startup_bench.py, installed wheel: the first symbol_search
answered 189 ms after the start, 656 ms when the SDK answers it); the first request it cannot
answer, and everything after it, is the SDK's.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import TYPE_CHECKING, Any

from solograph_services.mcp import calls
from solograph_services.mcp.early import ANSWERED, DEFER, Early
from solograph_services.mcp.handshake import initialize_result

if TYPE_CHECKING:
    from solograph.config import Settings


def run(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until stdin closes; logs go to stderr."""
    from solograph import readers

    readers.keep()  # one process answers every call of the session: its readers stay open
    try:
        _run(settings)
    finally:
        readers.release()


def _run(settings: Settings) -> None:
    from solograph.usage import UsageLog
    from solograph_services.common.handoff import Handoff

    calls.log_to_stderr()
    usage, handoff = UsageLog.for_process(settings), Handoff(settings)
    loaded: dict[str, Any] = {}

    def load() -> None:
        try:
            from solograph_services.mcp.server import build_server

            loaded["server"] = build_server(settings, usage=usage, handoff=handoff)
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            loaded["error"] = exc

    loader = threading.Thread(target=load, name="mcp-sdk", daemon=True)
    loader.start()
    first = sys.stdin.buffer.readline()
    answered = _answer_initialize(first)
    replay = [first]
    if answered is not None:
        early = Early(settings, usage=usage, handoff=handoff, client=_client(first),
                      write=_write)
        while loader.is_alive():
            line = sys.stdin.buffer.readline()
            if not line:
                break
            verdict = early.handle(line)
            if verdict != ANSWERED:
                replay.append(line)
            if verdict == DEFER:
                break
    loader.join()
    if "error" in loaded:
        raise loaded["error"]
    import anyio

    from solograph.semantic.read import warm

    warm(settings)  # after the SDK: the session's first fused read need not load the model
    anyio.run(_serve, loaded["server"], replay, answered)


def _write(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message, ensure_ascii=False,
                                       separators=(",", ":")).encode() + b"\n")
    sys.stdout.buffer.flush()


def _client(line: bytes) -> str | None:
    """The client's name in its `initialize`."""
    params = json.loads(line).get("params")
    info = params.get("clientInfo") if isinstance(params, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


def _answer_initialize(line: bytes) -> object:
    """Answer an `initialize` on stdout now; returns its id (None when the line was not one)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not (isinstance(message, dict) and message.get("method") == "initialize"
            and message.get("id") is not None):
        return None
    _write({"jsonrpc": "2.0", "id": message["id"],
            "result": initialize_result(message.get("params"))})
    return message["id"]


async def _serve(server: Any, replay: list[bytes], answered: object) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    stdin = _Replayed(replay, anyio.wrap_file(sys.stdin))
    stdout = _Filtered(anyio.wrap_file(sys.stdout), answered)
    low = server._lowlevel_server  # the SDK's own run_stdio_async does the same
    async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
        await low.run(read, write, low.create_initialization_options())


class _Replayed:
    """stdin, with the lines already read (and not answered) first."""

    def __init__(self, lines: list[bytes], rest: Any) -> None:
        self.lines = [line.decode("utf-8", errors="replace") for line in lines if line]
        self.rest = rest

    async def __aiter__(self):
        for line in self.lines:
            yield line
        async for line in self.rest:
            yield line


class _Filtered:
    """stdout, without the SDK's answer to the `initialize` already answered."""

    def __init__(self, out: Any, answered: object) -> None:
        self.out = out
        self.answered = answered

    async def write(self, text: str) -> None:
        if self.answered is not None and _answers(text, self.answered):
            self.answered = None
            return
        await self.out.write(text)

    async def flush(self) -> None:
        await self.out.flush()


def _answers(text: str, request_id: object) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == request_id and (
        "result" in message or "error" in message)
