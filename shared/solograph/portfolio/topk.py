"""The bounded top of one tier: at most CAP candidates, whatever the index holds.

FTS5 lists a tier's matches in rowid order without scoring them (a tenth of a microsecond a
row); when they are CAP or fewer that list is every match and the top is exact. When there
are more, the candidates are the first CAP matches plus the impact list of the rarest word
(its best definitions by its own BM25, kept in symbol_top for a word held by FLOOR
definitions or more) that hold the other words too: a query of one common word (`user`)
gets its exact top, several common words (`user session`, 11,000 matches at 500,000
definitions) the best of those. A word of more than PREFIX letters held by FLOOR
definitions or more is listed by its first PREFIX letters (FTS5 keeps those prefixes'
doclists; a longer one is merged from every word under it, 4 ms for `session*`), and the
scoring keeps only the real matches.
"""

from __future__ import annotations

import sqlite3
from itertools import combinations

from solograph.frozen import Record, factory
from solograph.portfolio import impact, rank
from solograph.text.tokens import fts_term

CAP = 500  # candidates scored for one tier, at most (plus one impact list)
PREFIX = 5  # the longest prefix FTS5 keeps an index of (migration 0003)
SPAN_ROWS = 5_000  # matches read in a project's spans of ids, at most
SPANS = 8  # ranges of ids a project's definitions are read in, at most
GAP = 64  # ids between two of a project's definitions that start another range


class Scope(Record):
    """What one search reads once: the idf inputs, and the project's definitions."""

    conn: sqlite3.Connection
    project_id: int | None = None
    rows: int = 0
    avgdl: float = 0.0
    df: dict[str, int] = factory(default_factory=dict)
    ids: frozenset[int] = frozenset()
    spans: list[tuple[int, int]] = factory(default_factory=list)

    @classmethod
    def open(cls, conn: sqlite3.Connection, project_id: int | None) -> Scope:
        rows, avgdl = impact.totals(conn)
        scope = cls(conn, project_id, rows, avgdl)
        if project_id is not None:
            own = [r[0] for r in conn.execute(
                "SELECT id FROM symbols WHERE project_id = ? ORDER BY id", (project_id,))]
            scope.ids = frozenset(own)
            scope.spans = spans(own)
        return scope

    def freq(self, terms: list[str] | tuple[str, ...]) -> dict[str, int]:
        missing = [t for t in dict.fromkeys(terms) if t not in self.df]
        if missing:
            self.df.update(impact.doc_freq(self.conn, missing))
        return {t: self.df[t] for t in terms}


def spans(ids: list[int]) -> list[tuple[int, int]]:
    """A project's sorted ids as at most SPANS ranges, cut at the widest gaps: a project's
    definitions were written together, and a file rescanned later was written at the end,
    after every other project's."""
    if not ids:
        return []
    gaps = sorted(range(1, len(ids)), key=lambda i: ids[i - 1] - ids[i])[:SPANS - 1]
    cuts = [0, *sorted(i for i in gaps if ids[i] - ids[i - 1] > GAP), len(ids)]
    return [(ids[a], ids[b - 1]) for a, b in zip(cuts, cuts[1:], strict=False)]


def listed(term: str, docs: int) -> str:
    """The FTS5 term that lists a query word's candidates (a superset for a long common
    word, see the module's docstring)."""
    if len(term) > PREFIX and docs >= impact.FLOOR and term.isascii():
        return fts_term(term[:PREFIX])
    return fts_term(term)


def match_of(query: rank.Query, df: dict[str, int]) -> str:
    """The FTS5 expression listing `query`'s candidates."""
    groups = ["(" + " OR ".join(listed(query.phrases[i], df[query.phrases[i]]) for i in g)
              + ")" if len(g) > 1 else listed(query.phrases[g[0]], df[query.phrases[g[0]]])
              for g in query.groups]
    if query.need == len(groups):
        return " AND ".join(groups)
    if query.need <= 1:
        return " OR ".join(groups)
    return " OR ".join("(" + " AND ".join(c) + ")"
                       for c in combinations(groups, query.need))


def top(scope: Scope, query: rank.Query, n: int, *, cap: int | None = None
        ) -> list[tuple[float, int]]:
    """(rank, id) of the best `n` definitions matching `query` in the scope, best first,
    from at most `cap` (CAP) listed matches and one impact list."""
    df = scope.freq(query.phrases)
    match = match_of(query, df)
    cut = any(listed(p, df[p]) != fts_term(p) for p in query.phrases)
    ids, whole = _list(scope, match, CAP if cap is None else cap)
    if not whole:
        rarest = min(query.phrases, key=lambda t: (df[t], t))
        best = [i for i in impact.champions(scope.conn, rarest)
                if scope.project_id is None or i in scope.ids]
        if len(query.phrases) == 1 and len(best) >= 2 * n:
            # One word: its impact list is its ranking, the top is its head (twice as long,
            # for the definitions deleted since the list was made).
            ids, cut = best[:2 * n], False
        else:
            ids = list(dict.fromkeys(ids + best))
    weights = [rank.idf(scope.rows, df[p]) for p in query.phrases]
    return rank.score(scope.conn, ids, query, weights, scope.avgdl,
                      check=cut or not whole, limit=n)


def _list(scope: Scope, match: str, cap: int) -> tuple[list[int], bool]:
    """Up to `cap` candidate ids, and whether they are every match."""
    conn = scope.conn
    if scope.project_id is None:
        found = [r[0] for r in conn.execute(
            "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ? LIMIT ?", (match, cap + 1))]
        return found[:cap], len(found) <= cap
    # FTS5 seeks to each of the project's spans of ids; the ids read once per search keep
    # only the project's own.
    ids: list[int] = []
    read = 0
    for low, high in scope.spans:
        rows = [r[0] for r in conn.execute(
            "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "LIMIT ?", (match, low, high, SPAN_ROWS + 1 - read))]
        read += len(rows)
        ids.extend(i for i in rows if i in scope.ids)
        if read > SPAN_ROWS or len(ids) > cap:
            return ids[:cap], False
    return ids, True
