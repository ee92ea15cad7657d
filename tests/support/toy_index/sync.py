"""The toy notes folder into the index: each changed note re-read, gone ones dropped."""

from __future__ import annotations

import time

from solograph.config import Settings
from solograph.index import Handle, Synced
from solograph.store import connect_writer, transaction
from solograph.text.tokens import index_text
from tests.support.toy_index.store import db_path, notes_folder


def _sync(conn, settings: Settings, deadline: float | None = None) -> tuple[int, int]:
    folder = notes_folder(settings)
    disk = {p.name: p for p in folder.glob("*.txt")} if folder.is_dir() else {}
    stored = dict(conn.execute("SELECT name, mtime_ns FROM notes").fetchall())
    changed = [n for n, p in sorted(disk.items()) if stored.get(n) != p.stat().st_mtime_ns]
    read = 0
    with transaction(conn):
        for name in changed:
            if read and deadline is not None and time.monotonic() >= deadline:
                break
            text = disk[name].read_text(encoding="utf-8")
            conn.execute("DELETE FROM notes WHERE name = ?", (name,))
            conn.execute("INSERT INTO notes (name, text, words, mtime_ns) VALUES (?, ?, ?, ?)",
                         (name, text, index_text(text), disk[name].stat().st_mtime_ns))
            read += 1
        for name in set(stored) - set(disk):
            conn.execute("DELETE FROM notes WHERE name = ?", (name,))
        conn.execute("INSERT INTO notes_fts (notes_fts) VALUES ('rebuild')")
    return read, len(changed) - read


def sync_for_read(handle: Handle, deadline: float) -> Synced:
    _read, pending = _sync(handle.conn, handle.settings, deadline)
    return Synced(pending=pending)


def index_toy(settings: Settings) -> dict:
    conn = connect_writer(db_path(settings), "toy")
    try:
        read, _pending = _sync(conn, settings)
        total = conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0]
        return {"read": read, "notes": total, "summary": f"{total} notes, {read} read"}
    finally:
        conn.close()
