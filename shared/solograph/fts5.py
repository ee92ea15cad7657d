"""What FTS5 keeps about a full-text table that a ranking computed outside FTS5 reads: its
averages record (how many rows, how many tokens in all of them) and each row's sizes, written
as SQLite varints. The KB's and the symbols' bounded rankings score as FTS5's BM25 does from
these, so both read them here."""

from __future__ import annotations

import sqlite3


def varints(blob: bytes) -> list[int]:
    """SQLite's variable-length integers (big-endian 7-bit groups, a ninth byte of 8 bits)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def averages(conn: sqlite3.Connection, table: str) -> tuple[int, int]:
    """(rows, tokens in every column of every row) of the FTS5 table `table`; (0, 0) when it
    holds none."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return 0, 0
    values = varints(row[0])
    return values[0], sum(values[1:])
