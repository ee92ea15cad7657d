"""The commands that start the services: mcp, api, worker, beat, http (the sources API) and ui
(the page for people, embedded).
Each imports its service only when it runs."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {
    "mcp": "the MCP server: stdio (for `claude mcp add`) or --http",
    "api": "the HTTP API (reads, jobs, /health, /docs)",
    "worker": "a Celery worker (needs SOLOGRAPH_REDIS_URL)",
    "beat": "the Celery beat schedule: the nightly refresh (run exactly one)",
    "http": "the sources search API for SearXNG (/search, /sources)",
    "ui": "the page for people on 127.0.0.1: search, sessions, the wiki and its link graph",
}
PORTS = {"mcp": ("SOLOGRAPH_MCP_PORT", 8766), "api": ("SOLOGRAPH_API_PORT", 8765),
         "http": ("SOLOGRAPH_SEARCH_PORT", 8002)}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help=COMMANDS[name], description=COMMANDS[name][0].upper()
                       + COMMANDS[name][1:] + ".")
    if name == "mcp":
        p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead")
    if name in PORTS:
        setting, port = PORTS[name]
        p.add_argument("--host", help="bind address (default SOLOGRAPH_HOST or 127.0.0.1)")
        p.add_argument("--port", type=int, help=f"port (default {setting} or {port})")
    if name == "ui":
        p.add_argument("--port", type=int, help="port (default SOLOGRAPH_API_PORT or 8765)")
    if name == "worker":
        p.add_argument("-Q", "--queues", default=None,
                       help="queues to consume, comma-separated (default: all of them)")
        p.add_argument("-c", "--concurrency", type=int, default=2)


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.command in PORTS and args.host:
        settings = settings.bind(args.host)  # `--host` decides the bind, and the token rule
    if args.command == "mcp":
        if args.http:
            from solograph_services.mcp.server import serve_http

            serve_http(settings.with_(mcp_port=args.port or settings.mcp_port))
        else:
            from solograph_services.mcp.stdio import run

            run(settings)
    elif args.command == "api":
        from solograph_services.api.app import serve

        serve(settings.with_(api_port=args.port or settings.api_port))
    elif args.command == "ui":
        serve_ui(settings.bind("127.0.0.1").with_(api_port=args.port or settings.api_port))
    elif args.command == "http":
        from solograph_services.search.app import serve

        serve(settings.with_(search_port=args.port or settings.search_port))
    else:
        from solograph_services.worker.app import run_beat, run_worker

        if args.command == "worker":
            from solograph_services.common.jobs import queues as all_queues

            queues = args.queues.split(",") if args.queues else list(all_queues())
            run_worker(settings, queues=queues, concurrency=args.concurrency)
        else:
            run_beat(settings)
    return 0


def serve_ui(settings: Settings) -> None:
    """The API with its pages on loopback, after printing the address to open (with the token
    when one is set, as Jupyter prints it: the page then keeps it in a cookie)."""
    import uvicorn

    from solograph_services.api.app import create_app
    from solograph_services.common.security import log_config

    address = f"http://127.0.0.1:{settings.api_port}/ui/"
    if settings.token:
        from urllib.parse import quote

        address += "?token=" + quote(settings.token, safe="")
    print(f"solograph ui: {address}", flush=True)
    uvicorn.run(create_app(settings), host="127.0.0.1", port=settings.api_port,
                log_level="warning", proxy_headers=False, server_header=False,
                log_config=log_config())
