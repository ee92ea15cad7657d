"""The prompt hint: one line naming a wiki page, or nothing.

A page is named when the prompt holds a word that is rare in the wiki (in at most RARE_SHARE of
its pages, or MIN_RARE), that word is in the page's title (directly or through the alias
table), and the page covers the prompt's topic: it is among the wiki's TOP pages for the
prompt's informative words, and it holds most of the prompt's content words (those
in the page's script: an English code prompt that mentions a wiki term in passing is not
about the wiki page, a Russian question reaching an English page through the alias table
is). Each
page is named at most once per session (the caller keeps what was said). Anything less:
silence, since a pointer the agent learns to ignore is worse than none.
"""

from __future__ import annotations

import json
import re
import sqlite3

from solograph.errors import BadQuery
from solograph.frozen import Frozen
from solograph.kb.aliases import AliasTable
from solograph.kb.search import Query, Scope, rank
from solograph.text.tokens import STOPWORDS, fts_term, stem, words

RARE_SHARE = 0.2
MIN_RARE = 3
COMMON_SHARE = 0.25  # a word in a quarter of the wiki tells little about a topic
TOP = 3
MIN_WORD = 3
MIN_CONTENT = 4
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


class Hint(Frozen):
    path: str
    title: str
    word: str

    @property
    def text(self) -> str:
        import json
        import shlex

        return (f"The wiki has a page on this: {self.path} ({self.title}). Read it before "
                f"answering: kb_search with get {json.dumps(self.path, ensure_ascii=False)}, "
                f"or `solograph kb get {shlex.quote(self.path)}`.")


def _stems(prompt: str) -> dict[str, str]:
    """{stem: the word as written} for the prompt's words of MIN_WORD letters or more."""
    out: dict[str, str] = {}
    for word in words(prompt):
        if len(word) >= MIN_WORD and not word.isdigit():
            out.setdefault(stem(word), word)
    return out


def _wiki_count(conn: sqlite3.Connection, match: str) -> int:
    return conn.execute("SELECT COUNT(*) FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid "
                        "WHERE docs_fts MATCH ? AND d.in_pages = 1", (match,)).fetchone()[0]


def _wiki_counts(conn: sqlite3.Connection, stems: list[str], enough: float) -> dict[str, int]:
    """The wiki pages holding each stem, counted where the count decides anything: a stem on
    more pages outside the wiki than all of those can explain is on at least `enough` wiki
    pages (the word counts say so; counting its pages would read them all)."""
    outside = conn.execute("SELECT COUNT(*) FROM docs WHERE in_pages + 0 = 0").fetchone()[0]
    held = dict(conn.execute("SELECT word, df FROM kb_words WHERE kind = 1 AND word IN "
                             "(SELECT value FROM json_each(?))",
                             (json.dumps(stems, ensure_ascii=False),)))
    return {s: held[s] - outside if held.get(s, 0) - outside >= enough
            else _wiki_count(conn, _exact(s)) for s in stems}


def _exact(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def find(conn: sqlite3.Connection, prompt: str, table: AliasTable, *,
         told: set[str] | frozenset[str] = frozenset()) -> Hint | None:
    """The page to name for `prompt`, or None."""
    written = _stems(prompt)
    if not written:
        return None
    total = conn.execute("SELECT COUNT(*) FROM docs WHERE in_pages + 0 = 1 AND catalog = 0"
                         ).fetchone()[0]
    if not total:
        return None
    expanded = dict(written)
    via: dict[str, tuple[str, ...]] = {}  # a prompt stem -> the alias target it also searches
    for member, target in table.expand(list(written)).items():
        for m in member:
            via[m] = target
        for t in target:
            expanded.setdefault(t, written.get(member[0], " ".join(member)))
    rare = max(MIN_RARE, int(total * RARE_SHARE))
    df = _wiki_counts(conn, list(expanded), max(rare + 1, total * COMMON_SHARE))
    naming = [s for s in expanded if 0 < df[s] <= rare]
    if not naming:
        return None
    # A small word tells nothing of a topic, however few pages hold it (a generated or a
    # young wiki): ranked, "how" and "does" made a hint score 300 more rows for nothing.
    informative = [s for s in expanded if 0 < df[s] < total * COMMON_SHARE
                   and expanded[s].casefold() not in STOPWORDS]
    query = Query(prompt, informative, alternatives=[(s,) for s in informative])
    try:
        top = [doc for doc, _ in rank(conn, query, Scope("d.in_pages = 1 AND d.catalog = 0"),
                                      TOP)]
    except (sqlite3.OperationalError, BadQuery):
        return None
    for doc in top:
        row = conn.execute("SELECT path, title FROM docs WHERE id = ?", (doc,)).fetchone()
        if row["path"] in told or row["path"].rpartition("/")[2].startswith("_"):
            continue
        titled = [s for s in naming if _has(conn, doc, "{title}: " + _exact(s))]
        if titled and _covers(conn, doc, row["title"], written, via, df, total):
            return Hint(row["path"], row["title"], expanded[titled[0]])
    return None


def _covers(conn: sqlite3.Connection, doc: int, title: str, written: dict[str, str],
            via: dict[str, tuple[str, ...]], df: dict[str, int], total: int) -> bool:
    """The page holds most of the prompt's content words: those of MIN_CONTENT
    letters or more, not common in the wiki, written in the page title's script (a Russian
    prompt for an English page is judged by its words the alias table carries over)."""
    script = _script(title)
    considered = [s for s, w in written.items()
                  if len(w) >= MIN_CONTENT and df.get(s, 0) < total * COMMON_SHARE
                  and (s in via or _script(w) == script)]
    if not considered:
        return True
    held = sum(1 for s in considered
               if _has(conn, doc, fts_term(s))
               or (s in via and all(_has(conn, doc, fts_term(t)) for t in via[s])))
    return 2 * held > len(considered)


def _script(text: str) -> str:
    return "cyrillic" if _CYRILLIC.search(text) else "latin"


def _has(conn: sqlite3.Connection, doc: int, match: str) -> bool:
    return conn.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? AND rowid = ?",
                        (match, doc)).fetchone() is not None
