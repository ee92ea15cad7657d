"""The MCP gateway: five read-only tools over stdio (`solograph mcp`) or streamable HTTP at /mcp
(`solograph mcp --http`). The tools live in `tools.py`; this module builds and serves them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio.to_thread
from mcp.server.mcpserver import MCPServer

from solograph import __version__, readers
from solograph.config import Settings
from solograph.semantic.read import warm
from solograph.usage import UsageLog
from solograph_services.common import health as probes
from solograph_services.common.handoff import Handoff
from solograph_services.common.security import Guard, check_bind
from solograph_services.mcp import calls, tools
from solograph_services.mcp.handshake import INSTRUCTIONS

MCP_PATH = "/mcp"

def build_server(settings: Settings, *, usage: UsageLog | None = None,
                 handoff: Handoff | None = None) -> MCPServer:
    """The MCP server with its five tools, bound to `settings`; every call is logged to
    `usage` (by default the home's usage log, off when started inside a private folder)."""
    server = MCPServer("solograph", instructions=INSTRUCTIONS, version=__version__,
                       log_level="WARNING")
    tools.register(server, settings, usage or UsageLog.for_process(settings), handoff)
    return server


def http_app(settings: Settings) -> Guard:
    """Streamable HTTP at exactly /mcp plus GET /health, behind the request guard.

    Stateless, so any uvicorn worker can serve any request, legacy (session id) clients too.
    The SDK's own DNS-rebinding check is off: `Guard` runs first and checks Host and Origin
    against the same settings the API uses, so one list decides for both."""
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Mount, Route

    server = build_server(settings)
    mcp_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        # A mounted app's own lifespan never runs; the session manager's task group must.
        readers.keep()
        warm(settings)  # the model loads now, not in the first fused read's time limit
        try:
            async with server.session_manager.run():
                yield
        finally:
            readers.release()

    def probe() -> tuple[bool, dict]:
        stores, folders = probes.stores(settings), probes.folders(settings)
        ok = all(probes.healthy(s) for s in stores.values())
        body = {"ok": ok, "version": __version__, "service": "mcp", "stores": stores,
                "folders": folders}
        warnings = probes.warnings(folders, None)
        if warnings:
            body["warnings"] = warnings
        return ok, body

    async def health(_request: Request) -> JSONResponse:
        # Off the event loop: the folder check lists every transcript, and tool calls wait.
        ok, body = await anyio.to_thread.run_sync(probe)
        return JSONResponse(body, status_code=200 if ok else 503)

    # Mount at "/" with the path inside the sub-app: mounting at "/mcp" answers 307 -> /mcp/.
    app = Starlette(routes=[Route("/health", health, methods=["GET"]), Mount("/", mcp_app)],
                    lifespan=lifespan)
    return Guard(app, settings, public=("/health",))


def serve_http(settings: Settings) -> None:
    """Serve streamable HTTP until stopped. Beyond loopback a token is required (ConfigError)."""
    import uvicorn

    check_bind(settings)
    calls.log_to_stderr()
    uvicorn.run(http_app(settings), host=settings.host, port=settings.mcp_port,
                log_level="warning")


