"""The portfolio store: `portfolio.db` under SOLOGRAPH_HOME (registry, files, definitions,
packages). Readers open it read-only; the registry and the scan write through `open_writer`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from solograph.freshness import iso
from solograph.index import Handle
from solograph.portfolio import LAST_SCAN, STORE
from solograph.readers import read_only
from solograph.store import connect_writer, get_meta

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path

    from solograph.config import Settings


def open_writer(settings: Settings) -> sqlite3.Connection:
    return connect_writer(settings.portfolio_db, STORE)


@contextmanager
def opened(settings: Settings) -> Iterator[Handle]:
    """A read-only handle for one read (the thread's kept connection in a long-lived
    process: solograph.readers)."""
    with read_only(settings.portfolio_db, STORE) as conn:
        yield Handle(conn, settings)


def as_of(conn: sqlite3.Connection) -> str | None:
    """The last scan."""
    return iso(get_meta(conn, LAST_SCAN))


def db_path(settings: Settings) -> Path:
    return settings.portfolio_db


def rebuild(settings: Settings) -> dict:
    """The definitions' full-text table made again from the definitions, then optimised,
    with the word counts and impact lists that derive from it."""
    from solograph.portfolio import impact
    from solograph.store import transaction

    conn = open_writer(settings)
    try:
        with transaction(conn):
            conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('rebuild')")
            conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('optimize')")
            impact.refresh(conn)
        rows = conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
        return {"index": STORE, "rows": rows, "summary": f"portfolio: {rows} definitions"}
    finally:
        conn.close()
