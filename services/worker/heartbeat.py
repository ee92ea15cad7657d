"""The worker's side of `common.liveness`: a heartbeat thread in the worker's main process that
also settles the jobs of dead workers, each job recorded when the worker receives it (main
process) and forgotten when it has run (the pool child that ran it).

A pool child killed alone leaves its record behind; Celery itself fails that job, and the record
is settled as finished when this worker's instance is gone.
"""

from __future__ import annotations

import logging
import os
import threading

import redis
from celery import Celery
from celery.signals import task_postrun, task_received, worker_ready, worker_shutdown
from celery.utils.nodenames import host_format
from kombu.exceptions import OperationalError as KombuOperationalError

from solograph.config import Settings
from solograph_services.common import liveness
from solograph_services.worker import probe

log = logging.getLogger("solograph.heartbeat")


class Heartbeat:
    def __init__(self, app: Celery, settings: Settings, nodename: str) -> None:
        self.app, self.settings = app, settings
        self.instance = liveness.instance_name(host_format(nodename))
        self.timeout = float(settings.worker_timeout_s)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._clients: dict[int, redis.Redis] = {}
        self._failing = False
        # The container's health probe reads this file's age (`worker.probe`).
        self.beat_file = probe.heartbeat_file(settings, liveness.node_of(self.instance))

    def client(self) -> redis.Redis:
        # One client per process: pool children must not share their parent's sockets. Short
        # timeouts: the bookkeeping must never hold a task or the consumer up for long.
        pid = os.getpid()
        if pid not in self._clients:
            seconds = self.settings.broker_timeout_ms / 1000
            self._clients[pid] = redis.Redis.from_url(
                self.settings.redis_url, socket_connect_timeout=seconds, socket_timeout=seconds)
        return self._clients[pid]

    def connect(self) -> None:
        """Hook the signals; call before the worker starts (its children inherit the hooks)."""
        worker_ready.connect(self._ready, weak=False, dispatch_uid="solograph-heartbeat-ready")
        worker_shutdown.connect(self._shutdown, weak=False,
                                dispatch_uid="solograph-heartbeat-shutdown")
        task_received.connect(self._received, weak=False,
                              dispatch_uid="solograph-heartbeat-received")
        task_postrun.connect(self._ran, weak=False, dispatch_uid="solograph-heartbeat-ran")

    def _ready(self, **_: object) -> None:
        self._quietly("first heartbeat", self._first)
        self._thread = threading.Thread(target=self._run, name="solograph-heartbeat",
                                        daemon=True)
        self._thread.start()

    def _first(self) -> None:
        client = self.client()
        self._beat(client)
        retired = liveness.retire_others(client, self.instance)
        if retired:
            log.warning("earlier runs of this worker are gone: %s", ", ".join(retired))
            liveness.reap(self.app, client, timeout=self.timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.timeout / liveness.BEATS_PER_TIMEOUT):
            self._quietly("heartbeat", lambda: self._beat(self.client()))
            try:
                liveness.reap(self.app, self.client(), timeout=self.timeout)
            except (redis.RedisError, OSError, KombuOperationalError):
                pass  # the heartbeat above has said so; the next beat tries again
            except Exception:  # the thread's top level: a bug here must not stop heartbeats
                log.exception("settling the jobs of dead workers failed")

    def _beat(self, client: redis.Redis) -> None:
        """One heartbeat; the file only once Redis took it, so a fresh file means the same."""
        liveness.heartbeat(client, self.instance, timeout=self.timeout)
        try:
            probe.touch(self.beat_file)
        except OSError as exc:  # a full or read-only home: the probe will say so
            log.warning("the heartbeat file %s was not written: %s", self.beat_file, exc)

    def _shutdown(self, **_: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        def leave() -> None:
            self.beat_file.unlink(missing_ok=True)  # stopped: unhealthy at once
            liveness.forget_all(self.client(), self.instance)
            liveness.leave(self.client(), self.instance)
        self._quietly("leaving", leave)

    def _received(self, request: object = None, **_: object) -> None:
        task_id = getattr(request, "id", None)
        message = getattr(request, "message", None)
        if not task_id or message is None:
            return
        retries = (getattr(request, "request_dict", None) or {}).get("retries") or 0
        task = getattr(request, "task", None)
        requeue = bool(getattr(task, "acks_late", False)
                       and getattr(task, "reject_on_worker_lost", False))
        # A part of a job (a spread scan's read) is settled when its job is asked about.
        root = getattr(request, "root_id", None)
        self._quietly("recording a job", lambda: liveness.record(
            self.client(), task_id, instance=self.instance, tag=str(message.delivery_tag),
            retries=int(retries), requeue=requeue,
            root=root if root and root != task_id else None))

    def _ran(self, task_id: str | None = None, task: object = None, **_: object) -> None:
        retries = getattr(getattr(task, "request", None), "retries", None) or 0
        if task_id:
            self._quietly("forgetting a job", lambda: liveness.forget(
                self.client(), task_id, instance=self.instance, retries=int(retries)))

    def _quietly(self, what: str, step) -> None:
        """A broker outage is logged once, not once a beat; the work goes on either way."""
        try:
            step()
        except (redis.RedisError, OSError, KombuOperationalError) as exc:
            if not self._failing:
                log.warning("%s failed: %s (the broker is unreachable?)", what, exc)
            self._failing = True
            return
        if self._failing:
            log.warning("%s works again", what)
        self._failing = False
