"""KB search: pages by their names and their best section (score.py), the pages a query
names first (names.py), each hit naming its best heading section.

Every query word is stemmed and searched as a prefix. A word in fewer than three pages is also
searched as its neighbour in the index's vocabulary or in the alias table (text/spelling.py);
a word matching an earlier member of an alias group also searches the group's last member.
With no path, two lanes are taken in turn, the whole KB and the wiki, so a question still
reaches a wiki page past notes elsewhere that match it better.
"""

from __future__ import annotations

import re
import sqlite3

from solograph.errors import BadQuery
from solograph.kb import bounded as ranking
from solograph.kb.aliases import AliasTable
from solograph.kb.names import STOP_STEMS, covered, grade, names_of
from solograph.kb.paths import folder_condition
from solograph.kb.query import Query, Scope
from solograph.kb.score import scored, section_of
from solograph.limits import bounded
from solograph.text.spelling import RARE, respell
from solograph.text.tokens import STOPWORDS, query_terms, stem, words

MAX_LIMIT = 50
SNIPPET = 240
HUB_LINKS, HUB_SHARE, HUB_WEIGHT = 30, 0.5, 0.5
_WORD = re.compile(r"[^\W_]+")


def build_query(conn: sqlite3.Connection, text: str, table: AliasTable) -> Query:
    found = words(text)
    if found and all(w in STOPWORDS for w in found):
        # Searched as words they match nearly every page, and any ten pages are no answer.
        raise BadQuery(f"nothing searchable was asked: {text.strip()!r} holds only words "
                       "too common to search", hint='name the topic: "privacy architecture", '
                       '"how do we sandbox agents"')
    query = Query(text, query_terms(text, prose=True))
    spelled = list(query.stems)
    for term in query.stems:
        held = ranking.pages_holding(conn, term, RARE)
        alt = respell(conn, "docs_fts", "docs_vocab", term, docs=held)
        if not alt and len(table) and held < RARE:
            alt = table.respell(term)
        if alt and alt != term:
            query.respelled[term] = alt
            spelled.append(alt)
    alternatives = [(t,) for t in spelled]
    # Members are matched with their small words ("Война за размер блока"), which the
    # search itself drops.
    every = spelled + [stem(w) for w in found if w in STOPWORDS]
    for member, target in table.expand(every).items():
        query.aliases[" ".join(member)] = " ".join(target)
        alternatives.append(target)
    query.alternatives = list(dict.fromkeys(alternatives))
    return query


def scope_for(*, path: str | None, pages: bool) -> list[Scope]:
    """The lanes of one search: a path or the wiki alone, else the whole KB then the wiki."""
    if path:
        prefix = bounded("folder", path).strip().strip("/")
        if prefix in ("", "."):  # the whole KB as one lane
            return [Scope(name="path")]
        return [Scope(*folder_condition(prefix), "path")]
    wiki = Scope("d.in_pages = 1", (), "wiki")
    return [wiki] if pages else [Scope(), wiki]


def rank(conn: sqlite3.Connection, query: Query, scope: Scope, limit: int,
         ) -> list[tuple[int, float]]:
    """(doc id, score) best first; the score is lower-better, as FTS5's bm25 gives it.

    A page scores by its names (title; catalog line, description, tags, aliases, file name)
    plus its best section, scaled by the square of the share of the query's words (weighted
    by rarity) found in those two places: words that meet in one section count for more than
    the same words scattered over a long page, or one word repeated in a title and its text.
    A page whose every title word is in the query (a question around its name) counts as
    holding the query. Among the candidates, the pages the query names (names.py) come
    first; the score orders the rest."""
    ranked = scored(conn, query, scope, limit)
    readings = [set(query.stems)]
    if query.aliases:
        readings.append(translated(query))
    everything = set(query.prefixes)
    query.named.update(names_of(conn, [doc for doc, _ in ranked if doc not in query.named]))
    found = query.named
    for doc, s in ranked:
        if doc in found and covered(found[doc], readings, everything):
            s.coverage = 1.0
    listing = hubs(conn, query, [doc for doc, _ in ranked])
    grades = query.grades
    for doc, _ in ranked:
        if doc not in grades:
            grades[doc] = grade(found[doc], readings, everything) if doc in found \
                else (3, 0, 0)
    graded = sorted((grades[doc], s.total * (HUB_WEIGHT if doc in listing else 1.0), doc)
                    for doc, s in ranked)
    return [(doc, total) for _, total, doc in graded[:limit]]


def hubs(conn: sqlite3.Connection, query: Query, docs: list[int]) -> set[int]:
    """The pages among `docs` that link to many pages (an index, an overview, a link map):
    HUB_LINKS pages, or in a small wiki HUB_SHARE of its pages (never fewer than 10): a
    timeline or a history page linking 25 of 164 is no hub. They hold every page's words in
    their lists, so they must not outrank the page asked for on words they only list: their
    score counts HUB_WEIGHT of itself, and a page the query names still comes first. What a
    lane found is kept in `query` for the next lane of the same search."""
    known = query.hubs
    ask = [doc for doc in docs if doc not in known]
    if ask:
        if query.pages is None:
            query.pages = conn.execute(
                "SELECT COUNT(*) FROM docs WHERE in_pages + 0 = 1").fetchone()[0] or \
                conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
        least = min(HUB_LINKS, max(10, HUB_SHARE * query.pages))
        known.update(dict.fromkeys(ask, False))
        known.update({src: True for src, n in conn.execute(
            f"SELECT src, COUNT(DISTINCT dst) FROM links WHERE dst IS NOT NULL AND src IN "
            f"({','.join('?' * len(ask))}) GROUP BY src", ask) if n >= least})
    return {doc for doc in docs if known[doc]}


def translated(query: Query) -> set[str]:
    """The query's words with each alias member replaced by its group's last member, longest
    members first: "Приватность в Биткоине" reads as "privacy", not as "privacy bitcoin"
    through the shorter member "Биткоин"."""
    out, used = set(query.stems), set()
    for member, target in sorted(query.aliases.items(), key=lambda a: -len(a[0].split())):
        words_of = set(member.split())
        if not words_of & used:
            used |= words_of
            out = (out - words_of) | {t for t in target.split() if t not in STOP_STEMS}
    return out


def interleave(lanes: list[list[tuple[int, float]]], limit: int) -> list[tuple[int, float, int]]:
    """Take the lanes in turn, first lane first, skipping documents already taken:
    (doc, bm25, lane index)."""
    out: list[tuple[int, float, int]] = []
    seen: set[int] = set()
    for i in range(max((len(x) for x in lanes), default=0)):
        for lane, hits in enumerate(lanes):
            if i < len(hits) and hits[i][0] not in seen:
                seen.add(hits[i][0])
                out.append((hits[i][0], hits[i][1], lane))
    return out[:limit]


def search(conn: sqlite3.Connection, query: Query, *, path: str | None = None,
           pages: bool = False, limit: int = 10) -> list[dict]:
    limit = max(1, min(limit, MAX_LIMIT))
    lanes = [rank(conn, query, scope, limit) for scope in scope_for(path=path, pages=pages)]
    return [result(conn, query, doc, score) for doc, score, _ in interleave(lanes, limit)]


def result(conn: sqlite3.Connection, query: Query, doc: int, score: float) -> dict:
    row = conn.execute("SELECT path, title, description, index_line, in_pages FROM docs "
                       "WHERE id = ?", (doc,)).fetchone()
    section = best_section(conn, query, doc)
    summary = row["description"] or row["index_line"]
    return {
        "path": row["path"],
        "title": row["title"],
        "section": section["heading"] if section else "",
        "line": section["line"] if section else 1,
        "summary": summary[:200],
        "snippet": snippet(section["text"], query.prefixes) if section else "",
        "score": float(f"{-score:.4g}"),  # BM25: higher is better, within one answer
        "wiki": bool(row["in_pages"]),
    }


def best_section(conn: sqlite3.Connection, query: Query, doc: int) -> sqlite3.Row | None:
    """The page's section that matches best; its first when only the title or summary did."""
    if doc in query.sections:
        found: tuple | None = (query.sections[doc],)
    else:
        ranked = ranking.best_section(conn, query, doc)
        found = section_of(conn, query.match, doc) if ranked is False else ranked
    if found is None:
        found = conn.execute("SELECT MIN(id) FROM sections WHERE doc = ?", (doc,)).fetchone()
        if found[0] is None:
            return None
    return conn.execute("SELECT heading, line, text FROM sections WHERE id = ?",
                        (found[0],)).fetchone()


def snippet(text: str, prefixes: tuple[str, ...], size: int = SNIPPET) -> str:
    """About `size` characters of the section around its first matching word."""
    from solograph.kb.markdown import plain  # not on the hook's path

    flat = re.sub(r"\s+", " ", plain(text)).strip()
    at = 0
    for m in _WORD.finditer(flat):
        if any(stem(w).startswith(prefixes) for w in words(m.group(0))):
            at = m.start()
            break
    start = max(0, at - size // 4)
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < at else start
    out = flat[start:start + size]
    if start + size < len(flat):
        cut = out.rfind(" ")
        out = (out[:cut] if cut > size // 2 else out) + " …"
    return ("… " if start else "") + out
