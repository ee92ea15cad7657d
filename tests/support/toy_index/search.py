"""Ranking the toy notes: BM25 over their stems, every word as a prefix."""

from __future__ import annotations

from solograph.text.tokens import match_all, query_terms


def rank(conn, query: str, limit: int) -> list[tuple[str, float]]:
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT n.name, bm25(notes_fts) FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
        "WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts), n.name LIMIT ?",
        (match_all(query_terms(query)), limit))]
