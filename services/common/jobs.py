"""The job table and the Celery client every service shares.

A job is a name the API and the CLI know (`scan`, `registry`, ...); the table maps it to the
Celery task that runs it and the queue it travels on. It is made from the indexes' own write
jobs (each on its index's queue: the queue is the index's name) plus the two the services add:
a crawl (Scrapy lives in the services) and the nightly refresh beat sends. `create_celery` builds
the one Celery app configuration; the worker registers the task bodies on it, the API and the CLI
only send.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import redis
from billiard.exceptions import WorkerLostError
from celery import Celery
from celery.backends.redis import RedisBackend
from kombu import Exchange, Queue
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from solograph.config import Settings
from solograph.errors import BadQuery, ConfigError, SolographError
from solograph.indexes import all_indexes
from solograph.sources import CRAWLS
from solograph_services.common import ledger, liveness
from solograph_services.common.publish import Transport

# Redis redelivers an unacknowledged message after the visibility timeout, so it must exceed
# the longest scan; the hard time limit stays below it so a stuck task never runs twice.
VISIBILITY_TIMEOUT_S = 6 * 3600
TASK_TIME_LIMIT_S = VISIBILITY_TIMEOUT_S - 1800
RESULT_EXPIRES_S = 24 * 3600


@dataclass(frozen=True)
class TaskRoute:
    """Where an index job (`solograph.index.Job`) or a worker-only task goes: its Celery task
    name and queue, and the HTTP route it is offered at."""
    task: str
    queue: str
    route: str = ""  # POST /v1/jobs/<route>; "" = not offered to clients
    summary: str = ""


def job_table() -> dict[str, TaskRoute]:
    jobs = {j.name: TaskRoute(f"solograph.{j.name}", index.name, j.route, j.summary)
            for index in all_indexes() for j in index.jobs}
    # Scrapy runs in a child process per crawl (the reactor cannot restart in a worker).
    jobs["crawl"] = TaskRoute("solograph.crawl", "sources", "crawl",
                        f"a polite crawl ({', '.join(CRAWLS)}) into the sources index")
    # What beat sends each night; not offered to clients, who submit its parts instead.
    jobs["nightly"] = TaskRoute("solograph.nightly", "portfolio")
    # The meaning lane's model work: texts in, vectors out, on a queue of its own so any host
    # with the model can take it (the stores' own queues collect and save).
    jobs["embed_texts"] = TaskRoute("solograph.embed_texts", "embed")
    return jobs


# The parts of a spread scan (`worker.fanout`): internal tasks, never offered to clients. Reads
# travel on their own `scan` queue, which a worker on any host with the checkouts may consume;
# writes and the finishing step stay on the index's queue, where the store is.
SCAN_PARTS = {
    "read": TaskRoute("solograph.scan_read", "scan"),
    "write": TaskRoute("solograph.scan_write", "portfolio"),
    "finish": TaskRoute("solograph.scan_finish", "portfolio"),
}
# A task whose result is stored as another job's: the finishing step answers for its scan.
ANSWERS_FOR = {SCAN_PARTS["finish"].task: "scan"}


def queues() -> tuple[str, ...]:
    parts = (part.queue for part in SCAN_PARTS.values())
    return tuple(dict.fromkeys([*(job.queue for job in job_table().values()), *parts]))


class SubmitOnlyRedisBackend(RedisBackend):
    """The redis result backend, minus the pubsub subscription Celery opens on every send.

    Our clients submit and later poll by id; none blocks on a result at send time. Without
    this, a send subscribes first, and with redis down that retries for 20 s before the publish
    itself can fail. `AsyncResult.get()` still subscribes when it waits, so nothing is lost."""

    def on_task_call(self, producer, task_id) -> None:
        return None


class BrokerUnavailable(SolographError):
    """The broker is configured but could not be reached."""

    code = "broker_unavailable"
    status = 503


def create_celery(settings: Settings, *, consumer: bool = False) -> Celery:
    """The Celery app for `settings.redis_url` (broker and result backend).

    By default a client's: every broker and result-backend call gives up after
    `settings.broker_timeout_ms`, once, without retrying, so a hung Redis (its port open, no
    answers) is a fast BrokerUnavailable, and a publish that gave up is never sent later from a
    retry. `consumer=True` is the worker's and beat's: Celery's own patient defaults."""
    if not settings.redis_url:
        raise ConfigError("no broker configured",
                          hint="set SOLOGRAPH_REDIS_URL, e.g. redis://127.0.0.1:6379/0, "
                               "or run the job in-process with `solograph scan`")
    backend = f"{__name__}:{SubmitOnlyRedisBackend.__name__}+{settings.redis_url}"
    jobs, names = job_table(), queues()
    app = Celery("solograph", broker=settings.redis_url, backend=backend, set_as_current=False)
    transport = {"visibility_timeout": VISIBILITY_TIMEOUT_S, "socket_connect_timeout": 5}
    app.conf.update(
        # Each queue on its own exchange and key: bare Queue(name)s all bind to the default
        # queue's key, so a publish by that key would land in every queue.
        task_queues=[Queue(q, Exchange(q, type="direct"), routing_key=q) for q in names],
        task_default_queue=names[0],
        task_routes={job.task: {"queue": job.queue}
                     for job in [*jobs.values(), *SCAN_PARTS.values()]},
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        result_expires=RESULT_EXPIRES_S,
        # Stores the task name with the result, so a job id alone tells which job it was.
        result_extended=True,
        task_track_started=True,
        task_time_limit=TASK_TIME_LIMIT_S,
        worker_prefetch_multiplier=1,
        broker_transport_options=transport,
        redis_socket_connect_timeout=5,
        broker_connection_retry_on_startup=True,
        timezone="UTC",
        enable_utc=True,
        # Where jobs are kept apart from the broker (common.ledger): the API and the worker
        # share the data volume.
        solograph_ledger=str(ledger.ledger_path(settings)),
    )
    if not consumer:
        timeout = settings.broker_timeout_ms / 1000
        app.conf.update(
            # Measured against a listener that accepts and never answers: without these a
            # publish waited more than 250 s and a status read 120 s (redis_socket_timeout).
            broker_transport=f"{Transport.__module__}:{Transport.__name__}",
            broker_transport_options={**transport, "socket_timeout": timeout,
                                      "socket_connect_timeout": timeout,
                                      "publish_timeout": timeout},
            broker_connection_timeout=timeout,
            task_publish_retry=False,
            redis_socket_timeout=timeout,
            redis_socket_connect_timeout=timeout,
            redis_retry_on_timeout=False,
            result_backend_transport_options={"retry_policy": {"max_retries": 0}},
        )
    return app


def submit(celery: Celery, job: str, **kwargs) -> str:
    """Queue `job` with keyword arguments; returns the job id."""
    table = job_table()
    spec = table.get(job)
    if spec is None:
        raise BadQuery(f"unknown job {job!r}", hint=f"use one of: {', '.join(table)}")
    job_id = str(uuid.uuid4())
    path = _ledger(celery)
    if path is not None:
        ledger.safely(ledger.submitted, path, job_id=job_id, name=job, queue=spec.queue)
    try:
        result = celery.send_task(spec.task, kwargs=kwargs, queue=spec.queue, task_id=job_id)
    except (KombuOperationalError, RedisConnectionError, RedisTimeoutError) as exc:
        raise BrokerUnavailable(f"the broker did not accept the job: {exc}",
                                hint="check that redis is running at SOLOGRAPH_REDIS_URL") from None
    return result.id


def _ledger(celery: Celery) -> Path | None:
    found = celery.conf.get("solograph_ledger")
    return Path(found) if found else None


def job_status(celery: Celery, job_id: str, *, client: redis.Redis | None = None,
               worker_timeout_s: float = 60.0) -> dict:
    """{"job", "state", then "result" on success, "error" on failure, "progress" while running}.

    An id Celery never saw is PENDING, like a job still waiting in its queue, unless the
    ledger knows it (`common.ledger`): then an ended job answers from there, and one the broker
    forgot (a Redis restarted empty) is `lost`, with a hint to run it again. With `client`
    the job is first settled if its worker is gone (`liveness.reap`): FAILURE `worker_lost`
    for a job it had started, back in its queue for one it had not."""
    result = celery.AsyncResult(job_id)
    try:
        if client is not None:
            liveness.reap(celery, client, timeout=worker_timeout_s, job_ids=[job_id])
        state = result.state
        names = {spec.task: name for name, spec in job_table().items()} | ANSWERS_FOR
        out: dict = {"job": names.get(result.name or "", result.name), "state": state}
        if state == "SUCCESS":
            out["result"] = result.result
        elif state in ("FAILURE", "RETRY", "REVOKED"):
            out["error"] = _error(result.result, state)
        elif state == "PROGRESS" and isinstance(result.info, dict):
            out["progress"] = result.info
        elif state == "PENDING" and (path := _ledger(celery)) is not None:
            out = _kept(path, job_id, client, worker_timeout_s) or out
    except (RedisConnectionError, RedisTimeoutError, KombuOperationalError) as exc:
        raise BrokerUnavailable(f"the result backend could not be read: {exc}",
                                hint="check that redis is running at SOLOGRAPH_REDIS_URL") from None
    return {"id": job_id, **out}


def _kept(path: Path, job_id: str, client: redis.Redis | None,
          worker_timeout_s: float) -> dict | None:
    """The answer for a job the backend does not know, from the ledger; None to keep PENDING."""
    try:
        entry = ledger.get(path, job_id)
    except (OSError, sqlite3.Error):
        return None
    if entry is None:
        return None
    out: dict = {"job": entry["name"], "state": entry["state"]}
    if entry["state"] in ledger.ENDED:  # its result expired or the broker restarted since
        if entry["state"] == "SUCCESS":
            out["result"] = entry["result"]
        else:
            out["error"] = entry["error"] or {"error": entry["state"].lower(),
                                              "message": "the job did not succeed"}
        return out
    if client is None:
        return None
    for _ in range(2):  # a worker moving the message between its lists is seen on a look again
        if _held(client, entry, worker_timeout_s):
            return out if entry["state"] == "STARTED" else None
        time.sleep(0.1)
        entry = ledger.get(path, job_id) or entry
        if entry["state"] in ledger.ENDED:
            return _kept(path, job_id, client, worker_timeout_s)
    route = job_table().get(entry["name"], TaskRoute("", "")).route
    again = f"POST /v1/jobs/{route}" if route else f"`solograph {entry['name']}`"
    return {"job": entry["name"], "state": "lost",
            "error": {"error": "lost", "message": "the broker forgot this job before it finished "
                                                  "(it restarted empty, or lost its data)"},
            "hint": f"run it again: {again}"}


def _held(client: redis.Redis, entry: dict, worker_timeout_s: float) -> bool:
    """Whether the broker still has the job somewhere: waiting in its queue, unacknowledged,
    received by a worker, or running on a worker that is alive."""
    job_id = entry["id"].encode()
    if entry["state"] == "STARTED":
        # A Redis younger than the heartbeat timeout may not have heard from the worker yet.
        if client.info("server").get("uptime_in_seconds", 0) < worker_timeout_s:
            return True
        nodes = {liveness.node_of(i) for i in liveness.alive(client, timeout=worker_timeout_s)}
        return entry["worker"] in nodes
    if client.hexists(liveness.JOBS, entry["id"]):
        return True
    # Bounded: a queue longer than this is taken to hold the job.
    waiting = client.lrange(entry["queue"], 0, 9_999)
    if len(waiting) >= 10_000 or any(job_id in m for m in waiting):
        return True
    return any(job_id in m for m in client.hvals("unacked"))


def _error(exc: object, state: str) -> dict:
    """Error text only: the traceback stays in the worker's log."""
    if isinstance(exc, SolographError):
        return {"error": exc.code, "message": exc.message}
    if isinstance(exc, WorkerLostError):  # a pool child killed (the OOM killer, SIGKILL)
        return {"error": liveness.WorkerLost.code, "message": str(exc)}
    if state == "REVOKED":
        return {"error": "revoked", "message": "the job was cancelled"}
    if isinstance(exc, BaseException):
        return {"error": type(exc).__name__, "message": str(exc)}
    return {"error": "failed", "message": str(exc)}


def error_answer(exc: object, state: str) -> dict:
    """What a failed job's answer says of `exc` (the worker keeps it in the ledger too)."""
    return _error(exc, state)
