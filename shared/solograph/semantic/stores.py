"""The lane by store name, for the jobs that embed: the worker's `embed` task, `sync-sessions`
and `index-kb` in embedded mode. Each opens the store's writer, embeds what waits (under an
optional deadline) and reports what it did and what is left.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

from solograph.errors import BadQuery

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterator

    from solograph.config import Settings
    from solograph.semantic.embedder import Embedder
    from solograph.semantic.work import Progress

STORES = ("sessions", "kb", "sources")


def lane_of(store: str):
    """The lane module of `store` (sessions, kb, sources)."""
    if store == "sessions":
        from solograph.semantic import sessions as lane
    elif store == "kb":
        from solograph.semantic import kb as lane
    elif store == "sources":
        from solograph.semantic import sources as lane
    else:
        raise BadQuery(f"no store {store!r} has a meaning lane",
                       hint=f"use one of: {', '.join(STORES)}")
    return lane


@contextmanager
def writer(settings: Settings, store: str) -> Iterator[sqlite3.Connection]:
    """The store's writer, opened as its own jobs open it (migrated, re-redacted)."""
    if store == "sessions":
        from solograph.sessions.store import open_index

        conn = open_index(settings.sessions_db)
    elif store == "kb":
        from solograph.kb.store import configured, open_kb

        conn = open_kb(settings.home, configured(settings)).conn
    elif store == "sources":
        from solograph.sources.store import open_store

        conn = open_store(settings.sources_db)
    else:
        lane_of(store)
        raise AssertionError(store)
    try:
        yield conn
    finally:
        conn.close()


def embed_store(settings: Settings, store: str, *, embedder: Embedder | None = None,
                deadline: float | None = None, progress: Progress | None = None) -> dict:
    """Embed what `store` lacks; the report says how many vectors were written and how many
    rows still wait (`pending`)."""
    from solograph.semantic.embedder import shared_embedder

    lane = lane_of(store)
    model = embedder or shared_embedder()
    with writer(settings, store) as conn:
        return lane.embed_pending(conn, model, deadline=deadline, progress=progress).to_dict()


def embedding_pending(conn: sqlite3.Connection, store: str, model_id: str) -> int:
    """Rows of `store` waiting for vectors of `model_id`: freshness's `embedding_pending`.
    A store opened before its vector tables existed (a reader of an old file) counts none."""
    try:
        return lane_of(store).pending_count(conn, model_id)
    except sqlite3.OperationalError:
        return 0


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


def embed_sessions(settings: Settings) -> dict:
    return embed_job(settings, "sessions")


def embed_kb(settings: Settings) -> dict:
    return embed_job(settings, "kb")


def embed_sources(settings: Settings) -> dict:
    return embed_job(settings, "sources")
