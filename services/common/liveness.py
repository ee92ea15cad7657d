"""Which workers are alive, which jobs each holds, and what becomes of a dead worker's jobs.

Celery keeps neither: a worker killed outright (SIGKILL, the OOM killer, `docker kill`) leaves
a started job in STARTED or PROGRESS, and its unacknowledged message in Redis until the
visibility timeout (6 h) hands it out again. So each worker process refreshes a heartbeat (its
score in one sorted set) every `timeout / 6` seconds and records each job it receives (one hash
field: job id -> its instance and delivery tag). Once a worker has been silent for `timeout`:

- a job it had started fails with `worker_lost` and its message is dropped, so it never runs
  again by surprise hours later (as when a pool child dies: Celery fails that job, it does not
  requeue it, so a job that kills its worker cannot do it forever); except a job that is safe
  to run again and asks to be requeued when its worker is lost (a scan's reads and writes,
  which count their own deliveries): it goes back to its queue;
- a job it held but had not started goes back to its queue at once (it never ran);
- a finished one is forgotten.

Live workers reap on every heartbeat; the API reaps the one job it is asked about, so a lone
worker's death is reported with no other worker alive.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from types import SimpleNamespace

import redis
from celery import Celery, states
from kombu.transport.redis import Channel

from solograph.errors import SolographError

WORKERS = "solograph:workers"  # sorted set: instance -> unix time of its last heartbeat
JOBS = "solograph:jobs"  # hash: job id -> {"worker": instance, "tag": delivery tag, "retries"}
BEATS_PER_TIMEOUT = 6
WAITING = frozenset({states.PENDING, states.RECEIVED, states.RETRY})  # not running anywhere

log = logging.getLogger("solograph.liveness")

class WorkerLost(SolographError):
    """The worker running a job stopped without finishing it."""

    code = "worker_lost"


# Deletes the job's record only while it is that run's: a retry of the job is a new message
# under the same id (one more retry), recorded by whichever worker received it.
_FORGET = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local entry = cjson.decode(raw)
if entry['worker'] == ARGV[2] and tostring(entry['retries']) == ARGV[3] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""


# Deletes the record only if it is still exactly the one read (returns 1 when it did).
_CLAIM = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""


def instance_name(nodename: str) -> str:
    """One run of one worker: its node name (a restarted worker keeps it) and what is new."""
    return f"{nodename}#{os.getpid()}-{uuid.uuid4().hex[:8]}"


def node_of(instance: str) -> str:
    return instance.split("#", 1)[0]


def heartbeat(client: redis.Redis, instance: str, *, timeout: float) -> None:
    now = time.time()
    pipe = client.pipeline(transaction=False)
    pipe.zadd(WORKERS, {instance: now})
    # Long gone: an instance missing from the set is as dead as a silent one.
    pipe.zremrangebyscore(WORKERS, "-inf", now - 10 * timeout)
    pipe.execute()


def leave(client: redis.Redis, instance: str) -> None:
    client.zrem(WORKERS, instance)


def retire_others(client: redis.Redis, instance: str) -> list[str]:
    """A worker starting under its node name: earlier runs under that name are dead now."""
    node = node_of(instance)
    others = [m for m in _names(client.zrange(WORKERS, 0, -1))
              if node_of(m) == node and m != instance]
    if others:
        client.zrem(WORKERS, *others)
    return others


def alive(client: redis.Redis, *, timeout: float) -> list[str]:
    """The instances heard from within `timeout` seconds (one command, O(log n))."""
    return _names(client.zrangebyscore(WORKERS, time.time() - timeout, "+inf"))


def workers(client: redis.Redis, *, timeout: float) -> dict:
    """For /health: the worker nodes heard from within `timeout` (one sorted-set range read)."""
    names = sorted({node_of(i) for i in alive(client, timeout=timeout)})
    return {"alive": len(names), "names": names}


def record(client: redis.Redis, job_id: str, *, instance: str, tag: str, retries: int,
           requeue: bool = False, root: str | None = None) -> None:
    """`requeue`: the job is safe to run again (it asks to be requeued when its worker is lost),
    so a started one goes back to its queue instead of failing. `root`: the job it is a part
    of, settled with it when that job is asked about."""
    entry = {"worker": instance, "tag": tag, "retries": retries, "requeue": requeue}
    if root:
        entry["root"] = root
    client.hset(JOBS, job_id, json.dumps(entry))


def forget(client: redis.Redis, job_id: str, *, instance: str, retries: int) -> None:
    client.eval(_FORGET, 1, JOBS, job_id, instance, str(retries))


def reap(celery: Celery, client: redis.Redis, *, timeout: float,
         job_ids: list[str] | None = None) -> dict[str, str]:
    """Settle the jobs (all, or those named and their parts) whose worker is not alive; returns
    what became of each: "failed", "requeued" or "finished"."""
    raw = client.hgetall(JOBS)
    entries = {_text(k): (v, json.loads(v)) for k, v in raw.items() if v is not None}
    if job_ids is not None:  # those jobs and their parts
        wanted = set(job_ids)
        entries = {k: e for k, e in entries.items() if k in wanted or e[1].get("root") in wanted}
    if not entries:
        return {}
    live = set(alive(client, timeout=timeout))
    out = {}
    for job_id, (value, entry) in entries.items():
        # Claimed first, so of several reapers (every worker, the API) exactly one settles it,
        # and a record rewritten since it was read (another worker received the job) stays.
        if entry.get("worker") not in live and client.eval(_CLAIM, 1, JOBS, job_id, value):
            out[job_id] = _settle(celery, client, job_id, entry)
    return out


def forget_all(client: redis.Redis, instance: str) -> None:
    """A worker stopping cleanly: what it had started has finished, and kombu has put back
    what it held unstarted, so none of its records is needed."""
    mine = [k for k, v in client.hgetall(JOBS).items() if json.loads(v).get("worker") == instance]
    if mine:
        client.hdel(JOBS, *mine)


def _settle(celery: Celery, client: redis.Redis, job_id: str, entry: dict) -> str:
    meta = celery.backend.get_task_meta(job_id)
    state, tag = meta.get("status", states.PENDING), str(entry.get("tag", ""))
    if state in WAITING or (entry.get("requeue") and state not in states.READY_STATES):
        with celery.connection_for_write() as conn:
            conn.default_channel.qos.restore_by_tag(tag)
        outcome = "requeued"
    elif state in states.READY_STATES:
        _drop_message(client, tag)
        outcome = "finished"
    else:
        worker = node_of(str(entry.get("worker", "")))
        error = WorkerLost(f"the worker running this job ({worker}) stopped before it finished "
                           "(killed, or out of memory); submit the job again")
        request = SimpleNamespace(task=meta.get("name"), args=meta.get("args"),
                                  kwargs=meta.get("kwargs"), hostname=meta.get("worker"),
                                  retries=meta.get("retries"),
                                  delivery_info={"routing_key": meta.get("queue")})
        celery.backend.store_result(job_id, error, states.FAILURE, request=request)
        _drop_message(client, tag)
        outcome = "failed"
    log.warning("job %s of the lost worker %s: %s (it was %s)", job_id,
                entry.get("worker"), outcome, state)
    return outcome


def _drop_message(client: redis.Redis, tag: str) -> None:
    """The message leaves kombu's unacknowledged set without going back to a queue."""
    pipe = client.pipeline()
    pipe.zrem(Channel.unacked_index_key, tag)
    pipe.hdel(Channel.unacked_key, tag)
    pipe.execute()


def _names(values: list) -> list[str]:
    return [_text(v) for v in values]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
