"""The HTTP API: every read, job submission and /health, behind the request guard.

Each index's answers become GET routes (`/v1/...`, from the index description) returning the
exact bytes of `reads.to_json(answer)`, the same text the CLI prints with `--json` and the MCP
tools return. Domain errors are translated once, in `_translate`, by the shared status table.
"""

import inspect
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import redis
import uvicorn
from celery import Celery
from fastapi import Body, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from uvicorn.supervisors import Multiprocess

from solograph import __version__, readers, reads, usage
from solograph.config import Settings
from solograph.errors import BadQuery, ConfigError, SolographError
from solograph.index import Answer
from solograph.indexes import all_answers
from solograph.limits import bad_path
from solograph.semantic.read import warm
from solograph.sources import CRAWLS
from solograph_services.common import health as probes
from solograph_services.common import liveness
from solograph_services.common.errors import status_of
from solograph_services.common.handoff import Handoff
from solograph_services.common.jobs import create_celery, job_status, job_table, submit
from solograph_services.common.security import Guard, check_bind, log_config
from solograph_services.web.pages import mount as mount_web

log = logging.getLogger("solograph.api")

JSON_ANSWER = {200: {"content": {"application/json": {}},
                     "description": "the answer object, compact JSON"}}


class ErrorBody(BaseModel):
    error: str = Field(description="a code: bad_query, not_indexed, unauthorized, ...")
    message: str
    hint: str | None = Field(None, description="the next step, when there is one")


# Every answer but 200 that any path may give, in the one error shape: the guard's (401, 403,
# 413, 421) and the domain errors' (services/common/errors.py).
ERROR_ANSWERS: dict[int | str, dict] = {
    code: {"model": ErrorBody, "description": text} for code, text in (
    (400, "a bad query: the message says what, the hint what to send instead"),
    (401, "beyond loopback: no valid bearer token"),
    (403, "a browser page of another origin (SOLOGRAPH_ALLOWED_ORIGINS lists more)"),
    (404, "an unknown project, or an index not built yet (the hint names the command)"),
    (413, "a request body over 1 MB"),
    (421, "a Host this server does not answer for (SOLOGRAPH_ALLOWED_HOSTS lists more)"),
    (422, "parameters that do not fit the endpoint"),
    (503, "no broker configured or reachable, or a store that cannot be read"),
    (504, "the query ran past SOLOGRAPH_QUERY_TIMEOUT_MS"),
    )}

DESCRIPTION = """Memory for coding agents across a portfolio, over SQLite FTS5.

Reads answer from the local indexes with exactly the JSON the CLI prints with `--json`.
Jobs (scans, registry merges) go to the Celery worker pool and are polled by id.
Errors are `{"error": code, "message": ..., "hint"?: ...}`.
Beyond loopback every path except `/health` needs `Authorization: Bearer $SOLOGRAPH_TOKEN`.
"""


class ScanJob(BaseModel):
    model_config = ConfigDict(extra="forbid")

    projects: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        None, max_length=1000, description="project names; all registered projects when absent")
    registry: bool = Field(True, description="merge new checkouts into the registry first")


class YoutubeJob(BaseModel):
    model_config = ConfigDict(extra="forbid")

    targets: list[Annotated[str, Field(min_length=1, max_length=300)]] | None = Field(
        None, max_length=200, description="video URLs or ids")
    channel: str | None = Field(None, max_length=200, description="a channel handle or URL")
    limit: int = Field(10, ge=1, le=200, description="how many of the channel's newest videos")
    force: bool = Field(False, description="index videos already indexed again")


class CrawlJob(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spider: Literal[CRAWLS]  # type: ignore[valid-type]  # the names the core knows
    start_url: str | None = Field(None, max_length=2000, pattern=r"^https?://",
                                  description="where to start instead of the spider's default")
    max_pages: int = Field(50, ge=1, le=5000, description="pages to fetch at most")
    delay: float | None = Field(None, ge=0.5, le=60,
                                description="seconds between requests (default 2)")


class Queued(BaseModel):
    job: str = Field(description="the job id to poll at /v1/jobs/{id}")
    queue: str


def _answer(answer: dict) -> Response:
    return Response(reads.to_json(answer), media_type="application/json")


async def _translate(request: Request, exc: Exception) -> Response:
    """The one place errors become HTTP: domain errors by type, a request that does not fit
    the endpoint as 422 in the same shape, anything else a bare 500."""
    if isinstance(exc, RequestValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())[1:]) or 'request'}: {e.get('msg')}"
            for e in exc.errors()[:5])
        return Response(reads.to_json({"error": "bad_request", "message": problems,
                                       "hint": "see /docs for this endpoint's parameters"}),
                        status_code=422, media_type="application/json")
    if isinstance(exc, OSError) and (translated := bad_path(exc)) is not None:
        exc = translated  # a path parameter outside the reads (a job's, say)
    if isinstance(exc, SolographError):
        return Response(reads.to_json(exc.to_dict()), status_code=status_of(exc),
                        media_type="application/json")
    # The server logs the traceback; the client learns nothing about our internals.
    log.error("internal error on %s %s: %s", request.method, request.url.path,
              type(exc).__name__)
    return Response(reads.to_json({"error": "internal", "message": "internal error"}),
                    status_code=500, media_type="application/json")


JOB_BODIES = ("scan", "index_youtube", "crawl")


def read_endpoint(settings: Settings, answer: Answer, handoff: Handoff) -> Callable:
    """A GET endpoint for one answer: its parameters as query parameters (their OpenAPI
    descriptions and bounds from the index description), its bytes as the body."""
    names = {p.http_name: p.name for p in answer.params}

    def endpoint(**query: Any) -> Response:
        out = reads.read(answer.name, settings, **{names[k]: v for k, v in query.items()})
        handoff.after(answer.name, out)
        return _answer(out)

    endpoint.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(p.http_name, inspect.Parameter.KEYWORD_ONLY,
                          annotation=_query_type(p, settings),
                          default=inspect.Parameter.empty if p.required
                          else _default(p, settings))
        for p in answer.params])
    endpoint.__name__ = answer.name
    return endpoint


def _query_type(p: Any, settings: Settings) -> Any:
    # Choices stay plain text here: a wrong one is the core's 400 whose hint lists them.
    kind: Any = p.type
    if p.name == "limit":
        return Annotated[int, Query(ge=1, le=settings.max_results, description=p.help)]
    if p.type is str:
        q = Query(description=p.help, max_length=p.max_length)
        return Annotated[kind if p.required else kind | None, q]
    return Annotated[kind, Query(description=p.help)]


def _default(p: Any, settings: Settings) -> Any:
    return min(p.default, settings.max_results) if p.name == "limit" else p.default


def job_endpoint(name: str, queue: Callable[..., Response]) -> Callable:
    def endpoint(request: Request) -> Response:
        return queue(request, name)
    endpoint.__name__ = f"{name}_job"
    return endpoint


def create_app(settings: Settings, *, celery: Celery | None = None) -> FastAPI:
    """The API for `settings`. With `celery` given the caller owns it; else, when a broker is
    configured, the lifespan creates the client and closes it on shutdown."""
    check_bind(settings)
    # A read that left files unread (its sync budget ran out) queues the job that reads them.
    handoff = Handoff(settings, lambda: getattr(app.state, "celery", None))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = create_celery(settings) if celery is None and settings.redis_url else None
        app.state.celery = celery or owned
        timeout = settings.broker_timeout_ms / 1000
        app.state.redis = (redis.Redis.from_url(settings.redis_url, socket_connect_timeout=timeout,
                                                socket_timeout=timeout)
                           if settings.redis_url else None)
        readers.keep()  # each worker thread keeps its read-only connections between requests
        warm(settings)  # the model loads now, not in the first fused read's time limit
        try:
            yield
        finally:
            readers.release()
            if owned is not None:
                owned.close()
            handoff.close()
            if app.state.redis is not None:
                app.state.redis.close()

    app = FastAPI(title="solograph", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan, responses=ERROR_ANSWERS, openapi_tags=[
                      {"name": "reads", "description": "answers from the local indexes"},
                      {"name": "jobs", "description": "work handed to the worker pool"},
                      {"name": "health", "description": "liveness and readiness"}])
    app.add_middleware(Guard, settings=settings, public=("/health",), browser=("/", "/ui"))
    app.add_exception_handler(RequestValidationError, _translate)
    app.add_exception_handler(SolographError, _translate)
    app.add_exception_handler(Exception, _translate)

    def broker(request: Request) -> Celery:
        found = getattr(request.app.state, "celery", None)
        if found is None:
            raise ConfigError("jobs need a broker and none is configured",
                              hint="set SOLOGRAPH_REDIS_URL and start `solograph worker`, or "
                                   "run the job in-process with the CLI")
        return found

    def queue(request: Request, job: str, **kwargs: object) -> Response:
        job_id = submit(broker(request), job, **kwargs)
        body = {"job": job_id, "queue": job_table()[job].queue}
        return Response(reads.to_json(body), status_code=202, media_type="application/json")

    for _index, answer in all_answers():
        if answer.route:
            app.add_api_route(answer.route, read_endpoint(settings, answer, handoff),
                              methods=["GET"], tags=["reads"], summary=answer.title,
                              description=answer.description, responses=JSON_ANSWER,
                              name=answer.name)

    @app.get("/v1/usage", tags=["reads"], responses=JSON_ANSWER,
             summary="Is it useful? The five numbers from the MCP and hook log, then detail")
    def usage_report(
        days: Annotated[int, Query(ge=1, le=3660, description="the period in days")] = 14,
    ) -> Response:
        return _answer(usage.report(settings, days=days))

    @app.post("/v1/jobs/scan", status_code=202, tags=["jobs"], response_model=Queued,
              summary="Queue a scan: the registry merge, then each project under its lock")
    def scan_job(request: Request, body: Annotated[ScanJob | None, Body()] = None) -> Response:
        body = body or ScanJob()
        return queue(request, "scan", projects=body.projects, registry=body.registry)

    # Jobs that take no arguments come from the index descriptions; the others have bodies.
    for name, job in job_table().items():
        if job.route and name not in JOB_BODIES:
            app.add_api_route(f"/v1/jobs/{job.route}", job_endpoint(name, queue),
                              methods=["POST"], status_code=202, tags=["jobs"],
                              response_model=Queued, summary=f"Queue {job.summary}",
                              name=f"{name}_job")

    @app.post("/v1/jobs/index-youtube", status_code=202, tags=["jobs"], response_model=Queued,
              summary="Queue YouTube videos or a channel's newest for the sources index")
    def youtube_job(request: Request, body: YoutubeJob) -> Response:
        if not body.targets and not body.channel:
            raise BadQuery("give video URLs (targets) or a channel",
                           hint='{"channel": "GregIsenberg", "limit": 10}')
        return queue(request, "index_youtube", targets=body.targets, channel=body.channel,
                     limit=body.limit, force=body.force)

    @app.post("/v1/jobs/crawl", status_code=202, tags=["jobs"], response_model=Queued,
              summary=f"Queue a polite crawl ({', '.join(CRAWLS)}) into the sources index")
    def crawl_job(request: Request, body: CrawlJob) -> Response:
        return queue(request, "crawl", spider=body.spider, start_url=body.start_url,
                     max_pages=body.max_pages, delay=body.delay)

    @app.get("/v1/jobs/{job_id}", tags=["jobs"], responses=JSON_ANSWER,
             summary="A job's state, then its result or its error (never a traceback)")
    def get_job(request: Request,
                job_id: Annotated[str, PathParam(pattern=r"^[A-Za-z0-9-]{1,64}$")]) -> Response:
        return _answer(job_status(broker(request), job_id, client=request.app.state.redis,
                                  worker_timeout_s=settings.worker_timeout_s))

    @app.get("/health", tags=["health"], responses={503: {"description": "not ready"}},
             summary="Every store readable, redis reachable; workers alive, folders readable")
    def health(request: Request) -> Response:
        client = getattr(request.app.state, "redis", None)
        reachable, workers = False, None
        if client is not None:
            try:
                reachable = bool(client.ping())
                workers = liveness.workers(client, timeout=settings.worker_timeout_s)
            except redis.RedisError:
                pass
        stores, folders = probes.stores(settings), probes.folders(settings)
        ok = (all(probes.healthy(s) for s in stores.values())
              and (reachable or not settings.redis_url))
        body = {"ok": ok, "version": __version__, "stores": stores, "folders": folders,
                "redis": {"configured": bool(settings.redis_url), "reachable": reachable}}
        if workers is not None:
            body["workers"] = workers
        warnings = probes.warnings(folders, workers)
        if warnings:
            body["warnings"] = warnings
        return Response(reads.to_json(body), status_code=200 if ok else 503,
                        media_type="application/json")

    mount_web(app, settings)  # the page for people, at /ui
    return app


def serve(settings: Settings) -> None:
    """Run the API with uvicorn on settings.host:api_port (refuses 0.0.0.0 without a token)."""
    check_bind(settings)
    options = {"host": settings.host, "port": settings.api_port, "log_level": "info",
               "proxy_headers": False, "server_header": False, "log_config": log_config()}
    if settings.web_workers > 1:
        # Worker processes rebuild the app from the environment: hand them the bind flags.
        os.environ["SOLOGRAPH_HOST"] = settings.host
        os.environ["SOLOGRAPH_API_PORT"] = str(settings.api_port)
        config = _TcpConfig("solograph_services.api.app:app_from_env", factory=True,
                            workers=settings.web_workers, **options)
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    else:
        uvicorn.run(create_app(settings), **options)


class _TcpConfig(uvicorn.Config):
    """uvicorn makes the multi-process listener with protocol 0, so asyncio never sets
    TCP_NODELAY on the connections it accepts and each response waits ~40 ms for the client's
    delayed ACK (measured: 48 ms a request with 2 workers, 4 ms with 1). Name the protocol."""

    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
        tcp.set_inheritable(True)
        return tcp


def app_from_env() -> FastAPI:
    """The factory uvicorn's worker processes call (`SOLOGRAPH_WEB_WORKERS` > 1)."""
    from solograph.semantic import available

    return create_app(Settings.from_env(lane_available=available))
