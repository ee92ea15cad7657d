"""Embedding after a write command, in-process (the meaning lane, embedded mode).

`sync-sessions`, `index-kb` and the sources' index commands embed what their store lacks once
they have synced it, with a progress bar on a terminal; the report gains `embedding` (what was
written, what still waits). With the lane off nothing happens and nothing is loaded.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from solograph.config import Settings
from solograph_services.cli.output import clear_progress, progress


def embed_after(settings: Settings, args: argparse.Namespace, report: dict,
                store: str) -> dict:
    """`report` with the store's embedding done (a new dict), or `report` as it is."""
    from solograph.semantic import enabled

    if not enabled(settings):
        return report
    from solograph.semantic.stores import embed_store

    bar = _bar(store) if sys.stderr.isatty() and not getattr(args, "json", False) else None
    done = embed_store(settings, store, progress=bar)
    if bar is not None:
        clear_progress()
    out = {**report, "embedding": done}
    if "summary" in out:
        out["summary"] = (f"{out['summary']}; embedded {done['embedded']} "
                          f"({done['pending']} pending)")
    return out


def _bar(store: str) -> Callable[[int, int], None]:
    def show(done: int, pending: int) -> None:
        progress(f"embedding {store:<10}", done, done + pending)
    return show


def after_read(settings: Settings, args: argparse.Namespace, answer: dict, store: str) -> None:
    """After a read with the lane on: when texts wait for vectors, start the store's detached
    embedder (no broker here), and tell a person once, under the results, how much of the
    store is embedded and that the rest is on its way (with a broker, the worker's)."""
    fresh = answer.get("freshness")
    if not isinstance(fresh, dict) or not fresh.get("embedding_pending"):
        return
    started = False
    if not settings.redis_url:  # with a broker the worker embeds after each sync
        from solograph_services.common.embedder import start

        started = start(settings, store)
    if getattr(args, "json", False):
        return
    running = started or bool(settings.redis_url) or settings.embedder != "off"
    print(meaning_note(fresh, store, running=running), file=sys.stderr)


def meaning_note(fresh: dict, store: str, *, running: bool) -> str:
    from solograph.semantic.stores import lane_of

    noun = lane_of(store).noun
    done, waiting = int(fresh.get("embedded", 0)), int(fresh["embedding_pending"])
    share = 100 * done // max(1, done + waiting)
    rest = ("the rest is being embedded in the background" if running else
            f"the rest waits: `solograph {REFILL.get(store, 'refresh')}` embeds it")
    late = "; this answer is by words alone (the query's vector came late)" \
        if fresh.get("meaning") == "late" else ""
    return (f"meaning: {done:,} of {done + waiting:,} {noun} embedded ({share}%); "
            f"{rest}{late}")


REFILL = {"sessions": "sync-sessions", "kb": "index-kb"}
