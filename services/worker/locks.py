"""Redis locks: one per project and per store, so two writers of one thing never interleave.

A lock lives `ttl` seconds and a heartbeat thread renews it while its holder works, so a scan
may take hours yet a worker that dies (SIGKILL, OOM, a lost host) frees its locks within `ttl`.
Each token starts with its owner's name: a worker that restarts under the same node name drops
the locks its dead predecessor held at once instead of waiting out the TTL.

A Redis restart loses every key (the stack keeps nothing on disk for it), so a renewal that
finds its lock gone takes it again with the same token; one that finds it held by someone else
has lost it, and its holder is told (`on_lost`: beat stops, so exactly one runs).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import redis
from redis.exceptions import LockError, LockNotOwnedError
from redis.lock import Lock

from solograph.errors import ConfigError, SolographError

PREFIX = "solograph:lock:"
TTL_S = 30.0
# A scan waiting its turn must still finish inside the task time limit (5.5 h).
WAIT_S = 4 * 3600.0
BEAT_LOCK = "beat"

log = logging.getLogger(__name__)

# Deletes the key only if its value still starts with the owner's prefix (atomically).
_DROP_OWNED = """
local value = redis.call('get', KEYS[1])
if value and string.sub(value, 1, string.len(ARGV[1])) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class LockTimeout(SolographError):
    code = "lock_timeout"


def project_lock(name: str) -> str:
    return f"scan:{name}"


def store_lock(store: str) -> str:
    return f"store:{store}"


@contextmanager
def hold(client: redis.Redis, name: str, *, owner: str, wait: float | None = WAIT_S,
         ttl: float = TTL_S, on_lost: Callable[[], None] | None = None) -> Iterator[float]:
    """Hold lock `name` for the block; yields the seconds spent waiting for it.

    `wait=None` tries once and raises LockTimeout at once when someone else holds it.
    `on_lost` is called (from the renewing thread) when another owner took the lock."""
    lock = client.lock(PREFIX + name, timeout=ttl, sleep=0.25, thread_local=False)
    asked = time.monotonic()
    token = f"{owner}:{uuid.uuid4().hex}"
    got = lock.acquire(blocking=wait is not None, blocking_timeout=wait, token=token)
    if not got:
        raise LockTimeout(f"lock {name!r} is held by another worker",
                          hint=f"it is released when that work ends, or {ttl:.0f} s after "
                               "its holder dies")
    waited = time.monotonic() - asked
    stop = threading.Event()
    renewer = threading.Thread(target=_renew, args=(lock, token, stop, ttl / 3, on_lost),
                               name=f"lock-{name}", daemon=True)
    renewer.start()
    try:
        yield waited
    finally:
        stop.set()
        renewer.join()
        try:
            lock.release()
        except LockNotOwnedError:
            log.warning("lock %s expired while held (its renewals failed)", name)


def _renew(lock: Lock, token: str, stop: threading.Event, every: float,
           on_lost: Callable[[], None] | None) -> None:
    while not stop.wait(every):
        try:
            lock.reacquire()
            continue
        except LockNotOwnedError:
            pass  # gone, or someone else's now: below
        except (LockError, redis.RedisError) as exc:
            # The work itself is transactional; losing the lock only risks a duplicate scan.
            log.warning("could not renew lock %s: %s", lock.name, exc)
            continue
        try:
            if lock.do_acquire(token):
                log.warning("lock %s was gone (redis restarted?): taken again", lock.name)
                continue
        except redis.RedisError as exc:
            log.warning("could not take lock %s again: %s", lock.name, exc)
            continue
        log.error("lock %s is held by another owner now", lock.name)
        if on_lost is not None:
            on_lost()
            return


def drop_owned(client: redis.Redis, owner: str) -> list[str]:
    """Delete every lock whose token names `owner`; returns the lock names dropped.

    Only for a worker starting up: a lock with its name was left by a predecessor that died."""
    dropped = []
    script = client.register_script(_DROP_OWNED)
    for key in client.scan_iter(match=PREFIX + "*", count=200):
        if script(keys=[key], args=[f"{owner}:"]):
            name = key.decode() if isinstance(key, bytes) else key
            dropped.append(name.removeprefix(PREFIX))
    return dropped


@contextmanager
def single_beat(client: redis.Redis, *, owner: str, ttl: float = TTL_S,
                on_lost: Callable[[], None] | None = None) -> Iterator[None]:
    """Held for as long as beat runs: a second beat refuses to start (one nightly run, not two).
    After a Redis restart the lock is taken again; `on_lost` runs if another beat got it first."""
    with ExitStack() as stack:
        try:
            stack.enter_context(hold(client, BEAT_LOCK, owner=owner, wait=None, ttl=ttl,
                                     on_lost=on_lost))
        except LockTimeout:
            raise ConfigError("another beat is already running on this broker",
                              hint="run exactly one `solograph beat`; a beat that died frees "
                                   f"its lock within {ttl:.0f} s") from None
        yield
