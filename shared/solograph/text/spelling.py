"""Typo respelling from an index's own vocabulary, through fts5vocab.

A query stem found in fewer than RARE documents may be a typo. Its neighbour, a stem of the
index one edit away (two from LONG letters on; a swap of two letters is one edit), that is in
at least RATIO times as many documents is searched too. The query keeps its own spelling as
well: a wrong respelling adds a term but removes none, so it costs places lower in the list,
never the session that holds the typo verbatim.

Not caught, on purpose: stems under MIN_LEN letters (too many neighbours), a typo in the first
letter (the vocabulary is read by first letter), transliteration.

Any FTS5 index can use it: `respell(conn, "docs_fts", "docs_vocab", stem)` where docs_vocab is
`fts5vocab(docs_fts, 'row')`. Table names are the caller's constants, never user input.
"""

from __future__ import annotations

import sqlite3

from solograph.text.tokens import fts_term

RARE = 3
RATIO = 3
MIN_LEN = 5
LONG = 8
_SCAN_LIMIT = 50_000  # vocabulary rows read for one word, at most


def max_edits(term: str) -> int:
    return 2 if len(term) >= LONG else 1


def doc_count(conn: sqlite3.Connection, fts: str, term: str, *, cap: int) -> int:
    """Documents matching `term` as a prefix, counted up to `cap`."""
    return conn.execute(f"SELECT COUNT(*) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ? "
                        "LIMIT ?)", (fts_term(term), cap)).fetchone()[0]


def respell(conn: sqlite3.Connection, fts: str, vocab: str, term: str, *, rare: int = RARE,
            ratio: int = RATIO, min_len: int = MIN_LEN, docs: int | None = None) -> str | None:
    """The neighbour to search besides `term`, or None when it needs none or has none.
    `docs`: the documents matching `term` when the caller counted them already (capped at
    `rare` or more)."""
    if len(term) < min_len or term.isdigit():
        return None
    if docs is None:
        docs = doc_count(conn, fts, term, cap=rare)
    if docs >= rare:
        return None
    best = neighbour(conn, vocab, term, least=max(1, ratio * docs))
    return best[0] if best else None


def neighbour(conn: sqlite3.Connection, vocab: str, term: str, *,
              least: int) -> tuple[str, int] | None:
    """The stem within max_edits(term) of `term` with the most documents (at least `least`);
    nearer wins over more documents, then the alphabet breaks ties."""
    limit = max_edits(term)
    first = term[0]
    found: list[tuple[int, int, str]] = []
    rows = conn.execute(
        f"SELECT term, doc FROM {vocab} WHERE term >= ? AND term < ? AND doc >= ? "
        "AND length(term) BETWEEN ? AND ? LIMIT ?",
        (first, chr(ord(first) + 1), least, len(term) - limit, len(term) + limit, _SCAN_LIMIT))
    grams = _bigrams(term)
    for word, docs in rows:
        if word == term:
            continue
        # Each edit breaks at most two bigrams: a cheap test before the exact distance.
        if len(grams & _bigrams(word)) < max(len(term), len(word)) - 1 - 2 * limit:
            continue
        distance = edit_distance(term, word, limit)
        if distance <= limit:
            found.append((distance, -docs, word))
    if not found:
        return None
    distance, docs, word = min(found)
    return word, -docs


def _bigrams(word: str) -> set[str]:
    return {word[i:i + 2] for i in range(len(word) - 1)}


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (insert, delete, substitute, swap neighbours), or
    limit + 1 once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        low = i
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if (before is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb
                    and before[j - 2] + 1 < value):
                value = before[j - 2] + 1
            current[j] = value
            low = min(low, value)
        if low > limit:
            return limit + 1
        before, previous = previous, current
    return previous[-1] if previous[-1] <= limit else limit + 1
