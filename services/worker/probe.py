"""The container health checks of the worker and of beat, which serve no HTTP:
`python -m solograph_services.worker.probe worker|beat` (exit 0 healthy, 1 not, with why).

- worker: a run of this host's worker node sent its heartbeat within SOLOGRAPH_WORKER_TIMEOUT_S
  (`common.liveness`), so its main process is alive, reaches Redis and is not stuck;
- beat: the beat lock is held by a beat of this host, so after a Redis restart it took the lock
  again, and a beat whose lock another took is unhealthy until it exits.

One Redis read each; redis-py and the light modules only (`celery inspect ping` would start
Celery, about 2 s of CPU, and broadcast to every worker on each probe).
"""

from __future__ import annotations

import socket
import sys

import redis

from solograph.config import Settings
from solograph_services.common import liveness
from solograph_services.worker import locks


def worker_node(hostname: str) -> str:
    """The node name the worker runs under (`app.NODE_NAME`, "solograph@%h", expanded)."""
    return f"solograph@{hostname}"


def check(which: str, client: redis.Redis, settings: Settings, hostname: str) -> str | None:
    """None when healthy, else what is wrong."""
    if which == "worker":
        node = worker_node(hostname)
        runs = [i for i in liveness.alive(client, timeout=settings.worker_timeout_s)
                if liveness.node_of(i) == node]
        return None if runs else (f"no heartbeat from {node} in the last "
                                  f"{settings.worker_timeout_s} s")
    if which == "beat":
        raw = client.get(locks.PREFIX + locks.BEAT_LOCK)
        holder = raw.decode() if isinstance(raw, bytes) else raw
        if holder is not None and holder.startswith(f"beat@{hostname}:"):
            return None
        return f"the beat lock is held by {holder.rsplit(':', 1)[0] if holder else 'nobody'}"
    return f"unknown probe {which!r}: worker or beat"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    settings = Settings.from_env()
    client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=3, socket_timeout=3)
    try:
        problem = check(args[0] if args else "", client, settings, socket.gethostname())
    except redis.RedisError as exc:
        problem = f"redis: {exc}"
    finally:
        client.close()
    print(problem or "ok")
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
