"""Draining one store's waiting texts in the background: the detached embedder's work.

Without a broker nobody else embeds what a sync wrote but the write commands, so a read that
finds texts waiting starts one detached process per store (`solograph_services.common.
embedder`, as `git gc --auto` detaches). This module is what that process does, and what the
read asks first:

- one embedder per store, by an exclusive lock on a file beside the store (`<store>.embedder`):
  a second finds it held and leaves at once; the lock goes with its process, however it ends;
- rounds of a few texts, newest first, each saved in its own short transaction, so a read or a
  sync never waits for more than one round's save, and a killed embedder resumes where it was
  (what it saved stays saved; the queue holds the rest);
- gone when nothing waits, when `stop` says so (a signal, between rounds), or when rounds stop
  making progress.

`wanted` is the read's side: whether starting one is worth it (texts wait, none holds the
lock, and none ended in the last RESTART_S seconds: a store whose texts cannot be embedded
must not start a process per read).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from solograph.config import Settings

RESTART_S = 10.0


def lock_path(settings: Settings, store: str) -> Path:
    from solograph.indexes import get

    db = get(store).path(settings)
    return db.with_name(db.name + ".embedder")


def _try_lock(path: Path) -> int | None:
    """The lock file's descriptor, locked; None when another process holds it."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def wanted(settings: Settings, store: str, *, now: float | None = None) -> bool:
    """Whether a read should start the store's embedder: none runs, none just ended."""
    path = lock_path(settings, store)
    try:
        if (now or time.time()) - path.stat().st_mtime < RESTART_S:
            return False
    except FileNotFoundError:
        pass
    fd = _try_lock(path)
    if fd is None:
        return False
    os.close(fd)  # released: the embedder takes it
    return True


def drain(settings: Settings, store: str, *, stop: Callable[[], bool] | None = None) -> dict:
    """Embed what waits in `store` until nothing does; {"skipped": ...} when another process
    holds the store's embedder lock."""
    from solograph.semantic.stores import embed_store

    path = lock_path(settings, store)
    fd = _try_lock(path)
    if fd is None:
        return {"store": store, "skipped": "another embedder holds the store"}
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return embed_store(settings, store, stop=stop)
    finally:
        os.utime(path)  # when it ended: `wanted` waits RESTART_S before another
        os.close(fd)
