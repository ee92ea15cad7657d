"""Each word's document frequency, and each common word's best rows ("leaders"), kept as
pages change, so that a search for common words scores a bounded set of rows instead of
every row that holds them (kb/bounded.py).

For each search table (kb/bm25.py SPECS) `kb_words` holds how many rows hold each word; a
word in more than COMMON rows has a list in `leaders` of its KEPT rows of highest impact,
the row's share of its BM25 score before idf (`saturate`, summed over the table's weight
vectors), and a `floor`: no row off the list weighs more for the word. A row written later
joins the list when it weighs more than the floor; a deleted row leaves it; a list grown
past twice KEPT is cut back (its floor rising to the best row cut), one whose word fell
under COMMON / 2 is dropped. Impacts are taken with the table's average row length at the
time; the lists are a bound on what to score, the scores themselves are taken afresh.

A sync collects what it deletes and writes in a `Tally` and applies it once (`flush`), in the
same transaction.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from solograph.kb import bm25
from solograph.kb.bm25 import Spec

COMMON = 256  # rows: a word in more has a list of leaders
KEPT = 128  # rows a list keeps when made or cut back


class Tally:
    """The rows a sync deleted and wrote, per table, applied by `flush`."""

    def __init__(self) -> None:
        self.delta: dict[int, dict[str, int]] = {s.kind: {} for s in bm25.SPECS}
        self.added: dict[int, dict[int, tuple[str, ...]]] = {s.kind: {} for s in bm25.SPECS}
        self.dropped: dict[int, set[int]] = {s.kind: set() for s in bm25.SPECS}

    def drop(self, spec: Spec, row: int, columns: tuple[str, ...]) -> None:
        """A row about to be deleted, with the text of every column."""
        delta = self.delta[spec.kind]
        for word in _words(columns):
            delta[word] = delta.get(word, 0) - 1
        self.dropped[spec.kind].add(row)
        self.added[spec.kind].pop(row, None)

    def add(self, spec: Spec, row: int, columns: tuple[str, ...]) -> None:
        """A row written, with the text of every column."""
        delta = self.delta[spec.kind]
        for word in _words(columns):
            delta[word] = delta.get(word, 0) + 1
        self.added[spec.kind][row] = columns

    def drop_rows(self, conn: sqlite3.Connection, spec: Spec, rows: list[int]) -> None:
        """Rows about to be deleted, read from the table."""
        cols = ", ".join(spec.columns)
        for rid, *columns in conn.execute(
                f"SELECT rowid, {cols} FROM {spec.table} WHERE rowid IN "
                "(SELECT value FROM json_each(?))", (bm25._ids(rows),)):
            self.drop(spec, rid, tuple(columns))

    def flush(self, conn: sqlite3.Connection) -> None:
        # FTS5 writes its row count and token totals when the transaction commits or a
        # savepoint begins: one begun and released here brings them level with the rows.
        conn.execute("SAVEPOINT leaders")
        conn.execute("RELEASE leaders")
        for spec in bm25.SPECS:
            _apply(conn, spec, self.delta[spec.kind], self.added[spec.kind],
                   self.dropped[spec.kind], bm25.averages(conn, spec))
        self.__init__()  # type: ignore[misc]


def _length(columns: tuple[str, ...]) -> int:
    return sum(len(t.split()) for t in columns if t)


def _words(columns: tuple[str, ...]) -> set[str]:
    return {w for text in columns if text for w in bm25.fold(text.lower()).split()}


def _apply(conn: sqlite3.Connection, spec: Spec, delta: dict[str, int],
           added: dict[int, tuple[str, ...]], dropped: set[int],
           now: tuple[int, float]) -> None:
    kind = spec.kind
    changed = [(kind, w, d) for w, d in delta.items() if d]
    conn.executemany("INSERT INTO kb_words (kind, word, df) VALUES (?, ?, ?) ON CONFLICT "
                     "(kind, word) DO UPDATE SET df = df + excluded.df", changed)
    conn.executemany("DELETE FROM kb_words WHERE kind = ? AND word = ? AND df <= 0",
                     [(kind, w) for _, w, _ in changed])
    conn.executemany("DELETE FROM leaders WHERE kind = ? AND row = ?",
                     [(kind, r) for r in dropped])
    joined = _join(conn, spec, added, now[1]) if added else set()
    refresh(conn, spec, now, touched=set(delta) | joined)


def _join(conn: sqlite3.Connection, spec: Spec, added: dict[int, tuple[str, ...]],
          avgdl: float) -> set[str]:
    """Put each written row on the lists of its words where it weighs more than the floor;
    the words whose lists grew."""
    words = set().union(*(_words(c) for c in added.values()))
    floors = dict(conn.execute(
        "SELECT word, floor FROM kb_words WHERE kind = ? AND floor IS NOT NULL AND word IN "
        "(SELECT value FROM json_each(?))", (spec.kind, _json(words))))
    if not floors:
        return set()
    rows = []
    for rid, columns in added.items():
        held = _words(columns) & floors.keys()
        if not held:
            continue
        length = _length(columns)
        counted = [Counter(bm25.fold(columns[i]).split()) if columns[i] else Counter()
                   for i in spec.read]
        for word in held:
            impact = _impact(spec, [c[word] for c in counted], length, avgdl)
            if impact > floors[word]:
                rows.append((spec.kind, word, rid, impact))
    conn.executemany("INSERT OR REPLACE INTO leaders (kind, word, row, impact) "
                     "VALUES (?, ?, ?, ?)", rows)
    return {r[1] for r in rows}


def _impact(spec: Spec, held: list[int], length: int, avgdl: float) -> float:
    """The row's weight for a word it holds `held` times in each column read (the word
    exact, not as a prefix)."""
    total = 0.0
    for vector in spec.vectors:
        freq = sum(vector[c] * n for c, n in zip(spec.read, held, strict=True))
        if freq:
            total += bm25.saturate(freq, length, avgdl)
    return total


def refresh(conn: sqlite3.Connection, spec: Spec, now: tuple[int, float] | None = None, *,
            touched: set[str] | None = None) -> None:
    """Make the lists of words that became common, cut those grown too long, drop those of
    words no longer common: of the words `touched` by a sync (every word without it). `now`:
    the table's rows and tokens per row."""
    kind = spec.kind
    only = "" if touched is None else "AND word IN (SELECT value FROM json_each(?))"
    among = () if touched is None else (_json(touched),)
    for (word,) in conn.execute("SELECT word FROM kb_words WHERE kind = ? AND floor IS NULL "
                                f"AND df > ? {only}", (kind, COMMON, *among)).fetchall():
        build(conn, spec, word, now)
    for (word,) in conn.execute("SELECT word FROM kb_words WHERE kind = ? AND floor IS NOT "
                                f"NULL AND df <= ? {only}", (kind, COMMON // 2, *among)
                                ).fetchall():
        conn.execute("DELETE FROM leaders WHERE kind = ? AND word = ?", (kind, word))
        conn.execute("UPDATE kb_words SET floor = NULL WHERE kind = ? AND word = ?",
                     (kind, word))
    for (word,) in conn.execute("SELECT word FROM leaders WHERE kind = ? "
                                f"{only} GROUP BY word HAVING COUNT(*) > ?",
                                (kind, *among, 2 * KEPT)).fetchall():
        cut = conn.execute("SELECT row, impact FROM leaders WHERE kind = ? AND word = ? "
                           "ORDER BY impact DESC, row LIMIT -1 OFFSET ?",
                           (kind, word, KEPT)).fetchall()
        conn.execute("UPDATE kb_words SET floor = max(floor, ?) WHERE kind = ? AND word = ?",
                     (cut[0][1], kind, word))
        conn.executemany("DELETE FROM leaders WHERE kind = ? AND word = ? AND row = ?",
                         [(kind, word, r) for r, _ in cut])


def build(conn: sqlite3.Connection, spec: Spec, word: str,
          now: tuple[int, float] | None = None) -> None:
    """The word's list made anew from every row holding it: FTS5 ranks them by the word
    alone, and each score over the word's idf is the row's impact."""
    rows, _ = now or bm25.averages(conn, spec)
    df = conn.execute("SELECT df FROM kb_words WHERE kind = ? AND word = ?",
                      (spec.kind, word)).fetchone()
    weight = bm25.idf(rows, df[0] if df else 0) * spec.scale
    found = conn.execute(
        f"SELECT rowid, {spec.sql} AS r FROM {spec.table} WHERE {spec.table} MATCH ? "
        "ORDER BY r LIMIT ?", ('"' + word.replace('"', '""') + '"', KEPT + 1)).fetchall()
    impacts = [(rid, -r / weight) for rid, r in found if r < 0]
    conn.execute("DELETE FROM leaders WHERE kind = ? AND word = ?", (spec.kind, word))
    conn.executemany("INSERT INTO leaders (kind, word, row, impact) VALUES (?, ?, ?, ?)",
                     [(spec.kind, word, rid, i) for rid, i in impacts[:KEPT]])
    floor = impacts[KEPT][1] if len(impacts) > KEPT else 0.0
    conn.execute("UPDATE kb_words SET floor = ? WHERE kind = ? AND word = ?",
                 (floor, spec.kind, word))


def missing(conn: sqlite3.Connection) -> bool:
    """Whether a common word lacks its list (after the migration, which counts the words
    only)."""
    return any(conn.execute("SELECT 1 FROM kb_words WHERE kind = ? AND floor IS NULL AND "
                            "df > ? LIMIT 1", (spec.kind, COMMON)).fetchone()
               for spec in bm25.SPECS)


def refresh_all(conn: sqlite3.Connection) -> None:
    for spec in bm25.SPECS:
        refresh(conn, spec)


def _json(words: set[str]) -> str:
    import json

    return json.dumps(sorted(words), ensure_ascii=False)
