"""The `solograph` console script: the core CLI plus the commands that start services.

Service modules are imported only when their command runs, so a plain read (and the hook)
never pays for FastAPI, Celery or the MCP SDK.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from solograph.errors import SolographError

if TYPE_CHECKING:
    from solograph import cli
    from solograph.config import Settings


def _load() -> None:
    """Import the CLI only past the hook: `solograph hook` must start in milliseconds."""
    global cli, Settings
    from solograph import cli
    from solograph.config import Settings


def _bind(p: argparse.ArgumentParser, port_setting: str, port: int) -> None:
    p.add_argument("--host", help="bind address (default SOLOGRAPH_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help=f"port (default {port_setting} or {port})")


def _add_service_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="the MCP server: stdio (for `claude mcp add`) or --http")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead")
    _bind(p, "SOLOGRAPH_MCP_PORT", 8766)
    p = sub.add_parser("api", help="the HTTP API (reads, jobs, /health, /docs)")
    _bind(p, "SOLOGRAPH_API_PORT", 8765)
    p = sub.add_parser("worker", help="a Celery worker (needs SOLOGRAPH_REDIS_URL)")
    p.add_argument("-Q", "--queues", default="scan,sessions,kb,scrapers",
                   help="queues to consume, comma-separated")
    p.add_argument("-c", "--concurrency", type=int, default=2)
    sub.add_parser("beat", help="the Celery beat schedule: the nightly refresh (run exactly one)")
    p = sub.add_parser("http", help="the sources search API for SearXNG (/search, /sources)")
    _bind(p, "SOLOGRAPH_SEARCH_PORT", 8002)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        from solograph.kb.hook import main as hook_main

        return hook_main(argv[1:])
    _load()
    if (not argv or argv[0] not in SERVICE_COMMANDS and not _is_queued_scan(argv)
            and not _is_crawl(argv)):
        return cli.main(argv, extend=_add_service_commands)
    parser = cli.build_parser(extend=_add_service_commands)
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
        if args.command == "scan":
            return _queued_scan(settings, args)
        if args.command == "sources":
            return _crawl(settings, args)
        return SERVICE_COMMANDS[args.command](settings, args)
    except SolographError as exc:
        return cli.report_error(exc, args)
    except KeyboardInterrupt:
        return 130


def _is_queued_scan(argv: list[str]) -> bool:
    return argv[0] == "scan" and "--queue" in argv


def _is_crawl(argv: list[str]) -> bool:
    return argv[:2] == ["sources", "crawl"]


def _crawl(settings: Settings, args: argparse.Namespace) -> int:
    """`solograph sources crawl SPIDER`: Scrapy in a child process, as the worker runs it."""
    from solograph_services.common.crawls import run_crawl

    report = run_crawl(settings, args.spider, start_url=args.start_url,
                       max_pages=args.max_pages, delay=args.delay)
    if args.json:
        print(cli.reads.to_json(report))
    else:
        print(report["summary"])
        for problem in report["problems"]:
            print(f"  problem: {problem['url']}: {problem['reason']}")
    return 0


def _bound(settings: Settings, args: argparse.Namespace) -> Settings:
    """`--host` on the command line decides the bind and, with it, whether a token is needed."""
    return settings.bind(args.host) if args.host else settings


def _http(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.search import app

    app.serve(_bound(settings, args).with_(search_port=args.port or settings.search_port))
    return 0


def _queued_scan(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.common.jobs import create_celery, submit

    celery = create_celery(settings)
    job = submit(celery, "scan", projects=args.project or None,
                 registry=not args.project and not args.no_registry)
    print(cli.reads.to_json({"job": job, "queued": "scan"}) if args.json
          else f"queued scan as job {job}")
    return 0


def _mcp(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.mcp import server

    if args.http:
        server.serve_http(_bound(settings, args).with_(mcp_port=args.port or settings.mcp_port))
    else:
        server.run_stdio(settings)
    return 0


def _api(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.api import app

    app.serve(_bound(settings, args).with_(api_port=args.port or settings.api_port))
    return 0


def _worker(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.worker import app

    app.run_worker(settings, queues=args.queues.split(","), concurrency=args.concurrency)
    return 0


def _beat(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.worker import app

    app.run_beat(settings)
    return 0


SERVICE_COMMANDS = {"mcp": _mcp, "api": _api, "worker": _worker, "beat": _beat, "http": _http}

if __name__ == "__main__":
    sys.exit(main())
