"""Keeping secrets out of the portfolio store: what it holds of file contents (a package's
spec, a manifest's parse error, which quotes the line it could not read) is redacted when
written, and redacted again when the store predates the current rules."""

from __future__ import annotations

import sqlite3

from solograph.store import reclean
from solograph.text.secrets import RULES_VERSION, redact


def ensure_clean(conn: sqlite3.Connection) -> int:
    """Redact the stored manifest errors and package specs again when the store predates the
    current rules; returns how many rows changed (0 when it was already clean)."""
    return reclean(conn, _reredact, version=RULES_VERSION)


def _reredact(conn: sqlite3.Connection) -> int:
    changed = 0
    for table, column in (("manifests", "error"), ("packages", "spec")):
        rows = conn.execute(f"SELECT id, {column} FROM {table} WHERE {column} IS NOT NULL "
                            f"AND {column} != ''").fetchall()
        for key, value in rows:
            clean = redact(value)
            if clean != value:
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (clean, key))
                changed += 1
    return changed
