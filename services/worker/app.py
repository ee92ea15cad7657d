"""The worker pool and beat: `create_worker_app` plus the two entry points the CLI calls.

Tasks are registered on the shared Celery configuration (`common.jobs.create_celery`); beat
sends one nightly refresh at `settings.nightly_hour` (UTC), and only one beat may run per broker.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading

import redis
from celery import Celery
from celery.schedules import crontab
from celery.signals import task_postrun, task_prerun, worker_ready

from solograph.config import Settings
from solograph.errors import ConfigError
from solograph_services.common import ledger
from solograph_services.common.jobs import BrokerUnavailable, create_celery, error_answer, job_table
from solograph_services.common.jobs import queues as all_queues
from solograph_services.worker import locks, tasks
from solograph_services.worker.heartbeat import Heartbeat

NODE_NAME = "solograph@%h"
# A worker of the model's queue alone (the stack's `embedder`, an embedding-only host) runs
# under a name of its own: beside a full worker on the same host (one network namespace, as
# in the test stack) a shared name would let each drop the other's locks when it starts, and
# share one heartbeat file.
EMBED_NODE_NAME = "solograph-embed@%h"


def node_name(queues: list[str]) -> str:
    return EMBED_NODE_NAME if set(queues) == {"embed"} else NODE_NAME
BEAT_SCHEDULE_FILE = "celerybeat-schedule"

log = logging.getLogger(__name__)


def create_worker_app(settings: Settings) -> Celery:
    app = create_celery(settings, consumer=True)
    tasks.register(app, settings)
    app.conf.beat_schedule = beat_schedule(settings)
    return app


def beat_schedule(settings: Settings) -> dict:
    nightly = job_table()["nightly"]
    return {
        "nightly-refresh": {
            "task": nightly.task,
            "schedule": crontab(hour=settings.nightly_hour, minute=0),
            "options": {"queue": nightly.queue},
        },
        **sources_schedule(settings),
    }


def sources_schedule(settings: Settings) -> dict:
    """Nightly refreshes of the configured channels and crawls, half an hour after the scan;
    none unless SOLOGRAPH_YOUTUBE_CHANNELS or SOLOGRAPH_CRAWLS name some."""
    at = crontab(hour=settings.nightly_hour, minute=30)
    out = {}
    for channel in settings.youtube_channels:
        job = job_table()["index_youtube"]
        out[f"youtube-{channel}"] = {"task": job.task, "schedule": at,
                                     "kwargs": {"channel": channel, "limit": 10},
                                     "options": {"queue": job.queue}}
    for spider in settings.crawls:
        job = job_table()["crawl"]
        out[f"crawl-{spider}"] = {"task": job.task, "schedule": at, "kwargs": {"spider": spider},
                                  "options": {"queue": job.queue}}
    return out


def _redis(settings: Settings) -> redis.Redis:
    return redis.Redis.from_url(settings.redis_url, socket_connect_timeout=5, socket_timeout=10)


def run_worker(settings: Settings, queues: list[str], concurrency: int) -> None:
    """Consume `queues` with `concurrency` processes until stopped (blocks)."""
    known = all_queues()
    queues = [q.strip() for q in queues if q.strip()]
    unknown = sorted(set(queues) - set(known))
    if unknown or not queues:
        raise ConfigError(f"unknown queue(s): {', '.join(unknown) or '(none given)'}",
                          hint=f"choose from: {', '.join(known)}")
    if concurrency < 1:
        raise ConfigError("concurrency must be at least 1")
    app = create_worker_app(settings)

    def drop_stale_locks(sender: object = None, **_: object) -> None:
        # A worker restarting under its node name inherits nothing: locks left under that name
        # belong to its predecessor, which died holding them.
        nodename = getattr(sender, "hostname", None)
        if not nodename:
            return
        client = _redis(settings)
        try:
            dropped = locks.drop_owned(client, nodename)
        finally:
            client.close()
        if dropped:
            log.warning("dropped locks left by a previous %s: %s", nodename, ", ".join(dropped))

    worker_ready.connect(drop_stale_locks, weak=False, dispatch_uid="solograph-drop-locks")
    # Who is alive and what each holds, so a worker killed outright loses its jobs in a minute,
    # not in the visibility timeout's six hours.
    node = node_name(queues)
    Heartbeat(app, settings, node).connect()
    keep_in_ledger(settings)
    # Mingle and gossip only matter for revoke lists and events we do not use; skipping them
    # makes startup a second faster and keeps the broker quieter.
    app.worker_main(["worker", "-Q", ",".join(queues), "-c", str(concurrency), "-n", node,
                     "--loglevel", "INFO", "--without-mingle", "--without-gossip"])


def keep_in_ledger(settings: Settings) -> None:
    """Each job's start and end in the ledger (`common.ledger`), where a Redis restart
    cannot erase them; only jobs the API or the CLI submitted have a row to update."""
    path = ledger.ledger_path(settings)

    def on_start(task_id: str | None = None, task: object = None, **_: object) -> None:
        if task_id:
            worker = getattr(getattr(task, "request", None), "hostname", None) or ""
            ledger.safely(ledger.started, path, job_id=task_id, worker=worker)

    def on_end(task_id: str | None = None, state: str | None = None, retval: object = None,
               **_: object) -> None:
        if task_id and state:
            ok = state == "SUCCESS"
            ledger.safely(ledger.ended, path, job_id=task_id, state=state,
                          result=retval if ok else None,
                          error=None if ok else error_answer(retval, state))

    task_prerun.connect(on_start, weak=False, dispatch_uid="solograph-ledger-start")
    task_postrun.connect(on_end, weak=False, dispatch_uid="solograph-ledger-end")


def run_beat(settings: Settings) -> None:
    """Send the nightly refresh on schedule (blocks). A second beat on the broker refuses, and
    one whose lock another beat took (after a Redis restart) stops."""
    app = create_worker_app(settings)
    settings.home.mkdir(parents=True, exist_ok=True)
    client = _redis(settings)
    lost = threading.Event()

    def stop_beat() -> None:
        # Beat's own SIGTERM handler saves the schedule and ends its loop, as `docker stop` does.
        lost.set()
        os.kill(os.getpid(), signal.SIGTERM)

    try:
        with locks.single_beat(client, owner=f"beat@{socket.gethostname()}:{os.getpid()}",
                               ttl=beat_lock_ttl(settings), on_lost=stop_beat):
            app.Beat(schedule=str(settings.home / BEAT_SCHEDULE_FILE), loglevel="INFO").run()
    except SystemExit:
        if not lost.is_set():
            raise
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        raise BrokerUnavailable(f"beat could not reach redis: {exc}",
                                hint="check that redis is running at SOLOGRAPH_REDIS_URL") from None
    finally:
        client.close()
    if lost.is_set():
        raise ConfigError("another beat took the beat lock while this one ran; this one stopped",
                          hint="run exactly one `solograph beat`")


def beat_lock_ttl(settings: Settings) -> float:
    """Half the time after which a silent worker is taken for dead: a beat that died frees its
    lock that soon, and its renewals (a third of it apart) survive a short broker outage."""
    return settings.worker_timeout_s / 2
