"""The detached embedder: one background process per store that embeds what waits for vectors
and leaves, started by a read when no broker is configured (as `git gc --auto` detaches).

    start(settings, "sessions")      # from a read: at most one per store, returns at once
    python -m solograph_services.common.embedder sessions --home ~/.solo [--kb-path ...]

The child runs in a session of its own (a closed terminal does not end it) with nothing open
of its parent's, at the lowest CPU priority the system has (nice 19 and, on Linux,
SCHED_IDLE: it runs only when nothing else wants the core), with the reading process's own
environment and rights, and the paths it was given. What it does is
`solograph.semantic.drain`: the store's lock, rounds of a few texts newest first, each saved
on its own, gone when nothing waits; SIGTERM or SIGINT ends it between rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from solograph.config import Settings

_children: list[subprocess.Popen] = []


def start(settings: Settings, store: str) -> bool:
    """Start `store`'s embedder unless one runs or just ended; whether one was started."""
    from solograph.semantic.drain import wanted

    _children[:] = [c for c in _children if c.poll() is None]  # a long-lived reader reaps
    if settings.embedder == "off" or not wanted(settings, store):
        return False
    argv = [sys.executable, "-m", "solograph_services.common.embedder", store,
            "--home", str(settings.home)]
    if settings.kb_path is not None:
        argv += ["--kb-path", str(settings.kb_path)]
    if settings.sources_root is not None:
        argv += ["--sources-root", str(settings.sources_root)]
    _children.append(subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True))
    return True


def _lowest_priority() -> None:
    os.nice(19)
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):  # not allowed here: nice 19 it is
            os.sched_setscheduler(0, idle, os.sched_param(0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="solograph-embedder",
                                     description="Embed what waits in one store, then exit.")
    parser.add_argument("store")
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--kb-path", type=Path)
    parser.add_argument("--sources-root", type=Path)
    args = parser.parse_args(argv)
    _lowest_priority()
    stopping: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    from solograph.semantic import available
    from solograph.semantic.drain import drain

    settings = Settings.from_env(lane_available=available).with_(
        home=args.home, kb_path=args.kb_path, sources_root=args.sources_root, semantic="on")
    drain(settings, args.store, stop=lambda: bool(stopping))
    return 0


if __name__ == "__main__":
    sys.exit(main())
