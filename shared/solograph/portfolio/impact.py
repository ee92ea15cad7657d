"""Per-word frequencies and impact lists of the definitions' full-text index.

FTS5's BM25 reads the whole doclist of every query word to count the definitions holding it
(the `n` of its idf), on every search: at 500,000 definitions `user` alone is 110,000 rows
read before one is scored. `symbol_df` keeps that count for each word held by FLOOR
definitions or more, and `symbol_top` each such word's TOP best definitions by its own BM25,
best first (its impact list): the candidates of a query whose every word is that common.
A word held by fewer definitions is counted by FTS5 when a query needs it, which costs what
it holds.

Both tables are derived state, refreshed in batches: a scan that changed definitions adds the
count to `impact_changes` in the store's meta, and once REFRESH_AFTER changes (or a hundredth
of the index) have gathered both are recomputed (about 5 s at 500,000 definitions, most of it
ranking the impact lists; the first scan of a new store does it once). Between refreshes a
common word's count may be off by those changes (at most a hundredth of the index, which
moves its idf by about as much), a definition added since is found through the bounded list
of the matches but not through an impact list, and a deleted one is dropped when the
candidates are read.
"""

from __future__ import annotations

import sqlite3

from solograph import fts5
from solograph.store import get_meta, set_meta
from solograph.text.tokens import fts_term

FLOOR = 1_000  # definitions holding a word before its count and impact list are kept
TOP = 400  # definitions in each word's impact list
# Definitions changed by scans before both tables are recomputed: this many, or a hundredth
# of the index when that is more (a refresh costs about 10 us a definition).
REFRESH_AFTER = 1_000
CHANGES = "impact_changes"  # the store's meta key: definitions changed since the refresh

_FILL_DF = f"""
INSERT INTO symbol_df (term, docs)
SELECT v.term, (SELECT count(*) FROM symbols_fts
                WHERE symbols_fts MATCH '"' || replace(v.term, '"', '""') || '"*')
FROM symbols_vocab v WHERE v.doc >= {FLOOR}
"""
_FILL_TOP = f"""
INSERT INTO symbol_top (term, n, id)
SELECT term, n, id FROM (
    SELECT d.term, f.rowid AS id,
           row_number() OVER (PARTITION BY d.term
                              ORDER BY bm25(symbols_fts, 1.0, 0.4), f.rowid) AS n
    FROM symbol_df d JOIN symbols_fts f
      ON f.symbols_fts MATCH '"' || replace(d.term, '"', '""') || '"*')
WHERE n <= {TOP}
"""


def refresh(conn: sqlite3.Connection) -> None:
    """Recompute both tables from the full-text index (inside the caller's transaction)."""
    conn.execute("DELETE FROM symbol_df")
    conn.execute("DELETE FROM symbol_top")
    conn.execute(_FILL_DF)
    conn.execute(_FILL_TOP)
    set_meta(conn, CHANGES, "0")


def note_changes(conn: sqlite3.Connection, *, changed: int) -> bool:
    """Count a scan's changed definitions; refresh once REFRESH_AFTER (or a hundredth of the
    index) have gathered (inside the caller's transaction). Whether it refreshed."""
    total = int(get_meta(conn, CHANGES) or 0) + changed
    if total >= max(REFRESH_AFTER, totals(conn)[0] // 100):
        refresh(conn)
        return True
    set_meta(conn, CHANGES, str(total))
    return False


def doc_freq(conn: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    """Definitions matching each term as a prefix: kept for the common words, counted by
    FTS5 for the others (a word missing from symbol_df holds fewer than FLOOR, or is a
    prefix that is no indexed word, like `sess`)."""
    marks = ",".join("?" * len(terms))
    known = dict(conn.execute(f"SELECT term, docs FROM symbol_df WHERE term IN ({marks})",
                              terms).fetchall())
    for term in terms:
        if term not in known:
            known[term] = conn.execute(
                "SELECT count(*) FROM symbols_fts WHERE symbols_fts MATCH ?",
                (fts_term(term),)).fetchone()[0]
    return known


def champions(conn: sqlite3.Connection, term: str) -> list[int]:
    """The word's impact list: its best definitions by its own BM25, best first ([] for a
    word that is not common)."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM symbol_top WHERE term = ? ORDER BY n", (term,))]


def totals(conn: sqlite3.Connection) -> tuple[int, float]:
    """(rows, average tokens per row) as FTS5's BM25 reads them: its averages record."""
    rows, tokens = fts5.averages(conn, "symbols_fts")
    return rows, (tokens / rows if rows else 0.0)
