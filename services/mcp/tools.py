"""The MCP tools: one per index answer offered as a tool (five today), made from the index
descriptions, thin adapters over `solograph.reads`.

Each tool answers exactly what its core read returns, serialised by `reads.to_json`, so the text
an agent reads is byte for byte what `solograph <command> --json` prints; its output schema is
the answer's TypedDict. Every call goes through `calls.run`, the one place to time, log or count a
tool call (the stdio server's early answers too).
"""

import functools
import inspect
import operator
import sys
import types
from collections.abc import Callable
from typing import Annotated, Any, Union

import anyio.to_thread
import typing_extensions
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from solograph.config import Settings
from solograph.index import Answer, Param, resolve
from solograph.indexes import all_answers
from solograph.usage import UsageLog
from solograph_services.common.handoff import Handoff
from solograph_services.mcp import calls

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
ALWAYS_LOAD = {"anthropic/alwaysLoad": True}

log = calls.log


def caller(ctx: Context | None) -> tuple[str | None, str | None]:
    """`calls.identify` of the request `ctx` is serving: its headers, `_meta` and client."""
    headers: Any = None
    try:
        headers = ctx.headers if ctx is not None else None
    except (AttributeError, LookupError, ValueError):
        headers = None
    meta: dict = {}
    if ctx is not None:
        try:
            given = ctx.request_context.meta
            meta = given.model_dump() if given is not None else {}
        except (AttributeError, LookupError, ValueError):
            meta = {}
    name = None
    if ctx is not None:
        try:
            name = ctx.session.client_params.client_info.name
        except AttributeError:
            name = None
    return calls.identify(headers, meta, name)


def to_result(outcome: calls.Outcome) -> CallToolResult:
    content = [TextContent(type="text", text=outcome.text)]
    if outcome.error is not None:
        return CallToolResult(is_error=True, content=content)
    return CallToolResult(content=content, structured_content=outcome.answer)


async def call(settings: Settings, who: tuple[str | None, str | None], tool: str,
               usage: UsageLog | None = None, *, handoff: Handoff | None = None,
               **args: Any) -> CallToolResult:
    """`calls.run` in a worker thread (the read opens its own SQLite connection); `who` is
    `caller`'s answer for the request."""
    outcome = await anyio.to_thread.run_sync(functools.partial(
        calls.run, settings, tool, args, who=who, usage=usage, handoff=handoff))
    return to_result(outcome)


def register(server: MCPServer, settings: Settings, usage: UsageLog | None = None,
             handoff: Handoff | None = None) -> None:
    """Add every index's tools to `server`, bound to `settings`."""
    handoff = handoff or Handoff(settings)  # its Celery client is created on first hand-over
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
        who = caller(ctx)  # once a request: it reads the request's headers and _meta
        for p in answer.params:
            if p.caller == "session":  # the session asking is left out of its own results:
                args[p.name] = who[1]  # its prompt holds the very words searched
        return await call(settings, who, answer.name, usage, handoff=handoff, **args)

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
    kind: Any = p.type
    if not p.required and p.default is None:
        kind = kind | None
    if not p.choices:
        return Annotated[kind, Field(description=p.help)]
    # The choices are listed in the schema but not enforced by the SDK: a word outside them
    # reaches the read, whose `bad_query` error (with the choices as its hint) is what the CLI
    # and the API answer too.
    return Annotated[kind, Field(description=p.help,
                                 json_schema_extra={"enum": list(p.choices)})]
