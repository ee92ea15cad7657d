"""The lists the SDK answers (`tools/list`, and the empty `prompts/list`, `resources/list` and
`resources/templates/list` MCPServer always offers), shipped in `lists.json` so the stdio
server can answer them before the SDK has loaded (`early.py`).

`python -m solograph_services.mcp.listing` writes the file again from the SDK; a test fails when
it differs from what the SDK answers now (a tool, a parameter or an output schema changed).
The early server uses the file only when it lists exactly the tools the indexes offer, so a
new index's tool is answered by the SDK until the file is written again.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solograph.config import Settings

FILE = Path(__file__).with_name("lists.json")
METHODS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def tool_names() -> list[str]:
    """The tools the indexes offer, in the order the SDK lists them."""
    from solograph.indexes import all_answers

    return [answer.name for _index, answer in all_answers() if answer.tool]


def shipped() -> dict[str, dict]:
    """The shipped results by method; none when the file is not this build's."""
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
        tools = data["tools/list"]["tools"]
        names = [t["name"] for t in tools]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return data if names == tool_names() else {}


def sdk_answers(settings: Settings, requests: list[dict]) -> list[dict]:
    """What the SDK's own server writes on stdio for `requests`, one answer per request with
    an id, in the order the ids were asked."""
    import anyio
    from mcp.server.stdio import stdio_server

    from solograph_services.mcp.server import build_server

    server = build_server(settings)
    wanted = [r["id"] for r in requests if "id" in r]
    written: dict[Any, dict] = {}
    done = anyio.Event()

    class Lines:
        async def __aiter__(self):
            for request in requests:
                yield json.dumps(request) + "\n"
            with anyio.fail_after(60):
                await done.wait()

    class Collect:
        async def write(self, text: str) -> None:
            message = json.loads(text)
            written[message.get("id")] = message
            if all(i in written for i in wanted):
                done.set()

        async def flush(self) -> None:
            pass

    async def run() -> None:
        low = server._lowlevel_server  # what the SDK's own run_stdio_async serves
        async with stdio_server(stdin=Lines(), stdout=Collect()) as (read, write):
            await low.run(read, write, low.create_initialization_options())

    anyio.run(run)
    return [written[i] for i in wanted]


def from_sdk() -> dict[str, dict]:
    """The results the SDK gives now, by method."""
    from solograph.config import Settings

    with tempfile.TemporaryDirectory() as home:
        answers = sdk_answers(Settings(home=Path(home)), [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "listing", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            *({"jsonrpc": "2.0", "id": n, "method": m} for n, m in enumerate(METHODS, 1))])
    return {m: a["result"] for m, a in zip(METHODS, answers[1:], strict=True)}


def main() -> None:
    FILE.write_text(json.dumps(from_sdk(), ensure_ascii=False, indent=1) + "\n",
                    encoding="utf-8")
    print(f"wrote {FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
