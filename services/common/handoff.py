"""Handing what a search could not sync to the worker.

A read whose answer says `freshness.pending > 0` left changed files unread (its sync budget ran
out). When a broker is configured the adapter queues the matching job (`sync_sessions`,
`index_kb`) so the worker reads them, at most once a minute per job per process. Likewise a
read with the meaning lane on whose `freshness.embedding_pending > 0` queues the index's embed
job (`embed_sessions`, `embed_kb`, `embed_sources`); without a broker (the MCP server and the
page of one person's machine) it starts the store's detached embedder instead
(`common/embedder.py`). The answer is never changed or failed by this: the submission runs off
the request path and a broker that is down is only logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from solograph.config import Settings
from solograph.indexes import all_answers

if TYPE_CHECKING:  # Celery loads only when a job is handed over: the MCP server starts sooner
    from celery import Celery

log = logging.getLogger("solograph.handoff")

INTERVAL_S = 60.0



def sync_jobs() -> dict[str, str]:
    """Each read of an index that syncs before reading -> the job that finishes its sync."""
    return {answer.name: index.sync_job for index, answer in all_answers()
            if index.sync_job and answer.sync}


def embed_jobs() -> dict[str, str]:
    """Each read with a meaning side -> the job that embeds what its index lacks."""
    return {answer.name: index.embed_job for index, answer in all_answers()
            if index.embed_job and answer.meaning}


def lane_stores() -> dict[str, str]:
    """Each read with a meaning side -> the store its lane embeds."""
    return {answer.name: index.name for index, answer in all_answers()
            if index.lane and answer.meaning}


class Handoff:
    """Queues the job for a read whose answer was not complete. `celery`: how to get the
    client (the API passes its lifespan's); by default one is created on first use."""

    def __init__(self, settings: Settings, celery: Callable[[], Celery | None] | None = None,
                 *, interval: float = INTERVAL_S, background: bool = True) -> None:
        self.settings = settings
        self._get = celery
        self._own: Celery | None = None
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self.interval = interval
        self.background = background
        self.jobs = sync_jobs()
        self.embeds = embed_jobs()
        self.stores = lane_stores()

    def after(self, read: str, answer: object) -> str | None:
        """Call with each answer; returns the job handed over (None when nothing was; the
        sync job when both it and the embed job were)."""
        if not isinstance(answer, dict):
            return None
        fresh = answer.get("freshness")
        if not isinstance(fresh, dict):
            return None
        if not self.settings.redis_url:
            store = self.stores.get(read)
            if store and fresh.get("embedding_pending"):
                from solograph_services.common.embedder import start

                start(self.settings, store)
            return None
        wanted = [job for job, count in ((self.jobs.get(read), fresh.get("pending")),
                                         (self.embeds.get(read), fresh.get("embedding_pending")))
                  if job and count]
        handed = [job for job in wanted if self._hand(job)]
        return handed[0] if handed else None

    def _hand(self, job: str) -> bool:
        now = time.monotonic()
        with self._lock:
            last = self._last.get(job)
            if last is not None and now - last < self.interval:
                return False
            self._last[job] = now
        if self.background:
            threading.Thread(target=self._submit, args=(job,), daemon=True,
                             name=f"handoff-{job}").start()
        else:
            self._submit(job)
        return True

    def _client(self) -> Celery | None:
        if self._get is not None:
            found = self._get()
            if found is not None:
                return found
        from solograph_services.common import jobs

        with self._lock:
            if self._own is None:
                self._own = jobs.create_celery(self.settings)
            return self._own

    def _submit(self, job: str) -> None:
        from solograph_services.common import jobs

        try:
            client = self._client()
            job_id = jobs.submit(client, job)
            log.info("handed %s to the worker (job %s): a search left work undone", job, job_id)
        except Exception as exc:  # never the answer's problem
            log.warning("could not hand %s to the worker: %s", job, exc)

    def close(self) -> None:
        with self._lock:
            if self._own is not None:
                self._own.close()
                self._own = None
