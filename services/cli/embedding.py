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
