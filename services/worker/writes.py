"""A store's write queue: writes wait in a Redis list and whoever holds the store's lock applies
them all, in order, one at a time.

A pool process with a write to make offers it, then drains the list if the lock is free, else
returns at once: the holder applies it. So no pool process ever sits waiting for a store's lock
while files wait to be read, and a store still has exactly one writer at a time. Each write is
removed from the list only after it was applied, so a writer that dies leaves it at the head for
the next one (writes here are idempotent: applied twice, the second changes nothing).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import redis

from solograph_services.worker import locks

PENDING = "solograph:writes:"  # + store: the list of writes waiting for its writer
KEY_TTL_S = 24 * 3600


def offer(client: redis.Redis, store: str, write: dict) -> None:
    pipe = client.pipeline()
    pipe.rpush(PENDING + store, json.dumps(write))
    pipe.expire(PENDING + store, KEY_TTL_S)
    pipe.execute()


def drain(client: redis.Redis, store: str, apply: Callable[[dict], None], *, owner: str,
          wait: float | None = None) -> int:
    """Apply every waiting write if the store's lock is free (or once it is, with `wait`);
    returns how many this call applied (0 when another writer holds the lock).

    After letting go of the lock it looks once more: a write offered while it held the lock,
    by someone who then found the lock taken, is never left waiting."""
    applied = 0
    key = PENDING + store
    while True:
        try:
            with locks.hold(client, locks.store_lock(store), owner=owner, wait=wait):
                while (raw := client.lindex(key, 0)) is not None:
                    apply(json.loads(raw))
                    client.lpop(key)
                    applied += 1
        except locks.LockTimeout:
            return applied
        if not client.llen(key):
            return applied
