"""A scan spread over the pool: plan, a group of reads, one writer per project, one finish.

The `scan` job plans where the store is (the `portfolio` queue), then replaces itself with a
chord: for each project a chain of its read batches (a group, on the `scan` queue, that any
worker with the files may take: they parse and return plain data, never open the store) into
its writer (`portfolio` queue), and after every writer the finishing step, whose result is the
job's (same id). A writer offers its project to the store's write queue (`writes`): whoever
holds the store's lock applies every waiting project, one per short transaction under the
project's lock, so the store has one writer at a time and no pool process waits for the lock
while files wait to be read. The finishing step applies what still waits, then answers.
Progress (projects and files done of total) is kept in Redis and shown as the job's PROGRESS
state.

Reads and writes are safe to repeat (a write skips what the store already holds as read), so
both are acknowledged late and requeued when their worker is lost, a pool child or the whole
worker (`common.liveness`); a batch that took its worker down `MAX_DELIVERIES` times is given
up, and its project is reported failed and left as it was.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from types import SimpleNamespace

import redis
from celery import Task, chain, chord, group, states

from solograph import readers
from solograph.config import Settings
from solograph.portfolio.plan import batches
from solograph.portfolio.read import read_batch
from solograph.portfolio.store import open_writer
from solograph.portfolio.sync import (
    failed_run,
    finish_scanned,
    plan_scan,
    project_run,
    scan_result,
    write_scanned,
)
from solograph_services.common.jobs import SCAN_PARTS, job_table
from solograph_services.worker import locks, writes
from solograph_services.worker.context import EXPECTED, MAX_RETRIES, WorkerContext, transient

MAX_DELIVERIES = 3
KEY_TTL_S = 24 * 3600
PROGRESS = "solograph:scan:"  # + job id: a hash of totals and what is done
REPORTS = ":reports"  # PROGRESS + job id + this: each project's report, once written
STORE = "portfolio"

log = logging.getLogger("solograph.fanout")


def start(task: Task, settings: Settings, client: redis.Redis, *, owner: str,
          registry_report: dict | None, projects: list[str] | None) -> None:
    """Plan the scan and replace `task` with its chord (raises celery's Ignore)."""
    job_id = task.request.id
    with locks.hold(client, locks.store_lock(STORE), owner=owner):
        planned = plan_scan(settings, projects=projects)
    # Most bytes to read first: the last reads to finish are small ones, so the pool's
    # processes end together instead of one reading a big project alone at the end.
    plans = sorted(planned["plans"], key=lambda p: -sum(entry[2] for entry in p["read"]))
    parts = job_table_parts()
    files = sum(len(p["read"]) for p in plans)
    pipe = client.pipeline()
    pipe.hset(PROGRESS + job_id, mapping={"projects": len(plans), "files": files,
                                          "projects_done": 0, "files_done": 0})
    pipe.expire(PROGRESS + job_id, KEY_TTL_S)
    pipe.execute()
    header = []
    for plan in plans:
        writer = task.app.signature(parts["write"], kwargs={"plan": plan, "job_id": job_id},
                                    queue=SCAN_PARTS["write"].queue)
        reads = [task.app.signature(parts["read"], args=(batch,),
                                    kwargs={"job_id": job_id, "project": plan["project"]["name"],
                                            "max_file_bytes": settings.max_file_bytes},
                                    queue=SCAN_PARTS["read"].queue)
                 for batch in batches(plan)]
        if reads:
            header.append(chain(group(reads), writer))
        else:  # nothing to read: the writer still removes what left and notes the scan
            header.append(task.app.signature(parts["write"], args=([],), kwargs=writer.kwargs,
                                             queue=SCAN_PARTS["write"].queue, immutable=True))
    finish = task.app.signature(parts["finish"], kwargs={
        "job_id": job_id, "registry": registry_report, "missing": planned["missing"]},
        queue=SCAN_PARTS["finish"].queue)
    raise task.replace(chord(header, finish))


def job_table_parts() -> dict[str, str]:
    return {name: part.task for name, part in SCAN_PARTS.items()}


def register(worker: WorkerContext) -> None:
    """Bind the three parts of a spread scan to the worker's app (see the module's
    docstring)."""
    app, settings = worker.app, worker.settings
    client, owner, retrying = worker.client, worker.owner, worker.retrying
    parts = job_table_parts()

    @app.task(name=parts["read"], bind=True, acks_late=True, reject_on_worker_lost=True,
              throws=EXPECTED)
    def scan_read(self: Task, batch: dict, *, job_id: str, project: str,
                  max_file_bytes: int) -> dict:
        """Parse one batch of files; needs the files, never the store."""
        host = self.request.hostname or ""
        if _deliveries(client(), self.request.id) > MAX_DELIVERIES:
            log.error("batch of %s given up: it took its worker down %d times", project,
                      MAX_DELIVERIES)
            return {"files": [], "manifests": [], "host": host,
                    "error": f"a batch of {len(batch['files'])} files stopped its worker "
                             f"{MAX_DELIVERIES} times; the project was left as it was"}
        out = read_batch(batch, max_file_bytes=max_file_bytes)
        _bump(worker, job_id, project=project, files=len(batch["files"]))
        return {**out, "host": host}

    def writer() -> sqlite3.Connection:
        """This pool process's writer of the store, kept between writes (closing one runs a
        checkpoint), made again when the file at its path is another one (removed, rebuilt)."""
        return readers.kept_connection(settings.portfolio_db, lambda _path: open_writer(settings))

    def apply(write: dict, me: str) -> None:
        """One project written, whole, under its lock; its report kept for the job's result
        (the first one: a write applied again finds everything unchanged)."""
        plan, job_id = write["plan"], write["job_id"]
        name = plan["project"]["name"]
        with locks.hold(client(), locks.project_lock(name), owner=me) as waited:
            started = time.time()
            try:
                written = write_scanned(settings, plan, write["results"], conn=writer())
            except sqlite3.DatabaseError as exc:
                if transient(exc):
                    raise  # it stays first in line, for the next writer
                report = failed_run(name, f"the project could not be written and was left "
                                          f"as it was: {exc}", read_by=write["read_by"])
            else:
                report = {**project_run(name, written, waited_s=waited, started=started,
                                        read_by=write["read_by"]),
                          "changed": written["changed"]}  # for the finish, not the result
        _keep(client(), job_id, report)
        _bump(worker, job_id, project=name, projects=1)

    @app.task(name=parts["write"], bind=True, acks_late=True, reject_on_worker_lost=True,
              max_retries=MAX_RETRIES, throws=EXPECTED)
    def scan_write(self: Task, results: list[dict] | dict, *, plan: dict, job_id: str) -> dict:
        """Offer one project's write to the store's writer, and be that writer if none is."""
        results = [results] if isinstance(results, dict) else list(results)
        name = plan["project"]["name"]
        hosts = sorted({r.get("host", "") for r in results} - {""})
        failed = [r["error"] for r in results if r.get("error")]
        if failed:
            _keep(client(), job_id, failed_run(name, failed[0], read_by=hosts))
            _bump(worker, job_id, project=name, projects=1)
            return {"project": name}

        def work() -> dict:
            if not self.request.retries:
                writes.offer(client(), STORE, {"job_id": job_id, "plan": plan,
                                               "results": results, "read_by": hosts})
            writes.drain(client(), STORE, lambda w: apply(w, owner(self)), owner=owner(self))
            return {"project": name}
        return retrying(self, work)

    @app.task(name=parts["finish"], bind=True, max_retries=MAX_RETRIES, throws=EXPECTED)
    def scan_finish(self: Task, offered: list[dict], *, job_id: str, registry: dict | None,
                    missing: list[str]) -> dict:
        """The writes still waiting, then the job's result: every project's report, the
        failed ones apart."""
        def work() -> dict:
            writes.drain(client(), STORE, lambda w: apply(w, owner(self)), owner=owner(self),
                         wait=locks.WAIT_S)
            reports = _reports(client(), job_id)
            with locks.hold(client(), locks.store_lock(STORE), owner=owner(self)):
                finish_scanned(settings, changed=sum(r.get("changed", 0)
                                                     for r in reports.values()))
            return reports
        reports = retrying(self, work)
        with contextlib.suppress(redis.RedisError):  # else they expire by themselves
            client().delete(PROGRESS + job_id, PROGRESS + job_id + REPORTS)
        done = [reports.get(o["project"])
                or failed_run(o["project"], "its write was lost", read_by=[]) for o in offered]
        return scan_result(registry=registry, runs=done, missing=missing)


def _keep(client: redis.Redis, job_id: str, report: dict) -> None:
    key = PROGRESS + job_id + REPORTS
    pipe = client.pipeline()
    pipe.hsetnx(key, report["project"], json.dumps(report))
    pipe.expire(key, KEY_TTL_S)
    pipe.execute()


def _reports(client: redis.Redis, job_id: str) -> dict[str, dict]:
    raw = client.hgetall(PROGRESS + job_id + REPORTS)
    return {k.decode(): json.loads(v) for k, v in raw.items()}


def _deliveries(client: redis.Redis, task_id: str) -> int:
    """How many times this task's message was run (1 the first time)."""
    key = f"solograph:deliveries:{task_id}"
    try:
        pipe = client.pipeline()
        pipe.incr(key)
        pipe.expire(key, KEY_TTL_S)
        return int(pipe.execute()[0])
    except redis.RedisError:
        return 1


def _bump(worker: WorkerContext, job_id: str, *, project: str, files: int = 0,
          projects: int = 0) -> None:
    """Count what is done and show it as the job's progress; best effort (a broker fault
    loses a progress line, never the work)."""
    key, app = PROGRESS + job_id, worker.app
    try:
        pipe = worker.client().pipeline()
        pipe.hincrby(key, "files_done", files)
        pipe.hincrby(key, "projects_done", projects)
        pipe.hgetall(key)
        counts = {k.decode(): int(v) for k, v in pipe.execute()[2].items()}
        if "projects" not in counts:
            return  # the job finished (or redis restarted): nothing left to show
        meta = app.backend.get_task_meta(job_id)
        if meta.get("status") in states.READY_STATES:
            return
        request = SimpleNamespace(task=job_table()["scan"].task, args=[], kwargs={},
                                  hostname=meta.get("worker"), retries=0,
                                  delivery_info={"routing_key": job_table()["scan"].queue})
        app.backend.store_result(job_id, {
            "project": project, "done": counts["files_done"], "total": counts["files"],
            "projects_done": counts["projects_done"], "projects": counts["projects"]},
            "PROGRESS", request=request)
    except redis.RedisError as exc:
        log.warning("progress of job %s not recorded: %s", job_id, exc)
