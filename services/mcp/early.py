"""What the stdio server answers itself while the MCP SDK is still loading (about half a
second): `ping`, the lists (`listing.py`'s shipped answers) and a `tools/call` whose arguments
are exactly of their parameters' types, run through `calls.run` like the SDK's own tools.

Anything else is left to the SDK, and so is everything after it, in order: `handle` says
`DEFER`, and the server replays that line to the SDK once it has loaded. Notifications are
replayed too (`KEEP`), so the SDK's session sees `notifications/initialized`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from solograph_services.mcp import calls, listing

if TYPE_CHECKING:
    from solograph.config import Settings
    from solograph.index import Answer, Param
    from solograph.usage import UsageLog
    from solograph_services.common.handoff import Handoff

ANSWERED, KEEP, DEFER = "answered", "keep", "defer"


class Early:
    def __init__(self, settings: Settings, *, usage: UsageLog | None, handoff: Handoff | None,
                 client: str | None, write: Any) -> None:
        self.settings = settings
        self.usage = usage
        self.handoff = handoff
        self.client = client
        self.write = write  # one JSON-RPC message (a dict) out
        self._lists: dict[str, dict] | None = None
        self._tools: dict[str, Answer] | None = None

    def handle(self, line: bytes) -> str:
        try:
            message = json.loads(line)
        except ValueError:
            return DEFER  # the SDK says what is wrong with it
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return DEFER
        if "id" not in message:
            return KEEP
        method, params = message["method"], message.get("params") or {}
        if not isinstance(params, dict):
            return DEFER
        if method == "ping":
            result: dict | None = {}
        elif method == "tools/call":
            result = self._call(params)
        else:
            result = self._list(method, params)
        if result is None:
            return DEFER
        self.write({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return ANSWERED

    def _list(self, method: str, params: dict) -> dict | None:
        if set(params) - {"_meta"}:  # a cursor, or anything the SDK should judge
            return None
        if self._lists is None:
            self._lists = listing.shipped()
        return self._lists.get(method)

    def _call(self, params: dict) -> dict | None:
        if self._tools is None:
            from solograph.indexes import all_answers

            self._tools = {a.name: a for _i, a in all_answers() if a.tool}
        answer = self._tools.get(params.get("name"))  # type: ignore[arg-type]
        given = params.get("arguments") or {}
        if answer is None or not isinstance(given, dict) or set(params) - {
                "name", "arguments", "_meta"}:
            return None
        asked = [p for p in answer.params if not p.caller]
        if set(given) - {p.name for p in asked}:
            return None
        args: dict[str, Any] = {}
        for p in asked:
            if p.name in given:
                if not _fits(p, given[p.name]):
                    return None
                args[p.name] = given[p.name]
            elif p.required:
                return None
            else:
                args[p.name] = p.default
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else None
        who = calls.identify(None, meta, self.client)
        for p in answer.params:
            if p.caller == "session":  # as the SDK's tools do: the caller is left out
                args[p.name] = who[1]
        outcome = calls.run(self.settings, answer.name, args, who=who, usage=self.usage,
                            handoff=self.handoff)
        return outcome.result()


def _fits(p: Param, value: Any) -> bool:
    """Whether the SDK would pass `value` to the tool as it is (no coercion, no error)."""
    if value is None:
        return not p.required and p.default is None
    if p.type is bool:
        fits = isinstance(value, bool)
    elif p.type is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
    elif p.type is str:
        fits = isinstance(value, str)
    else:
        return False
    return fits  # a word outside `choices` is the read's to refuse (bad_query), as the SDK's
