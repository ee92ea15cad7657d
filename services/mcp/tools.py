"""The five MCP tools: thin adapters over `solograph.reads`.

Each tool answers exactly what its core read returns, serialised by `reads.to_json`, so the text
an agent reads is byte for byte what `solograph <command> --json` prints. Every call goes through
`call()`, the one place to time, log or count a tool call.
"""

import functools
import logging
import os
import time
from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from solograph import reads
from solograph.config import Settings
from solograph.errors import SolographError
from solograph.usage import UsageLog
from solograph_services.common.handoff import Handoff

log = logging.getLogger("solograph.mcp")

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
ALWAYS_LOAD = {"anthropic/alwaysLoad": True}

Read = Callable[..., dict]


# The core reads behind the tools: one function each, shared with the CLI and the API.
SYMBOL_SEARCH: Read = reads.symbol_search
PROJECT_INFO: Read = reads.project_info
SESSION_SEARCH: Read = reads.session_search
KB_SEARCH: Read = reads.kb_search
SOURCE_SEARCH: Read = reads.source_search

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
    log.debug("tool %s error=%s %.1fms", tool, bool(result.is_error), elapsed_ms)
    return result


def _limit(settings: Settings, limit: int) -> int:
    return max(1, min(limit, settings.max_results))


Query = Annotated[str, Field(description='words to find, e.g. "webhook retry"')]
Project = Annotated[str | None, Field(description='only this project, e.g. "my-app"')]


def register(server: MCPServer, settings: Settings, usage: UsageLog | None = None) -> None:
    """Add the five tools to `server`, bound to `settings`."""
    handoff = Handoff(settings)  # its Celery client is created on first hand-over

    @server.tool(
        title="Search past sessions",
        description=(
            "Full-text search over past Claude Code conversations, archived ones too: what was "
            "tried, decided or fixed before. Example: {\"query\": \"webhook retry\"}."),
        annotations=READ_ONLY, meta=ALWAYS_LOAD)
    async def session_search(
        query: Query,
        project: Project = None,
        limit: Annotated[int, Field(description="how many sessions, e.g. 10")] = 10,
        session: Annotated[str | None, Field(
            description="read this found session: its messages matching the query, in order, "
                        "with their neighbours")] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        # The session asking is left out of its own results: its prompt holds the very words.
        _client, asking = caller(ctx)
        return await call(settings, ctx, "session_search", SESSION_SEARCH, usage,
                          handoff=handoff, query=query,
                          project=project, limit=_limit(settings, limit), session=session,
                          exclude_session=asking)

    @server.tool(
        title="Search the knowledge base",
        description=(
            "Full-text search over the user's own notes and wiki (markdown): decisions, "
            "architecture, how-tos. Example: {\"query\": \"privacy architecture\"}."),
        annotations=READ_ONLY, meta=ALWAYS_LOAD)
    async def kb_search(
        query: Query,
        path: Annotated[str | None, Field(
            description='only pages under this folder of the KB, e.g. "wiki/"')] = None,
        limit: Annotated[int, Field(description="how many pages, e.g. 10")] = 10,
        pages: Annotated[bool, Field(description="only the wiki's pages")] = False,
        expand: Annotated[bool, Field(
            description="add up to 3 pages the hits link to most")] = False,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(settings, ctx, "kb_search", KB_SEARCH, usage, handoff=handoff,
                          query=query, path=path,
                          pages=pages, expand=expand, limit=_limit(settings, limit))

    @server.tool(
        title="Find definitions across repositories",
        description=(
            "Where a class, function, type or other definition lives across every indexed "
            "repository, matched by the words of its name (camelCase and snake_case alike). "
            "Example: {\"query\": \"auth middleware\"} finds AuthMiddleware and auth_middleware."),
        annotations=READ_ONLY)
    async def symbol_search(
        query: Annotated[str, Field(description='words of a name, e.g. "auth middleware"')],
        project: Project = None,
        limit: Annotated[int, Field(description="how many definitions, e.g. 20")] = 20,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(settings, ctx, "symbol_search", SYMBOL_SEARCH, usage, query=query,
                          project=project, limit=_limit(settings, limit))

    @server.tool(
        title="Search talks, launches and revenue pages",
        description=(
            "Indexed external sources: YouTube talk transcripts, ProductHunt launches, TrustMRR "
            "revenue pages. action: search (default), list, tags, related. "
            "Example: {\"query\": \"pricing tiers\", \"source\": \"youtube\"}."),
        annotations=READ_ONLY)
    async def source_search(
        query: Annotated[str | None, Field(
            description='words to find (for search), or a video id (for related), '
                        'e.g. "pricing tiers"')] = None,
        action: Annotated[str, Field(
            description='search, list, tags or related, e.g. "search"')] = "search",
        source: Annotated[str | None, Field(
            description='only this source, e.g. "youtube", "producthunt", "trustmrr"')] = None,
        limit: Annotated[int, Field(description="how many results, e.g. 10")] = 10,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(settings, ctx, "source_search", SOURCE_SEARCH, usage, query=query,
                          action=action, source=source, limit=_limit(settings, limit))

    @server.tool(
        title="Project and portfolio facts",
        description=(
            "One project's stack, size, languages, layers and dependencies (explain, deps), or "
            "the whole portfolio: stats, packages shared by several projects (shared), names "
            "defined in several places (dupes), the project list (projects). "
            "Example: {\"action\": \"explain\", \"project\": \"my-app\"}."),
        annotations=READ_ONLY)
    async def project_info(
        action: Annotated[str, Field(
            description="explain, deps, stats, shared, dupes or projects, e.g. \"explain\"")],
        project: Annotated[str | None, Field(
            description='the project, for explain and deps, e.g. "my-app"')] = None,
        package: Annotated[str | None, Field(
            description='for shared: who uses this package, e.g. "react"')] = None,
        name: Annotated[str | None, Field(
            description='for dupes: only names holding these words, e.g. "escape"')] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(settings, ctx, "project_info", PROJECT_INFO, usage, action=action,
                          project=project, package=package, name=name)
