"""One MCP tool call, whichever server answers it: the SDK's tools (`tools.py`) and the stdio
server's early answers (`early.py`, before the SDK has loaded) both run a call through `run`,
so the text, the usage record and the log line of a call cannot differ between them. Imports
no MCP SDK."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from solograph import reads
from solograph.errors import SolographError

if TYPE_CHECKING:
    from solograph.config import Settings
    from solograph.usage import UsageLog
    from solograph_services.common.handoff import Handoff

log = logging.getLogger("solograph.mcp")

INTERNAL_ERROR = {"error": "internal",
                  "message": "solograph could not answer this call",
                  "hint": "retry once; if it fails again, the server's stderr log has the cause"}

SESSION_HEADERS = ("x-claude-code-session-id", "x-claude-session-id", "x-session-id")
SESSION_ENV = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")


class Outcome:
    """What a call came to: the answer, or the error the client is shown (exactly one)."""

    __slots__ = ("answer", "error", "text")

    def __init__(self, answer: dict | None, error: dict | None) -> None:
        self.answer = answer
        self.error = error
        self.text = reads.to_json(answer if error is None else error)

    def result(self) -> dict:
        """The call's result as the SDK writes it on the wire."""
        content = [{"type": "text", "text": self.text}]
        if self.error is not None:
            return {"content": content, "isError": True}
        return {"content": content, "isError": False, "structuredContent": self.answer}


def identify(headers: Mapping[str, str] | None, meta: Mapping[str, Any] | None,
             client_name: str | None) -> tuple[str | None, str | None]:
    """(client name, Claude Code session id) when the client says them: the session id from
    a request header, the request's `_meta`, or the environment a stdio client started us
    with; the name from the initialize handshake, else the User-Agent."""
    client = session = None
    if headers:
        session = next((headers.get(h) for h in SESSION_HEADERS if headers.get(h)), None)
        agent = headers.get("user-agent") or ""
        client = agent.split("/", 1)[0] or None
    if session is None and meta:
        session = next((str(v) for k, v in meta.items()
                        if isinstance(v, str) and "session" in k.lower()), None)
    if session is None:
        session = next((os.environ[e] for e in SESSION_ENV if os.environ.get(e)), None)
    return client_name or client, session


def run(settings: Settings, tool: str, args: dict[str, Any], *,
        who: tuple[str | None, str | None] = (None, None), usage: UsageLog | None = None,
        handoff: Handoff | None = None, read: Callable[..., dict] | None = None) -> Outcome:
    """Run the read behind `tool` (by default `reads.read(tool, ...)`) and translate the
    outcome once: the answer, a domain error as a tool error, anything else as a generic tool
    error with the traceback on stderr only. An answer that left files unread has its sync job
    handed to the worker (`handoff`); its bytes stay as they are. `who` is `identify`'s."""
    started = time.perf_counter()
    code: str | None = None
    try:
        answer = (read or _read(tool))(settings, **args)
    except SolographError as exc:
        code, outcome = exc.code, Outcome(None, exc.to_dict())
    except Exception:
        log.exception("tool %s failed", tool)
        code, outcome = "internal", Outcome(None, INTERNAL_ERROR)
    else:
        outcome = Outcome(answer, None)
        if handoff is not None:
            try:
                handoff.after(tool, answer)
            except Exception:
                log.exception("handing %s's sync to the worker failed", tool)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if usage is not None:
        usage.tool_call(tool=tool, args=args, answer=outcome.answer, error=code, ms=elapsed_ms,
                        size=len(outcome.text.encode()), client=who[0], session=who[1])
    # One line per call, the arguments never: a query may hold a secret it was asked to find.
    log.info("call %s ms=%.1f results=%s error=%s", tool, elapsed_ms,
             _count(outcome.answer) if code is None else "-", code or "-")
    return outcome


def log_to_stderr() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Libraries stay at warnings; the gateway itself says one line per tool call.
    log.setLevel(logging.INFO)


def _read(tool: str) -> Callable[..., dict]:
    def read(settings: Settings, **args: Any) -> dict:
        return reads.read(tool, settings, **args)
    return read


def _count(answer: dict | None) -> object:
    if not isinstance(answer, dict):
        return "-"
    if isinstance(answer.get("count"), int):
        return answer["count"]
    return len(answer["results"]) if isinstance(answer.get("results"), list) else "-"
