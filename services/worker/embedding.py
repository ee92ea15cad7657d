"""The meaning lane's write work on the worker pool, split so the model needs no store.

    embed_<store>   (the store's queue)  collect a round of pending texts, send them on
    embed_texts     (queue `embed`)      texts in, vectors out: no SQLite, any host with the model
    save_vectors    (the store's queue)  save them in one short transaction, send the next round

A round is BATCH texts (a few seconds of one core); the chain goes on until nothing waits, so
a second host running only `solograph worker -Q embed` takes the model work while the store's
own worker only reads and writes. One chain per store at a time: a marker in Redis (renewed
each round, expiring after MARK_TTL_S, so a chain lost with its worker frees the store) makes
an `embed_<store>` sent meanwhile (after every sync) a no-op.
"""

from __future__ import annotations

import logging

import redis
from celery import Celery, Task
from kombu.exceptions import OperationalError as KombuOperationalError

from solograph.config import Settings
from solograph.indexes import all_indexes
from solograph.semantic import enabled, remote
from solograph_services.common.jobs import job_table
from solograph_services.worker.context import EXPECTED, WorkerContext

MARK = "solograph:embedding:"
MARK_TTL_S = 600
EMBED_QUEUE = "embed"
SAVE_TASK = "solograph.save_vectors"

log = logging.getLogger(__name__)


def embed_jobs() -> dict[str, str]:
    """Each index with a meaning lane -> its embed job's name."""
    return {index.name: index.embed_job for index in all_indexes() if index.embed_job}


def queue_embedding(app: Celery, settings: Settings, store: str) -> str | None:
    """After a write job of `store`: send its embed job when the lane is on (its id)."""
    job = embed_jobs().get(store)
    if job is None or not enabled(settings):
        return None
    spec = job_table()[job]
    try:
        return app.send_task(spec.task, queue=spec.queue).id
    except (redis.exceptions.RedisError, KombuOperationalError) as exc:
        # The write it follows succeeded: a lost send is only logged (the next sync, or a read
        # counting embedding_pending, sends it again).
        log.warning("could not queue %s after a write of %s: %s", job, store, exc)
        return None


def register(worker: WorkerContext) -> None:
    app, settings, client = worker.app, worker.settings, worker.client
    jobs = job_table()

    def next_round(store: str) -> dict:
        """Collect one round of `store` and send it to the `embed` queue, its save linked."""
        work = remote.collect(settings, store)
        if work is None:
            client().delete(MARK + store)
            return {"store": store, "queued": 0}
        client().set(MARK + store, "1", ex=MARK_TTL_S)
        save = app.signature(SAVE_TASK, kwargs={"store": store, "work": work}, queue=store)
        app.send_task(jobs["embed_texts"].task, args=[remote.texts_of(work)],
                      queue=EMBED_QUEUE, link=save)
        return {"store": store, "queued": len(work["items"])}

    def start_task(store: str, job: str) -> None:
        @app.task(name=jobs[job].task, bind=True, throws=EXPECTED)
        def start(self: Task) -> dict:
            if not enabled(settings):
                return {"store": store, "skipped": "the meaning lane is off"}
            if not client().set(MARK + store, "1", nx=True, ex=MARK_TTL_S):
                return {"store": store, "skipped": "embedding of this store is under way"}
            try:
                return next_round(store)
            except BaseException:
                client().delete(MARK + store)
                raise

    for store, job in embed_jobs().items():
        start_task(store, job)

    @app.task(name=jobs["embed_texts"].task, throws=EXPECTED)
    def embed_texts(texts: list[str]) -> dict:
        return remote.embed_texts(texts)

    @app.task(name=SAVE_TASK, bind=True, throws=EXPECTED)
    def save_vectors(self: Task, done: dict, store: str, work: dict) -> dict:
        try:
            report = remote.save(settings, store, work, done)
        except BaseException:
            client().delete(MARK + store)
            raise
        if report["dropped"] or (report["embedded"] == 0 and work["items"]):
            # Another model's vectors, or rows that keep changing: the next sync starts again.
            log.warning("embedding of %s stopped: %s", store, report)
            client().delete(MARK + store)
            return report
        report["next"] = next_round(store) if report["pending"] else {"store": store,
                                                                      "queued": 0}
        if not report["pending"]:
            client().delete(MARK + store)
        return report
