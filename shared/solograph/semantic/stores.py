"""The lane by store name, for the jobs that embed: the worker's `embed` task, the write
commands in embedded mode, the read path. Each store's lane is its index's `Index.lane`: this
module walks the index list and knows none of them.
"""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from solograph.config import Settings
    from solograph.semantic.embedder import Embedder
    from solograph.semantic.lane import StoreLane
    from solograph.semantic.work import Progress


def stores() -> tuple[str, ...]:
    """The stores with a meaning lane, in the index list's order."""
    from solograph.indexes import all_indexes

    return tuple(index.name for index in all_indexes() if index.lane)


def lane_of(store: str) -> StoreLane:
    """The lane of `store` (an index's name), as its description names it."""
    from solograph.index import resolve
    from solograph.indexes import all_indexes

    for index in all_indexes():
        if index.name == store and index.lane:
            return resolve(index.lane)
    raise BadQuery(f"no store {store!r} has a meaning lane",
                   hint=f"use one of: {', '.join(stores())}")


def writer(settings: Settings, store: str) -> AbstractContextManager[sqlite3.Connection]:
    """The store's writer, opened as its own jobs open it (migrated, re-redacted)."""
    return lane_of(store).writer(settings)


def embed_store(settings: Settings, store: str, *, embedder: Embedder | None = None,
                deadline: float | None = None, progress: Progress | None = None,
                stop: Callable[[], bool] | None = None) -> dict:
    """Embed what `store` lacks; the report says how many vectors were written and how many
    texts still wait (`pending`)."""
    from solograph.semantic.embedder import shared_embedder

    lane = lane_of(store)
    model = embedder or shared_embedder()
    with lane.writer(settings) as conn:
        report = lane.embed_pending(conn, model, deadline=deadline, progress=progress,
                                    stop=stop)
        if report.embedded:
            lane.keep_matrix(conn, model.model_id)
        return report.to_dict()


def embed_job(settings: Settings, store: str, *, progress: Progress | None = None) -> dict:
    """The write job `embed_<store>` run in-process: everything pending embedded, with a
    summary; with the lane off, a report that says so (nothing is loaded)."""
    from solograph.semantic import enabled

    if not enabled(settings):
        return {"store": store, "embedded": 0, "pending": 0, "skipped": "the meaning lane is off",
                "summary": f"{store}: the meaning lane is off (SOLOGRAPH_SEMANTIC)"}
    report = embed_store(settings, store, progress=progress)
    report["summary"] = (f"{store}: {report['embedded']} vector(s) written, "
                         f"{report['pending']} row(s) pending, in {report['seconds']:.1f} s")
    return report
