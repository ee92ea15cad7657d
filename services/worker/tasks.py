"""The task bodies: thin wrappers that take names and flags and call the indexes' jobs.

`run_scan` and `run_registry` are the work with its locks, callable without Celery; the tasks
add only what a queue needs: retries for transient faults and progress in the result backend.
The `scan` job is spread over the pool (`fanout`); the nightly refresh scans in one task, with
`run_scan`, since its other steps follow the scan.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from collections.abc import Callable

import redis
from celery import Celery, Task

from solograph.config import Settings
from solograph.errors import SolographError
from solograph.index import Job as IndexJob
from solograph.index import resolve
from solograph.indexes import all_jobs
from solograph.portfolio import registry
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_reader
from solograph_services.common.crawls import run_crawl
from solograph_services.common.jobs import job_table
from solograph_services.worker import embedding, fanout, locks

MAX_RETRIES = 5
TRANSIENT_REDIS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
Progress = Callable[[str, int, int], None]
# Domain errors are the user's to fix: logged as one line, without a traceback.
EXPECTED = (SolographError,)


def run_registry(settings: Settings, client: redis.Redis, *, owner: str) -> dict:
    """Merge new checkouts into the registry, one writer of the registry at a time."""
    with locks.hold(client, locks.store_lock("portfolio"), owner=owner):
        return refresh_registry(settings)


def run_scan(settings: Settings, client: redis.Redis, *, owner: str,
             projects: list[str] | None = None, registry: bool = True,
             progress: Progress | None = None) -> dict:
    """The registry merge (optional), then each project scanned under its own lock.

    Two scans of one project run one after the other; the second finds the files unchanged.
    Each entry says when its scan ran and how long it waited for the project's lock."""
    out: dict = {"registry": run_registry(settings, client, owner=owner) if registry else None,
                 "projects": []}
    for name in project_names(settings, projects):
        with locks.hold(client, locks.project_lock(name), owner=owner) as waited:
            started = time.time()
            report = scan_portfolio(settings, projects=[name], progress=progress)
            out["projects"].append({"project": name, "waited_s": round(waited, 3),
                                    "started": started, "finished": time.time(),
                                    "summary": report.pop("summary"), "report": report})
    return out


def project_names(settings: Settings, projects: list[str] | None) -> list[str]:
    """The projects named, else the scope, else every registered one (as the core's scan does);
    an unknown name fails the job before any project is scanned."""
    names = list(projects or settings.scan_scope)
    conn = connect_reader(settings.portfolio_db, "portfolio")
    try:
        chosen = registry.resolve_scope(conn, names) if names else registry.list_projects(conn)
    finally:
        conn.close()
    return [p.name for p in chosen]


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, TRANSIENT_REDIS):
        return True
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _retrying(task: Task, work: Callable[[], dict]) -> dict:
    """Run `work`; retry later on a redis outage or a store that stayed locked, else fail."""
    try:
        return work()
    except (*TRANSIENT_REDIS, sqlite3.OperationalError) as exc:
        if not _transient(exc):
            raise
        raise task.retry(exc=exc, countdown=min(300, 10 * 2 ** task.request.retries)) from None


def _owner(task: Task) -> str:
    return task.request.hostname or f"{socket.gethostname()}:{os.getpid()}"


def _progress(task: Task) -> Progress | None:
    if not task.request.id or task.request.called_directly:
        return None

    def report(project: str, done: int, total: int) -> None:
        task.update_state(state="PROGRESS",
                          meta={"project": project, "done": done, "total": total})
    return report


def register(app: Celery, settings: Settings) -> None:
    """Bind the task bodies to `app`, with `settings` built once by the worker's entry point:
    every index's write jobs (under its store's lock where the job asks for one), then the
    jobs whose bodies are the worker's own (the scan's per-project locks, skip-if-running
    refreshes, the crawl's child process, the nightly refresh)."""
    clients: dict[int, redis.Redis] = {}

    def client() -> redis.Redis:
        # One client per process: prefork children must not share their parent's sockets.
        pid = os.getpid()
        if pid not in clients:
            clients[pid] = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=5,
                                                socket_timeout=30)
        return clients[pid]

    jobs = job_table()
    embeds = set(embedding.embed_jobs().values())
    for index, job in all_jobs():
        if job.name not in OWN_BODIES and job.name not in embeds:
            _register_job(app, settings, client, index.name, job, jobs[job.name].task)
    # The meaning lane: each store's embed job, the model's queue, the save.
    embedding.register(app, settings, client)

    # acks_late: a scan is idempotent (unchanged files are skipped), so a message redelivered
    # (a worker stopped before it finished, kombu puts its unacknowledged messages back) is
    # harmless. reject_on_worker_lost stays off so a file that crashes the parser cannot requeue
    # its scan forever; a worker killed outright has its started jobs failed (`liveness`).
    # The scan is spread over the pool (`fanout`): this task plans it, then becomes its chord.
    @app.task(name=jobs["scan"].task, bind=True, acks_late=True, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def scan(self: Task, projects: list[str] | None = None, registry: bool = True) -> dict:
        def work() -> dict:
            owner = _owner(self)
            report = run_registry(settings, client(), owner=owner) if registry else None
            fanout.start(self, settings, client(), owner=owner, registry_report=report,
                         projects=projects)
            return {}  # not reached: start replaces this task with the chord
        return _retrying(self, work)

    fanout.register(app, settings, client, _owner, _retrying, EXPECTED, _transient)

    @app.task(name=jobs["nightly"].task, bind=True, acks_late=True, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def nightly(self: Task) -> dict:
        """`solograph refresh`, each store written under its lock: the registry merge and a
        scan of what changed (each project under its own), the session sync, the KB index."""
        from solograph.refresh import refresh

        def guard(store: str):
            return locks.hold(client(), locks.store_lock(store), owner=_owner(self))

        report = _retrying(self, lambda: refresh(
            settings, guard=guard, scan=lambda: run_scan(settings, client(), owner=_owner(self),
                                                         progress=_progress(self))))
        for store in ("sessions", "kb"):
            embedding.queue_embedding(app, settings, store)
        return report

    # Sources: one refresh of a channel (or one crawl of a site) at a time; a second one
    # while it runs is skipped, not queued behind it (beat sends the next one tomorrow).
    @app.task(name=jobs["index_youtube"].task, bind=True, throws=EXPECTED)
    def index_youtube(self: Task, targets: list[str] | None = None, channel: str | None = None,
                      limit: int = 10, force: bool = False) -> dict:
        from solograph.sources.sync import index_youtube as run

        name = locks.store_lock(f"sources:youtube:{channel or ','.join(targets or [])}"[:200])
        try:
            with locks.hold(client(), name, owner=_owner(self), wait=None):
                report = run(settings, targets, channel=channel, limit=limit, force=force)
            embedding.queue_embedding(app, settings, "sources")
            return report
        except locks.LockTimeout:
            return {"source": "youtube", "skipped": "the same refresh is already running"}

    @app.task(name=jobs["crawl"].task, bind=True, throws=EXPECTED)
    def crawl(self: Task, spider: str, start_url: str | None = None, max_pages: int = 50,
              delay: float | None = None) -> dict:
        """One Scrapy crawl in a child process (the reactor cannot restart in a worker)."""
        try:
            with locks.hold(client(), locks.store_lock(f"sources:crawl:{spider}"),
                            owner=_owner(self), wait=None):
                report = run_crawl(settings, spider, start_url=start_url, max_pages=max_pages,
                                   delay=delay)
            embedding.queue_embedding(app, settings, "sources")
            return report
        except locks.LockTimeout:
            return {"spider": spider, "skipped": "a crawl of this site is already running"}


# Jobs whose task bodies are written out above, not made from the index's description.
OWN_BODIES = ("scan", "index_youtube")


def _register_job(app: Celery, settings: Settings, client: Callable[[], redis.Redis],
                  store: str, job: IndexJob, task_name: str) -> None:
    """One index job as a task: under its store's lock when it asks for one, retried on a
    transient fault, acknowledged late when it is safe to run twice."""
    run = resolve(job.run)

    @app.task(name=task_name, bind=True, acks_late=job.idempotent, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def task(self: Task, **kwargs: object) -> dict:
        def work() -> dict:
            if not job.locked:
                return run(settings, **kwargs)
            with locks.hold(client(), locks.store_lock(store), owner=_owner(self)):
                return run(settings, **kwargs)
        report = _retrying(self, work)
        embedding.queue_embedding(app, settings, store)  # what the write left without vectors
        return report
