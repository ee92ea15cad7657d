"""The MCP tools: one per index answer offered as a tool (five today), made from the index
descriptions, thin adapters over `solograph.reads`.

Each tool answers exactly what its core read returns, serialised by `reads.to_json`, so the text
an agent reads is byte for byte what `solograph <command> --json` prints; its output schema is
the answer's TypedDict. Every call goes through `call()`, the one place to time, log or count a
tool call.
"""

import functools
import inspect
import logging
import operator
import os
import sys
import time
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

import anyio.to_thread
import typing_extensions
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from solograph import reads
from solograph.config import Settings
from solograph.errors import SolographError
from solograph.index import Answer, Param, resolve
from solograph.indexes import all_answers
from solograph.usage import UsageLog
from solograph_services.common.handoff import Handoff

log = logging.getLogger("solograph.mcp")

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
ALWAYS_LOAD = {"anthropic/alwaysLoad": True}

Read = Callable[..., dict]

INTERNAL_ERROR = {"error": "internal",
                  "message": "solograph could not answer this call",
                  "hint": "retry once; if it fails again, the server's stderr log has the cause"}


def answer_result(answer: dict) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=reads.to_json(answer))],
                          structured_content=answer)


def error_result(error: dict) -> CallToolResult:
    return CallToolResult(is_error=True,
                          content=[TextContent(type="text", text=reads.to_json(error))])


SESSION_HEADERS = ("x-claude-code-session-id", "x-claude-session-id", "x-session-id")
SESSION_ENV = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")


def caller(ctx: Context | None) -> tuple[str | None, str | None]:
    """(client name, Claude Code session id) when the client says them: the session id from
    a request header, the request's `_meta`, or the environment a stdio client started us
    with; the name from the initialize handshake, else the User-Agent."""
    client = session = None
    headers: Any = None
    try:
        headers = ctx.headers if ctx is not None else None
    except (AttributeError, LookupError, ValueError):
        headers = None
    if headers:
        session = next((headers.get(h) for h in SESSION_HEADERS if headers.get(h)), None)
        agent = headers.get("user-agent") or ""
        client = agent.split("/", 1)[0] or None
    if ctx is not None and session is None:
        try:
            meta = ctx.request_context.meta
            extra = meta.model_dump() if meta is not None else {}
        except (AttributeError, LookupError, ValueError):
            extra = {}
        session = next((str(v) for k, v in extra.items()
                        if isinstance(v, str) and "session" in k.lower()), None)
    if session is None:
        session = next((os.environ[e] for e in SESSION_ENV if os.environ.get(e)), None)
    if ctx is not None:
        try:
            info = ctx.session.client_params.client_info
            client = info.name or client
        except AttributeError:
            pass
    return client, session


async def call(settings: Settings, ctx: Context | None, tool: str, read: Read,
               usage: UsageLog | None = None, *, handoff: Handoff | None = None,
               **args: Any) -> CallToolResult:
    """Run one core read in a worker thread (it opens its own SQLite connection) and translate
    the outcome once: the answer, a domain error as a tool error, anything else as a generic
    tool error with the traceback on stderr only. An answer that left files unread has its
    sync job handed to the worker (`handoff`); its bytes stay as they are."""
    started = time.perf_counter()
    answer: dict | None = None
    error: str | None = None
    try:
        answer = await anyio.to_thread.run_sync(functools.partial(read, settings, **args))
    except SolographError as exc:
        error = exc.code
        result = error_result(exc.to_dict())
    except Exception:
        log.exception("tool %s failed", tool)
        error = "internal"
        result = error_result(INTERNAL_ERROR)
    else:
        result = answer_result(answer)
        if handoff is not None:
            try:
                handoff.after(tool, answer)
            except Exception:
                log.exception("handing %s's sync to the worker failed", tool)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if usage is not None:
        client, session = caller(ctx)
        size = sum(len(c.text.encode()) for c in result.content if hasattr(c, "text"))
        usage.tool_call(tool=tool, args=args, answer=answer, error=error, ms=elapsed_ms,
                        size=size, client=client, session=session)
    # One line per call, the arguments never: a query may hold a secret it was asked to find.
    log.info("call %s ms=%.1f results=%s error=%s", tool, elapsed_ms,
             _count(answer) if error is None else "-", error or "-")
    return result


def _count(answer: dict | None) -> object:
    if not isinstance(answer, dict):
        return "-"
    if isinstance(answer.get("count"), int):
        return answer["count"]
    return len(answer["results"]) if isinstance(answer.get("results"), list) else "-"


def register(server: MCPServer, settings: Settings, usage: UsageLog | None = None) -> None:
    """Add every index's tools to `server`, bound to `settings`."""
    handoff = Handoff(settings)  # its Celery client is created on first hand-over
    for _index, answer in all_answers():
        if answer.tool:
            server.tool(name=answer.name, title=answer.title, description=answer.description,
                        annotations=READ_ONLY, meta=ALWAYS_LOAD if answer.always_load else None,
                        )(tool_function(settings, answer, usage, handoff))


def tool_function(settings: Settings, answer: Answer, usage: UsageLog | None,
                  handoff: Handoff) -> Callable[..., Any]:
    """The tool for one answer: typed parameters with descriptions (choices as Literals), the
    answer's TypedDict as its output schema, and its text exactly `reads.to_json(answer)`."""
    asked = [p for p in answer.params if not p.caller]

    async def tool(ctx: Context | None = None, **args: Any) -> CallToolResult:
        for p in answer.params:
            if p.caller == "session":  # the session asking is left out of its own results:
                args[p.name] = caller(ctx)[1]  # its prompt holds the very words searched
        return await call(settings, ctx, answer.name, functools.partial(reads.read, answer.name),
                          usage, handoff=handoff, **args)

    schema = pydantic_ready(resolve(answer.schema)) if answer.schema else None
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=_field(p),
                           default=inspect.Parameter.empty if p.required else p.default)
         for p in asked]
        + [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY,
                             annotation=Context | None, default=None)],
        return_annotation=Annotated[CallToolResult, schema] if schema else CallToolResult)
    tool.__name__ = answer.name
    return tool


def pydantic_ready(kind: Any) -> Any:
    """`kind` with every standard-library TypedDict in it (nested ones, in lists, dicts and
    unions too) rebuilt as typing_extensions' TypedDict, the only kind pydantic reads before
    Python 3.12. The core keeps the standard library's: importing typing_extensions costs a
    command's start-up a tenth."""
    if sys.version_info >= (3, 12):
        return kind
    return _rebuilt(kind, {})


def _rebuilt(kind: Any, done: dict) -> Any:
    if typing_extensions.is_typeddict(kind):
        if kind not in done:
            hints = typing_extensions.get_type_hints(kind, include_extras=True)
            fields = {name: _rebuilt(hint, done) for name, hint in hints.items()}
            done[kind] = typing_extensions.TypedDict(kind.__name__, fields,
                                                     total=kind.__total__)
        return done[kind]
    origin, args = typing_extensions.get_origin(kind), typing_extensions.get_args(kind)
    if origin is None or not args:
        return kind
    rebuilt = tuple(_rebuilt(a, done) for a in args)
    if origin in (types.UnionType, Union):
        return functools.reduce(operator.or_, rebuilt)
    if origin is typing_extensions.NotRequired:
        return typing_extensions.NotRequired[rebuilt[0]]
    return origin[rebuilt if len(rebuilt) > 1 else rebuilt[0]]


def _field(p: Param) -> Any:
    kind: Any = Literal[p.choices] if p.choices else p.type
    if not p.required and p.default is None:
        kind = kind | None
    return Annotated[kind, Field(description=p.help)]
