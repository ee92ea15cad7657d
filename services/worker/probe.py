"""The container health checks of the worker and of beat, which serve no HTTP:
`python -m solograph_services.worker.probe worker|embedder|beat` (exit 0 healthy, 1 not, with
why).

- worker: this host's worker node wrote its heartbeat file within SOLOGRAPH_WORKER_TIMEOUT_S.
  The worker's heartbeat thread writes it right after each heartbeat Redis took
  (`common.liveness`), so a fresh file says what the Redis read said (its main process is
  alive, reaches Redis and is not stuck), with one `stat` and no broker round trip: on a busy
  machine the probe's own imports and a slow Redis made the first probes time out and a
  healthy worker took 80 s to count as healthy;
- beat: the beat lock is held by a beat of this host, so after a Redis restart it took the lock
  again, and a beat whose lock another took is unhealthy until it exits.

The worker probe imports the standard library and the settings only; beat's one Redis read
imports redis-py (`celery inspect ping` would start Celery, about 2 s of CPU, and broadcast to
every worker on each probe).
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

from solograph.config import Settings

PREFIXES = {"worker": "solograph", "embedder": "solograph-embed"}


def worker_node(hostname: str, kind: str = "worker") -> str:
    """The node name the worker runs under (`app.NODE_NAME`, "solograph@%h", expanded; an
    `embed`-only worker's is `app.EMBED_NODE_NAME`)."""
    return f"{PREFIXES[kind]}@{hostname}"


def heartbeat_file(settings: Settings, node: str) -> Path:
    """Where a worker node writes its heartbeat: in the home, one file per node, so workers
    sharing the data volume never read each other's."""
    return settings.portfolio_db.parent / "run" / f"{node}.heartbeat"


def touch(path: Path) -> None:
    """Mark `path` fresh (the heartbeat thread calls it after each heartbeat Redis took)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()  # an existing file: its times set to now


def check_worker(settings: Settings, hostname: str, *, now: float | None = None,
                 kind: str = "worker") -> str | None:
    node = worker_node(hostname, kind)
    try:
        age = (time.time() if now is None else now) - heartbeat_file(settings, node).stat().st_mtime
    except OSError:
        age = None
    if age is not None and age <= settings.worker_timeout_s:
        return None
    return f"no heartbeat from {node} in the last {settings.worker_timeout_s} s"


def check(which: str, client, settings: Settings, hostname: str) -> str | None:
    """None when healthy, else what is wrong; `client` (redis) is only read for beat."""
    if which in PREFIXES:
        return check_worker(settings, hostname, kind=which)
    if which == "beat":
        from solograph_services.worker import locks

        raw = client.get(locks.PREFIX + locks.BEAT_LOCK)
        holder = raw.decode() if isinstance(raw, bytes) else raw
        if holder is not None and holder.startswith(f"beat@{hostname}:"):
            return None
        return f"the beat lock is held by {holder.rsplit(':', 1)[0] if holder else 'nobody'}"
    return f"unknown probe {which!r}: worker, embedder or beat"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    which = args[0] if args else ""
    settings = Settings.from_env()
    if which != "beat":
        problem = check(which, None, settings, socket.gethostname())
    else:
        import redis

        client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=3,
                                      socket_timeout=3)
        try:
            problem = check(which, client, settings, socket.gethostname())
        except redis.RedisError as exc:
            problem = f"redis: {exc}"
        finally:
            client.close()
    print(problem or "ok")
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
