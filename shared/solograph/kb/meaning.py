"""The KB index's part of the meaning lane: one vector per heading section.

A section is embedded as the page title, its heading path and its plain text (links as their
labels), cut to PASSAGE_CHARS: the same redacted text the section's full-text row is made of,
never more. Catalogs (index.md) are not embedded: a list of one line about every page is
near every question in meaning and answers none (their lines already count lexically, as
each page's `index_line`). Pages of the wiki folder are embedded first, newest first, so a
search over the wiki has its vectors soonest. A page read again gets new sections; their
vectors left with the old ones (foreign key cascade), and the new ones are pending.

`SEARCH` is kb_search's meaning side: pages by their best section, the whole KB and the wiki
in turn as the lexical lane takes them; `expand` is done once, on the fused pages.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

from solograph.semantic.answers import Meaning, by_group, depth, fused_answer, words_only
from solograph.semantic.lane import StoreLane, allowed_by

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any

    from solograph.config import Settings

STORE = "kb"
PASSAGE_CHARS = 1_500
_SPACE = re.compile(r"\s+")


def section_text(title: str, heading: str, text: str) -> str:
    from solograph.kb.markdown import plain

    head = heading if heading.startswith(title) else " > ".join(x for x in (title, heading) if x)
    body = _SPACE.sub(" ", plain(text)).strip()
    return f"{head}\n{body}".strip()[:PASSAGE_CHARS]


class KbLane(StoreLane):
    store = STORE
    table = "section_vectors"
    key = "section"
    unit_join = "JOIN sections s ON s.id = {unit}"
    group = "s.doc"
    noun = "sections"
    texts_sql = ("SELECT s.id, d.title, s.heading, s.text FROM sections s JOIN docs d "
                 "ON d.id = s.doc WHERE d.catalog = 0 AND s.id IN ({marks})")

    def writer(self, settings: Settings) -> AbstractContextManager[sqlite3.Connection]:
        from solograph.kb.store import configured, open_kb

        return closing(open_kb(settings.home, configured(settings)).conn)

    def passage(self, *row: object) -> str:
        return section_text(str(row[0]), str(row[1]), str(row[2]))


LANE = KbLane()


class KbSearch(Meaning):
    """kb_search: pages ranked; a page read whole (`get`) is not fused."""

    def query(self, params: dict) -> str:
        get = params.get("get")
        return "" if get is not None and str(get).strip() else super().query(params)

    def lexical(self, params: dict) -> dict:
        # Expanded once, from the fused pages; kb_get (a page, never fused) has no `expand`.
        return {**params, "expand": False} if "expand" in params else params

    def fuse(self, kb: Any, answer: dict, vector: Any, model: str, *, query: str | None = None,
             path: str | None = None, pages: bool = False, expand: bool = False,
             limit: int = 10, get: str | None = None, ref: str | None = None) -> dict:
        if "page" in answer or "results" not in answer:
            return answer
        fused = words_only(answer) if vector is None else \
            self._fused(kb.conn, answer, vector, model, query or "", path, pages, limit)
        if expand:
            from solograph.kb.answers import expanded

            fused["expanded"] = expanded(kb.conn, fused["results"])
        return fused

    def _fused(self, conn: sqlite3.Connection, answer: dict, vector: Any, model: str, query: str,
               path: str | None, pages: bool, limit: int) -> dict:
        from solograph.kb import search

        lanes = [LANE.rank(conn, vector, depth(limit), model=model,
                           allowed=allowed_by(conn, f"SELECT d.id FROM docs d WHERE {s.where}",
                                              s.params) if s.where else None)
                 for s in search.scope_for(path=path, pages=pages)]
        sections = {doc: section for hits in lanes for doc, _, section in hits}
        cosine = {doc: cos for hits in lanes for doc, cos, _ in hits}
        ranked = [(doc, cosine[doc], sections[doc]) for doc, _, _ in search.interleave(
            [[(d, c) for d, c, _ in hits if isinstance(d, int)] for hits in lanes],
            depth(limit))]
        results = answer["results"]
        groups, lexical = by_group(results, "path", lambda paths: _doc_ids(conn, paths))
        return fused_answer(
            LANE, conn, answer, vector, model, query=query, limit=limit, ranked=ranked,
            words=groups, lexical=lexical,
            tier=_titled(conn, query, groups),
            confident=_confident(conn, query, groups, [h["score"] for h in results]),
            render=lambda doc, section: kb_hit(conn, query, doc, section))


def _doc_ids(conn: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    return {p: d for d, p in conn.execute(f"SELECT id, path FROM docs WHERE path IN ({marks})",
                                          paths)}


def _confident(conn: sqlite3.Connection, query: str, docs: list[int],
               scores: list[float]) -> bool:
    """The first hit has a section holding every word of the query, by a clear margin."""
    from solograph.semantic.fusion import POLICY, clear_margin
    from solograph.text.tokens import fts_term, query_terms

    stems = query_terms(query, prose=True)
    if not stems or not clear_margin(scores):
        return False
    if not POLICY.held:
        return True
    match = " AND ".join(fts_term(t) for t in stems)

    def one_section(doc: int) -> bool:
        low, high = conn.execute("SELECT MIN(id), MAX(id) FROM sections WHERE doc = ?",
                                 (doc,)).fetchone()
        return low is not None and conn.execute(
            "SELECT 1 FROM sections_fts WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "AND rowid IN (SELECT id FROM sections WHERE doc = ?) LIMIT 1",
            (match, low, high, doc)).fetchone() is not None
    return one_section(docs[0])


def _titled(conn: sqlite3.Connection, query: str, docs: list[int]) -> list[int]:
    """The lexical hits whose title holds every word of a query of two words or more."""
    from solograph.text.tokens import fts_term, query_terms

    stems = query_terms(query, prose=True)
    if len(stems) < 2 or not docs:
        return []
    held = {r[0] for r in conn.execute(
        "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1000",
        ("{title}: (" + " AND ".join(fts_term(t) for t in stems) + ")",))}
    return [d for d in docs if d in held]


def kb_hit(conn: sqlite3.Connection, query: str, doc: int, section: int) -> dict | None:
    """A page found by meaning, at the section that found it."""
    from solograph.kb.search import Query, result
    from solograph.text.tokens import query_terms

    if conn.execute("SELECT 1 FROM sections WHERE id = ? AND doc = ?",
                    (section, doc)).fetchone() is None:
        return None
    stems = query_terms(query, prose=True)
    q = Query(query, stems, alternatives=[(s,) for s in stems], sections={doc: section})
    return result(conn, q, doc, 0.0)


SEARCH = KbSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
