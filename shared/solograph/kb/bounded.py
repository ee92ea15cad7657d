"""Ranking a query that matches many rows by scoring a bounded set of them.

FTS5 scores every row a query matches before its LIMIT: a query of common words costs what
the KB holds, not what it asks. Here the candidates of each query word are, for a word in
few rows, those rows (FTS5 lists them without scoring); for a common word, its list of
leaders (kb/leaders.py) and the rows of the rarer words it begins. The candidates are scored
as FTS5 would score them (kb/bm25.py) and ranked. A row off every list can still rank high
on several common words at once; the lists are long enough that such a row is rarely among
the best, which the tests measure against FTS5's own ranking.

A query matching few rows (BOUND_FROM), one with a phrase of several words (an alias
group's), a common word without its list (a store not synced since it was migrated) and
a folder's lane (the lists are the whole KB's: a folder may hold few of their rows) are
ranked by FTS5 itself (None here).
"""

from __future__ import annotations

import sqlite3

from solograph.frozen import Record, factory
from solograph.kb import bm25, leaders
from solograph.kb.bm25 import NAMES, SECTIONS, Scorer, Spec
from solograph.text.spelling import doc_count
from solograph.text.tokens import fts_term

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from solograph.kb.query import Query, Scope

# Rows holding the query's words, summed, below which FTS5 ranks them itself; lower for the
# pages, whose rows a ranking by FTS5 reads whole (each holds its page's text) to order them.
BOUND_FROM = {SECTIONS.kind: 2000, NAMES.kind: 400}
RARE_WORDS = 64  # rarer words a common word begins, listed through FTS5, at most


class Plan(Record):
    scorer: Scorer
    scores: dict[int, float]  # each candidate holding a query word: its score (lower-better)
    holding: dict[str, int]  # rows holding each word (exact for a rare word, else a bound)
    order: list[int] | None = None  # the candidates, best first
    # a candidate's page, whether that is in the wiki, a catalog, and its path: read once
    # for every lane, as far as the lanes go down the order
    places: dict[int, tuple[int, int, int, str]] = factory(default_factory=dict)


def plan(conn: sqlite3.Connection, query: Query, spec: Spec) -> Plan | None:
    """The query's candidates in the table and their scores, once per query (each lane asks
    again)."""
    if spec.kind not in query.plans:
        query.plans[spec.kind] = _plan(conn, query, spec)
    return query.plans[spec.kind]


def _plan(conn: sqlite3.Connection, query: Query, spec: Spec) -> Plan | None:
    if not query.alternatives or any(len(alt) != 1 for alt in query.alternatives):
        return None
    terms = [alt[0] for alt in query.alternatives]
    families = {t: _family(conn, spec, t) for t in terms}
    if sum(df for fam in families.values() for _, df, _ in fam) <= BOUND_FROM[spec.kind]:
        return None
    rows, avgdl = bm25.averages(conn, spec)
    candidates: set[int] = set()
    holding: dict[str, int] = {}
    for term, family in families.items():
        whole = sum(df for _, df, _ in family)
        if whole <= leaders.COMMON:
            found = _rows(conn, spec, fts_term(term))
            candidates.update(found)
            holding[term] = len(found)
            continue
        listed = [w for w, _, floor in family if floor is not None]
        rare = [(w, df) for w, df, floor in family if floor is None]
        if any(df > leaders.COMMON for _, df in rare) or len(rare) > RARE_WORDS or \
                sum(df for _, df in rare) > 4 * leaders.COMMON:
            return None
        if rare:
            candidates.update(_rows(conn, spec, " OR ".join(
                '"' + w.replace('"', '""') + '"' for w, _ in rare)))
        candidates.update(r for (r,) in conn.execute(
            "SELECT row FROM leaders WHERE kind = ? AND word IN "
            "(SELECT value FROM json_each(?))", (spec.kind, leaders._json(set(listed)))))
        holding[term] = min(rows, whole)
    scorer = Scorer(spec, {t: bm25.idf(rows, holding[t]) for t in terms}, avgdl)
    return Plan(scorer, scorer.scores(conn, sorted(candidates)), holding)


def _family(conn: sqlite3.Connection, spec: Spec, term: str) -> list[tuple[str, int, float]]:
    """The indexed words a query word matches (those it begins, from two letters on)."""
    term = bm25.fold(term)
    if len(term) < 2:
        return conn.execute("SELECT word, df, floor FROM kb_words WHERE kind = ? AND word = ?",
                            (spec.kind, term)).fetchall()
    return conn.execute("SELECT word, df, floor FROM kb_words WHERE kind = ? AND word >= ? "
                        "AND word < ?", (spec.kind, term, term + "\U0010ffff")).fetchall()


def _rows(conn: sqlite3.Connection, spec: Spec, match: str) -> list[int]:
    return [r for (r,) in conn.execute(
        f"SELECT rowid FROM {spec.table} WHERE {spec.table} MATCH ?", (match,))]


# The lanes ranked here, by their condition over the docs: which pages each may return.
LANES = {
    "": lambda wiki, catalog: True,
    "d.in_pages = 1": lambda wiki, catalog: bool(wiki),
    "d.in_pages = 1 AND d.catalog = 0": lambda wiki, catalog: bool(wiki and not catalog),
}
_SECTION_PLACES = ("SELECT s.id, s.doc, d.in_pages, d.catalog, '' FROM sections s JOIN docs d "
                   "ON d.id = s.doc WHERE s.id IN (SELECT value FROM json_each(?))")
_DOC_PLACES = ("SELECT d.id, d.id, d.in_pages, d.catalog, d.path FROM docs d WHERE d.id IN "
               "(SELECT value FROM json_each(?))")


def _best(conn: sqlite3.Connection, found: Plan, sql: str, lane: Callable[[int, int], bool],
          n: int,
          ) -> list[tuple[float, str, int, int]]:
    """The best `n` candidates in the lane, best first, as (score, path, row, doc): the
    candidates' pages are read best first, as far as the lane needs."""
    if found.order is None:
        found.order = sorted(found.scores, key=lambda r: (found.scores[r], r))
    out: list[tuple[float, str, int, int]] = []
    at, step = 0, n + 32
    while at < len(found.order):
        chunk = [r for r in found.order[at:at + step] if r not in found.places]
        found.places.update({r[0]: r[1:] for r in conn.execute(sql, (bm25._ids(chunk),))})
        for row in found.order[at:at + step]:
            doc, wiki, catalog, path = found.places.get(row, (0, 0, 0, ""))
            if doc and lane(wiki, catalog):
                out.append((found.scores[row], path, row, doc))
        at += step
        if len(out) >= n:
            break
    return out


def sections(conn: sqlite3.Connection, query: Query, scope: Scope, n: int,
             ) -> list[tuple[int, int, float]] | None:
    """The best `n` sections in the lane: (doc, section, bm25), best first."""
    lane = LANES.get(scope.where)
    found = plan(conn, query, SECTIONS) if lane else None
    if lane is None or found is None:
        return None
    return [(doc, sid, r) for r, _, sid, doc in _best(conn, found, _SECTION_PLACES, lane, n)[:n]]


def names(conn: sqlite3.Connection, query: Query, scope: Scope, n: int,
          ) -> list[tuple[int, float]] | None:
    """The best `n` pages in the lane by their names: (doc, score), best first (then by
    path), those the query matches in their body only left out (they score 0)."""
    lane = LANES.get(scope.where)
    found = plan(conn, query, NAMES) if lane else None
    if lane is None or found is None:
        return None
    ranked = sorted((r, path, doc) for r, path, doc, _ in
                    _best(conn, found, _DOC_PLACES, lane, n + 32) if r < 0)
    return [(doc, r) for r, _, doc in ranked[:n]]


def pages_holding(conn: sqlite3.Connection, term: str, cap: int) -> int:
    """Pages holding the word (as a prefix), counted up to `cap`: from the word counts when
    one word it begins is on `cap` pages or more, which saves FTS5 merging the lists of
    every word it begins."""
    if any(df >= cap for _, df, _ in _family(conn, NAMES, term)):
        return cap
    return doc_count(conn, NAMES.table, term, cap=cap)


def best_section(conn: sqlite3.Connection, query: Query, doc: int,
                 ) -> tuple[int, float] | None | bool:
    """(section, bm25) of the page's best section for a query ranked here, None when no
    section matches; False when FTS5 ranked the query."""
    found = query.plans.get(SECTIONS.kind)
    if found is None:
        return False
    ids = [r for (r,) in conn.execute("SELECT id FROM sections WHERE doc = ?", (doc,))]
    scores = {sid: found.scores[sid] for sid in ids if sid in found.scores}
    scores.update(found.scorer.scores(conn, [sid for sid in ids if sid not in scores]))
    if not scores:
        return None
    best = min(scores, key=lambda sid: (scores[sid], sid))
    return best, scores[best]


def holding(query: Query, term: str) -> int | None:
    """Pages holding the word, when a plan counted them."""
    found = query.plans.get(NAMES.kind)
    return found.holding.get(term) if found else None
