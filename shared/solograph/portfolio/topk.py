"""The bounded top of one tier: at most CAP candidates, whatever the index holds.

FTS5 lists a tier's matches in rowid order without scoring them (a tenth of a microsecond a
row); when they are CAP or fewer that list is every match and the top is exact. When there
are more, every word of the query is common, and the candidates are the first CAP matches
plus the impact list of the rarest word (its best definitions by its own BM25, kept in
symbol_top) that hold the other words too: a query of one common word (`user`) gets its
exact top, several common words (`user session`, 11,000 matches at 500,000 definitions) the
best of those. A word of more than PREFIX letters held by FLOOR definitions or more is
listed by its first PREFIX letters (FTS5 keeps those prefixes' doclists; a longer one is
merged from every word under it, 4 ms for `session*`), and the scoring keeps only the real
matches.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from itertools import combinations

from solograph.portfolio import impact, rank
from solograph.text.tokens import fts_term

CAP = 500  # candidates scored for one tier, at most (plus one impact list)
PREFIX = 5  # the longest prefix FTS5 keeps an index of (migration 0003)
SPAN_ROWS = 20_000  # matches read in a project's span of ids, at most


@dataclass
class Scope:
    """What one search reads once: the idf inputs, and the project's definitions."""

    conn: sqlite3.Connection
    project_id: int | None = None
    rows: int = 0
    avgdl: float = 0.0
    df: dict[str, int] = field(default_factory=dict)
    ids: frozenset[int] = frozenset()
    span: tuple[int, int] | None = None

    @classmethod
    def open(cls, conn: sqlite3.Connection, project_id: int | None) -> Scope:
        rows, avgdl = impact.totals(conn)
        scope = cls(conn, project_id, rows, avgdl)
        if project_id is not None:
            scope.ids = frozenset(r[0] for r in conn.execute(
                "SELECT id FROM symbols WHERE project_id = ?", (project_id,)))
            if scope.ids:
                scope.span = (min(scope.ids), max(scope.ids))
        return scope

    def freq(self, terms: list[str] | tuple[str, ...]) -> dict[str, int]:
        missing = [t for t in dict.fromkeys(terms) if t not in self.df]
        if missing:
            self.df.update(impact.doc_freq(self.conn, missing))
        return {t: self.df[t] for t in terms}


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


def top(scope: Scope, query: rank.Query, n: int) -> list[tuple[float, int]]:
    """(rank, id) of the best `n` definitions matching `query` in the scope, best first."""
    df = scope.freq(query.phrases)
    match = match_of(query, df)
    cut = any(listed(p, df[p]) != fts_term(p) for p in query.phrases)
    ids, whole = _list(scope, match)
    if not whole:
        rarest = min(query.phrases, key=lambda t: (df[t], t))
        best = [i for i in impact.champions(scope.conn, rarest)
                if scope.project_id is None or i in scope.ids]
        if len(query.phrases) == 1 and len(best) >= n:
            # One word: its impact list is its ranking, the top is its head.
            ids, cut = best[:n], False
        else:
            ids = list(dict.fromkeys(ids + best))
    times = query.times or (1,) * len(query.phrases)
    weights = [rank.idf(scope.rows, df[p]) * t for p, t in zip(query.phrases, times,
                                                                strict=True)]
    return rank.score(scope.conn, ids, query, weights, scope.avgdl,
                      check=cut or not whole, limit=n)


def _list(scope: Scope, match: str) -> tuple[list[int], bool]:
    """Up to CAP candidate ids, and whether they are every match."""
    conn = scope.conn
    if scope.project_id is None:
        ids = [r[0] for r in conn.execute(
            "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ? LIMIT ?", (match, CAP + 1))]
        return ids[:CAP], len(ids) <= CAP
    if scope.span is None:
        return [], True
    # A project's definitions were written together: their ids fall mostly in one span,
    # which FTS5 seeks to; the ids read once per search keep only the project's own.
    rows = [r[0] for r in conn.execute(
        "SELECT rowid FROM symbols_fts WHERE symbols_fts MATCH ? AND rowid BETWEEN ? AND ? "
        "LIMIT ?", (match, *scope.span, SPAN_ROWS + 1))]
    ids = [i for i in rows if i in scope.ids]
    return ids[:CAP], len(ids) <= CAP and len(rows) <= SPAN_ROWS
