"""BM25 of a bounded set of definitions, equal to FTS5's `bm25(symbols_fts, 1.0, 0.4)`.

FTS5 scores every match of a query and reads each word's whole doclist for its idf; here the
caller chooses the candidates (at most a few hundred) and brings the idf (portfolio.impact),
and they are scored from the stored stems, read by id: a word searched as a prefix occurs in
a column as often as ` word` occurs in ` ` + the column, and a definition's length is its
count of stems. The arithmetic is FTS5's, in its order. Scoring in Python costs about 2 us a
definition, read included; the same in SQL (replace() and length()) cost 5.5 us.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3

from solograph.frozen import Frozen

K1 = 1.2
B = 0.75
SCOPE_WEIGHT = 0.4  # the name counts more than the enclosing scope: bm25(..., 1.0, 0.4)


class Query(Frozen):
    """What a tier asks: its phrases (stems searched as prefixes), and which definitions
    match: at least `need` of `groups` (indexes into phrases) have a phrase that occurs.
    `times`: how often FTS5's expression holds each phrase, for a definition that holds
    every phrase (the some-words tier's groups of all the words but one)."""

    phrases: tuple[str, ...]
    groups: tuple[tuple[int, ...], ...]
    need: int
    times: tuple[int, ...] = ()

    @classmethod
    def every(cls, terms: list[str]) -> Query:
        return cls(tuple(terms), tuple((i,) for i in range(len(terms))), len(terms))

    @classmethod
    def any(cls, terms: list[str]) -> Query:
        return cls(tuple(terms), tuple((i,) for i in range(len(terms))), 1)


def idf(rows: int, hits: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), never below 1e-6."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5)) if rows else 0.0
    return value if value > 0.0 else 1e-6


def score(conn: sqlite3.Connection, ids: list[int], query: Query, weights: list[float],
          avgdl: float, *, check: bool, limit: int) -> list[tuple[float, int]]:
    """(rank, id) of the best `limit` of `ids`, best first (rank: FTS5's negative BM25,
    rounded; ties by id). `weights`: each phrase's idf. `check`:
    keep only the candidates that match `query` (those FTS5 listed for it match already)."""
    if not ids:
        return []
    cur = conn.execute("SELECT s.id, ' ' || s.words, ' ' || s.scope_words "
                       "FROM json_each(?) j JOIN symbols s ON s.id = j.value", (json.dumps(ids),))
    cur.row_factory = None
    phrases = [" " + p for p in query.phrases]
    pairs = list(zip(phrases, weights, strict=True))
    groups, need = query.groups, query.need
    every = need == len(groups) and all(len(g) == 1 for g in groups)
    times, ones = query.times, (1,) * len(phrases)
    k1, b, w_scope = K1, B, SCOPE_WEIGHT
    out: list[tuple[float, int]] = []
    for id_, name, scope in cur:
        d = name.count(" ") + (scope.count(" ") if len(scope) > 1 else 0)
        # FTS5's arithmetic, in its order.
        norm = k1 * (1 - b + b * d / avgdl)
        total = 0.0
        if (check and not every) or times:
            freqs = [name.count(p) + w_scope * scope.count(p) for p in phrases]
            if check and sum(any(freqs[i] for i in g) for g in groups) < need:
                continue
            # FTS5 counts a word once per group of its expression that the definition
            # matches: a definition holding every word matches each group.
            many = times if times and all(freqs) else ones
            for f, (_, w), k in zip(freqs, pairs, many, strict=True):
                total += k * w * ((f * (k1 + 1.0)) / (f + norm))
        else:
            for p, w in pairs:
                # ' stem' occurs in ' ' + a column once per stem of it that starts with stem.
                f = name.count(p) + w_scope * scope.count(p)
                if not f and check:
                    break
                total += w * ((f * (k1 + 1.0)) / (f + norm))
            else:
                out.append((round(-1.0 * total, 9), id_))
            continue
        out.append((round(-1.0 * total, 9), id_))
    # Ranks are rounded before ties go by id: FTS5 adds a scope hit's weight one hit at a
    # time where this multiplies, which may differ in the last bit.
    return heapq.nsmallest(limit, out)
