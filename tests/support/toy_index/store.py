"""The toy store: toy.db under SOLOGRAPH_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from solograph.config import Settings
from solograph.freshness import iso
from solograph.index import Handle
from solograph.store import connect_writer


def db_path(settings: Settings) -> Path:
    return settings.home / "toy.db"


def notes_folder(settings: Settings) -> Path:
    return settings.home / "toy-notes"


@contextmanager
def opened(settings: Settings) -> Iterator[Handle]:
    handle = Handle(connect_writer(db_path(settings), "toy"), settings)
    try:
        yield handle
    finally:
        handle.close()


def as_of(conn) -> str | None:
    return iso(conn.execute("SELECT MAX(mtime_ns) FROM notes").fetchone()[0])
