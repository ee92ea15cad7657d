"""How a page scores for a query: its names and its best section, scaled by how much of the
query they hold.

The names are the title and the meta field (catalog line, description, tags, aliases, file
name): BM25 over docs_fts of each, summed (a word in both the title and the description
counts twice), with each word's rarity taken over whole pages; the best section is BM25 over
sections_fts (heading, text). Their sum is scaled by the square of the coverage: the share
of the query's words, each weighted by its rarity over the pages, found in the names or in
that one section. So words that meet in one section count for more than the same words
scattered over a long page, and a page that repeats one query word in its title and its text
does not pass one whose section holds them all.
"""

from __future__ import annotations

import math
import sqlite3

from solograph.frozen import Record
from solograph.kb import bounded
from solograph.text.spelling import doc_count

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.kb.query import Query, Scope

# The title and the meta field, each on its own; the body counts through its sections instead.
# Names weigh half as much again as the best section, since a page is looked up by its name.
NAMES = "1.5 * (bm25(docs_fts, 2.0, 0.0, 0.0) + bm25(docs_fts, 0.0, 2.0, 0.0))"
SECTION_WEIGHTS = "2.0, 1.0"  # heading, text
SECTIONS_PER_HIT = 5  # sections read per result asked for, to find the pages they hold
SECTIONS_READ = 20  # sections read per result asked for, for the best section of each page
NAMES_READ = 20  # pages read by their names per result asked for


class Scored(Record):
    names: float = 0.0  # bm25 over the title and the meta field (lower-better)
    section: float = 0.0  # bm25 of the best section
    section_id: int | None = None
    coverage: float = 1.0  # the share of the query's words in the names and that section

    @property
    def total(self) -> float:
        return (self.names + self.section) * self.coverage ** 2


def scored(conn: sqlite3.Connection, query: Query, scope: Scope, limit: int,
           ) -> list[tuple[int, Scored]]:
    """The candidates: the best 2 x limit pages by their names and the pages of the best
    SECTIONS_PER_HIT x limit sections, each with the parts of its score. Each query is
    bounded; a page past a bound scores 0 for that part, being below every page kept there.
    A MATCH is never narrowed by a list of rowids: FTS5 runs the whole query again for each
    one (27 ms where reading every match takes 1)."""
    where = f"AND {scope.where}" if scope.where else ""
    by_names = bounded.names(conn, query, scope, NAMES_READ * limit)
    if by_names is None:
        by_names = conn.execute(
            f"SELECT d.id, {NAMES} AS r FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid "
            f"WHERE docs_fts MATCH ? {where} ORDER BY r, d.path LIMIT ?",
            (query.match, *scope.params, NAMES_READ * limit)).fetchall()
    names = dict(by_names)
    out = {doc: Scored(names=r) for doc, r in list(names.items())[:2 * limit] if r < 0}
    best: dict[int, tuple[int, float]] = {}
    by_sections = bounded.sections(conn, query, scope, SECTIONS_READ * limit)
    if by_sections is None:
        by_sections = conn.execute(
            f"SELECT s.doc, s.id, bm25(sections_fts, {SECTION_WEIGHTS}) AS r FROM sections_fts "
            "JOIN sections s ON s.id = sections_fts.rowid JOIN docs d ON d.id = s.doc "
            f"WHERE sections_fts MATCH ? {where} ORDER BY r LIMIT ?",
            (query.match, *scope.params, SECTIONS_READ * limit)).fetchall()
    for i, (doc, sid, r) in enumerate(by_sections):
        best.setdefault(doc, (sid, r))
        if i < SECTIONS_PER_HIT * limit and doc not in out:
            out[doc] = Scored(names=names.get(doc, 0.0))
    for doc, s in out.items():  # a page found by its names alone keeps section 0
        if doc in best:
            s.section_id, s.section = best[doc]
    if out:
        _cover(conn, query, out)
    query.sections.update({doc: s.section_id for doc, s in out.items() if s.section_id})
    return sorted(out.items(), key=lambda x: (x[1].total, x[0]))


def _holds(text: str, term: str) -> bool:
    """Whether space-separated stems hold `term`, as FTS5 matches it (a prefix from two
    letters on)."""
    needle = " " + term if len(term) >= 2 else " " + term + " "
    return (" " + text + " ").find(needle) >= 0


def _weights(conn: sqlite3.Connection, query: Query) -> dict[str, float]:
    """Each query word's inverse document frequency over the pages (once per query: every
    lane asks)."""
    if not query.weights:
        total = conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0] or 1
        for term in query.stems:
            n = bounded.holding(query, term)
            if n is None:
                n = doc_count(conn, "docs_fts", term, cap=total)
            query.weights[term] = math.log(1 + (total - n + 0.5) / (n + 0.5))
    return query.weights


def _cover(conn: sqlite3.Connection, query: Query, out: dict[int, Scored]) -> None:
    """Each page's share of the query's words (weighted by their rarity) found in its names
    or in its best section: a page whose words meet in one place beats one that scatters
    them, or one that repeats a single word in its title and its text."""
    weights = _weights(conn, query)
    whole = sum(weights.values()) or 1.0
    known = query.covers  # an earlier lane's, for the same page and section
    for doc, s in out.items():
        if (doc, s.section_id) in known:
            s.coverage = known[doc, s.section_id]
    out = {doc: s for doc, s in out.items() if (doc, s.section_id) not in known}
    if not out:
        return
    ids = list(out)
    marks = ",".join("?" * len(ids))
    texts = {doc: f"{title} {meta}" for doc, title, meta in conn.execute(
        f"SELECT rowid, title, meta FROM docs_fts WHERE rowid IN ({marks})", ids)}
    sections = [s.section_id for s in out.values() if s.section_id is not None]
    held = dict(conn.execute(
        f"SELECT rowid, heading || ' ' || body FROM sections_fts WHERE rowid IN "
        f"({','.join('?' * len(sections))})", sections)) if sections else {}
    targets: dict[str, list[list[str]]] = {}
    for member, target in query.aliases.items():
        for m in member.split():
            targets.setdefault(m, []).append(target.split())
    for doc, s in out.items():
        text = texts.get(doc, "") + " " + held.get(s.section_id, "")
        got = 0.0
        for term, weight in weights.items():
            spellings = [term] + ([query.respelled[term]] if term in query.respelled else [])
            if any(_holds(text, t) for t in spellings) or any(
                    all(_holds(text, t) for t in group) for group in targets.get(term, ())):
                got += weight
        s.coverage = known[doc, s.section_id] = got / whole


def section_of(conn: sqlite3.Connection, match: str, doc: int) -> tuple[int, float] | None:
    """(section id, bm25) of the page's section matching best, or None. A page's sections
    have consecutive ids, so the search is bounded by rowid."""
    low, high = conn.execute("SELECT MIN(id), MAX(id) FROM sections WHERE doc = ?",
                             (doc,)).fetchone()
    if low is None:
        return None
    return conn.execute(
        f"SELECT rowid, bm25(sections_fts, {SECTION_WEIGHTS}) AS r FROM sections_fts "
        "WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY r LIMIT 1",
        (match, low, high)).fetchone()
