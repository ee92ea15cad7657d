"""The task bodies: thin wrappers that take names and flags and call the indexes' jobs.

`run_scan` and `run_registry` are the work with its locks, callable without Celery; the tasks
add only what a queue needs: retries for transient faults and progress in the result backend.
The `scan` job is spread over the pool (`fanout`); the nightly refresh scans in one task, with
`run_scan`, since its other steps follow the scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis
from celery import Celery, Task

from solograph.config import Settings
from solograph.index import Job, resolve
from solograph.indexes import all_jobs
from solograph.portfolio import registry
from solograph.portfolio.sync import project_run, refresh_registry, scan_portfolio, scan_result
from solograph.store import connect_reader
from solograph_services.common.crawls import run_crawl
from solograph_services.common.jobs import job_table
from solograph_services.worker import embedding, fanout, locks
from solograph_services.worker.context import EXPECTED, MAX_RETRIES, WorkerContext

Progress = Callable[[str, int, int], None]


def run_registry(settings: Settings, client: redis.Redis, *, owner: str) -> dict:
    """Merge new checkouts into the registry, one writer of the registry at a time."""
    with locks.hold(client, locks.store_lock("portfolio"), owner=owner):
        return refresh_registry(settings)


def run_scan(settings: Settings, client: redis.Redis, *, owner: str,
             projects: list[str] | None = None, registry: bool = True,
             progress: Progress | None = None) -> dict:
    """The registry merge (optional), then each project scanned under its own lock.

    Two scans of one project run one after the other; the second finds the files unchanged.
    Each entry says when its scan ran and how long it waited for the project's lock; the
    result has the shape of a spread scan's (`portfolio.sync.scan_result`)."""
    merged = run_registry(settings, client, owner=owner) if registry else None
    runs, missing = [], []
    for name in project_names(settings, projects):
        with locks.hold(client, locks.project_lock(name), owner=owner) as waited:
            started = time.time()
            report = scan_portfolio(settings, projects=[name], progress=progress)
            missing += report["missing"]
            runs.append(project_run(name, {"summary": report.pop("summary"), "report": report},
                                    waited_s=waited, started=started, read_by=[owner]))
    return scan_result(registry=merged, runs=runs, missing=missing)


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
    worker = WorkerContext(app, settings)
    client, owner, retrying = worker.client, worker.owner, worker.retrying

    jobs = job_table()
    embeds = set(embedding.embed_jobs().values())
    for index, job in all_jobs():
        if job.name not in OWN_BODIES and job.name not in embeds:
            _register_job(worker, index.name, job, jobs[job.name].task)
    # The meaning lane: each store's embed job, the model's queue, the save.
    embedding.register(worker)

    # acks_late: a scan is idempotent (unchanged files are skipped), so a message redelivered
    # (a worker stopped before it finished, kombu puts its unacknowledged messages back) is
    # harmless. reject_on_worker_lost stays off so a file that crashes the parser cannot requeue
    # its scan forever; a worker killed outright has its started jobs failed (`liveness`).
    # The scan is spread over the pool (`fanout`): this task plans it, then becomes its chord.
    @app.task(name=jobs["scan"].task, bind=True, acks_late=True, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def scan(self: Task, projects: list[str] | None = None, registry: bool = True) -> dict:
        def work() -> dict:
            me = owner(self)
            report = run_registry(settings, client(), owner=me) if registry else None
            fanout.start(self, settings, client(), owner=me, registry_report=report,
                         projects=projects)
            return {}  # not reached: start replaces this task with the chord
        return retrying(self, work)

    fanout.register(worker)

    @app.task(name=jobs["nightly"].task, bind=True, acks_late=True, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def nightly(self: Task) -> dict:
        """`solograph refresh`, each store written under its lock: the registry merge and a
        scan of what changed (each project under its own), the session sync, the KB index."""
        from solograph.refresh import refresh

        def guard(store: str):
            return locks.hold(client(), locks.store_lock(store), owner=owner(self))

        report = retrying(self, lambda: refresh(
            settings, guard=guard, scan=lambda: run_scan(settings, client(), owner=owner(self),
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
            with locks.hold(client(), name, owner=owner(self), wait=None):
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
                            owner=owner(self), wait=None):
                report = run_crawl(settings, spider, start_url=start_url, max_pages=max_pages,
                                   delay=delay)
            embedding.queue_embedding(app, settings, "sources")
            return report
        except locks.LockTimeout:
            return {"spider": spider, "skipped": "a crawl of this site is already running"}


# Jobs whose task bodies are written out above, not made from the index's description.
OWN_BODIES = ("scan", "index_youtube")


def _register_job(worker: WorkerContext, store: str, job: Job, task_name: str) -> None:
    """One index job as a task: under its store's lock when it asks for one, retried on a
    transient fault, acknowledged late when it is safe to run twice."""
    app, settings, run = worker.app, worker.settings, resolve(job.run)

    @app.task(name=task_name, bind=True, acks_late=job.idempotent, max_retries=MAX_RETRIES,
              throws=EXPECTED)
    def task(self: Task, **kwargs: object) -> dict:
        def work() -> dict:
            if not job.locked:
                return run(settings, **kwargs)
            with locks.hold(worker.client(), locks.store_lock(store), owner=worker.owner(self)):
                return run(settings, **kwargs)
        report = worker.retrying(self, work)
        embedding.queue_embedding(app, settings, store)  # what the write left without vectors
        return report
