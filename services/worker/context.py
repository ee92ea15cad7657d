"""What every task body of one worker shares: the settings its entry point built, one broker
client per process, the name a task holds its locks under, and retries for transient faults
only. `tasks`, `fanout` and `embedding` bind their tasks over one of these."""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Callable

import redis
from celery import Celery, Task

from solograph.config import Settings
from solograph.errors import SolographError

MAX_RETRIES = 5
TRANSIENT_REDIS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
# Domain errors are the user's to fix: logged as one line, without a traceback.
EXPECTED: tuple[type[Exception], ...] = (SolographError,)


def transient(exc: BaseException) -> bool:
    """A fault that passes by itself: a broker outage, a store that stayed locked."""
    if isinstance(exc, TRANSIENT_REDIS):
        return True
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class WorkerContext:
    def __init__(self, app: Celery, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self._clients: dict[int, redis.Redis] = {}

    def client(self) -> redis.Redis:
        # One client per process: prefork children must not share their parent's sockets.
        pid = os.getpid()
        if pid not in self._clients:
            self._clients[pid] = redis.Redis.from_url(
                self.settings.redis_url, socket_connect_timeout=5, socket_timeout=30)
        return self._clients[pid]

    @staticmethod
    def owner(task: Task) -> str:
        """Who holds a lock taken by `task`: its worker's node name."""
        return task.request.hostname or f"{socket.gethostname()}:{os.getpid()}"

    @staticmethod
    def retrying(task: Task, work: Callable[[], dict]) -> dict:
        """Run `work`; retry later on a redis outage or a store that stayed locked, else
        fail."""
        try:
            return work()
        except (*TRANSIENT_REDIS, sqlite3.OperationalError) as exc:
            if not transient(exc):
                raise
            raise task.retry(exc=exc, countdown=min(300, 10 * 2 ** task.request.retries)) \
                from None
