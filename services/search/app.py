"""The sources search API for SearXNG and a team: GET /search, /sources, /health.

    GET /search?q=pricing+tiers&source=youtube&n=5   -> reads.source_search(...), its bytes
    GET /sources                                     -> what each source holds
    GET /health                                      -> {"status", "total", "sources", ...}
    GET /openapi.json                                -> the OpenAPI document

Every result carries `url`, `title` and `content` first, which is what SearXNG's
`json_engine` reads (docs/searxng.md has the engine block). The app is plain ASGI: no web
framework, so the slim image (Dockerfile.search) holds only uvicorn, PyStemmer and PyYAML
besides the core. It is read-only (GET and HEAD), behind the shared Guard (Host, Origin and,
when set, its own bearer token SOLOGRAPH_SEARCH_TOKEN) and a token bucket per client IP.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

from solograph import __version__, reads
from solograph.config import Settings
from solograph.errors import BadQuery, NotIndexed, SolographError
from solograph.indexes import get
from solograph.sources import SOURCES
from solograph.sources.answers import nothing_indexed, totals
from solograph.sources.store import HINT
from solograph_services.common.errors import status_of
from solograph_services.common.health import healthy, store_health
from solograph_services.common.security import Guard, check_bind
from solograph_services.search.ratelimit import RateLimit, TokenBuckets

log = logging.getLogger("solograph.search")

DEFAULT_N = 10
# What an empty index says, without the index's path (the API may be shared with a team).
EMPTY = "nothing indexed yet: " + HINT
JSON = (b"content-type", b"application/json")


def search_settings(settings: Settings) -> Settings:
    """The service's own token: SOLOGRAPH_SEARCH_TOKEN, else the stack's SOLOGRAPH_TOKEN."""
    return settings.with_(token=settings.search_token or settings.token)


class SearchApp:
    """The three endpoints; each read runs in a worker thread (SQLite is blocking)."""

    def __init__(self, settings: Settings, *, threads: int = 8) -> None:
        self.settings = settings
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="search")
        self.routes: dict[str, Callable[[dict[str, str]], tuple[int, bytes]]] = {
            "/search": self.search, "/sources": self.sources, "/health": self.health,
            "/openapi.json": self.openapi}

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send, self.pool)
            return
        if scope["type"] != "http":
            return
        route = self.routes.get(scope.get("path", ""))
        method = scope.get("method", "GET")
        if route is None:
            status, body = 404, _error("not_found", "no such endpoint",
                                       "use /search?q=..., /sources or /health")
        elif method not in ("GET", "HEAD"):
            status, body = 405, _error("method_not_allowed", "this API is read-only: GET only")
        else:
            params = _params(scope.get("query_string", b""))
            loop = asyncio.get_running_loop()
            status, body = await loop.run_in_executor(self.pool, self._answer, route, params)
        headers = [JSON, (b"content-length", str(len(body)).encode()),
                   (b"cache-control", b"no-store")]
        if status == 405:
            headers.append((b"allow", b"GET, HEAD"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})

    def _answer(self, route: Callable, params: dict[str, str]) -> tuple[int, bytes]:
        try:
            return route(params)
        except SolographError as exc:
            return status_of(exc), reads.to_json(exc.to_dict()).encode()
        except Exception as exc:  # the log has the type; the client learns nothing internal
            log.error("internal error: %s", type(exc).__name__)
            return 500, _error("internal", "internal error")

    def search(self, params: dict[str, str]) -> tuple[int, bytes]:
        limit = _int(params.get("n") or params.get("limit"), DEFAULT_N, self.settings.max_results)
        try:
            answer = reads.source_search(self.settings, params.get("q", ""), action="search",
                                         source=params.get("source") or None, limit=limit)
        except NotIndexed:  # nothing indexed yet is no result, not an engine error
            source = params.get("source") or None
            if source:
                _known(source)
            answer = nothing_indexed(params.get("q", ""), source=source, note=EMPTY)
        return 200, reads.to_json(answer).encode()

    def sources(self, params: dict[str, str]) -> tuple[int, bytes]:
        limit = _int(params.get("n") or params.get("limit"), DEFAULT_N, self.settings.max_results)
        source = params.get("source") or None
        try:
            answer = reads.source_search(self.settings, action="list", source=source,
                                         limit=limit)
        except NotIndexed:  # as the replaced API answered: an empty list, and no path
            if source:
                _known(source)
            answer = {"action": "list", "source": source, "count": 0, "sources": [],
                      "note": EMPTY}
        return 200, reads.to_json(answer).encode()

    def openapi(self, params: dict[str, str]) -> tuple[int, bytes]:
        from solograph_services.search.openapi import document

        return 200, json.dumps(document(self.settings.max_results)).encode()

    def health(self, params: dict[str, str]) -> tuple[int, bytes]:
        """`status`, `total` (items) and `sources` (how many) as the search API this one
        replaced answered, then the index's own probe under `index`."""
        store = store_health(get("sources"), self.settings)
        counts: dict[str, int] = {}
        if store["readable"]:
            counts, store["documents"] = _counts(self.settings)
        ok = healthy(store)
        body = {"status": "ok" if ok else "error", "total": sum(counts.values()),
                "sources": len(counts), "empty": not counts, "ok": ok,
                "version": __version__, "service": "search", "index": store}
        if ok and not counts:
            body["note"] = EMPTY
        return (200 if ok else 503), reads.to_json(body).encode()


def _known(source: str) -> None:
    """Before anything is indexed, the sources this code can index are the ones available; any
    other is the 400 `{"error", "available"}` the replaced API gave."""
    if source.strip().lower() not in SOURCES:
        raise BadQuery(f"unknown source {source!r}", hint=f"use one of: {', '.join(SOURCES)}",
                       available=list(SOURCES))


def _counts(settings: Settings) -> tuple[dict[str, int], int]:
    """Items per source and documents, read-only (a probe never migrates or writes)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{settings.sources_db}?mode=ro", uri=True, timeout=1)
    try:
        return totals(conn), conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    except sqlite3.Error:
        return {}, 0
    finally:
        conn.close()


async def _lifespan(receive: Callable, send: Callable, pool: ThreadPoolExecutor) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            pool.shutdown(wait=False, cancel_futures=True)
            await send({"type": "lifespan.shutdown.complete"})
            return


def _params(raw: bytes) -> dict[str, str]:
    parsed = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {k: v[0] for k, v in parsed.items() if v}


_NUMBER = re.compile(r"[0-9]{1,9}")


def _int(raw: str | None, default: int, most: int) -> int:
    if raw is None or raw == "":
        return min(default, most)
    # ASCII digits only: str.isdigit also takes `³` and `٣`, which int() may refuse.
    if _NUMBER.fullmatch(raw.strip()) is None or not 1 <= int(raw) <= most:
        raise BadQuery(f"n must be a number from 1 to {most}, got {raw!r}")
    return int(raw)


def _error(code: str, message: str, hint: str = "") -> bytes:
    body = {"error": code, "message": message, **({"hint": hint} if hint else {})}
    return json.dumps(body, separators=(",", ":")).encode()


def create_app(settings: Settings) -> Callable:
    """The ASGI app: rate limit (per client IP), then the Guard, then the endpoints."""
    guarded = search_settings(settings)
    check_bind(guarded)
    app = Guard(SearchApp(guarded), guarded, public=("/health",))
    rate = float(settings.search_rate)
    return RateLimit(app, TokenBuckets(rate=rate, burst=max(1.0, 2 * rate)))


def serve(settings: Settings) -> None:
    """Run on settings.host:search_port with uvicorn (refuses 0.0.0.0 without a token)."""
    import uvicorn

    check_bind(search_settings(settings))
    uvicorn.run(create_app(settings), host=settings.host, port=settings.search_port,
                log_level="info", access_log=False, proxy_headers=False, server_header=False,
                lifespan="on")
