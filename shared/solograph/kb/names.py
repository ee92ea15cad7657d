"""Whether a query names a page, by its title or by one of its frontmatter aliases.

Three grades, strongest first; a page the query names ranks above those it does not:

- exact: the query's words are a name's words, as stems ("agent jail", the page's old name);
- whole: one name holds every word of the query (a title word may extend a query word, as a
  title typed half-way does: "byzantine gen");
- around: every word of a name is in the query and they are most of it, a question around
  the page's name ("how do we handle the cantillon effect?" names "Cantillon effect"); a
  name of two words in a query of three is not enough ("consensus bitcoin security" does not
  name "Bitcoin security" above a page whose one section holds all three words).

Aliases count by whole stems only: an alias reached by a prefix (the query "run", the alias
"runner") names nothing, since BM25 already weighs the alias among the page's names. An alias
that is a URL or a path (a static-site generator's old address) is no name.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from functools import lru_cache

from solograph.frozen import Frozen
from solograph.text.tokens import STOPWORDS, stem, words

MIN_PREFIX = 3  # a shorter query word extends no title word
STOP_STEMS = frozenset(stem(w) for w in STOPWORDS)
_PARTS = re.compile(r"^\s*([^()]+?)\s*\(([^()]+)\)\s*$")
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?/|/|\.html?$|^#", re.IGNORECASE)


def is_address(alias: str) -> bool:
    """A URL, a path or a fragment (`/practical-phoenix`, `https://x.org/a`, `#top`)."""
    return bool(_ADDRESS.search(alias.strip()))


def name_stems(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(text) if w not in STOPWORDS)


def title_names(title: str) -> list[str]:
    """The title, and for "Мультиподпись (Multisig)" or "SegWit (Segregated Witness)" each of
    its two parts: a translation or an expansion is a name of the page as much as the title."""
    found = _PARTS.match(title)
    return [title, found.group(1), found.group(2)] if found else [title]


# File names that name no page: every folder of a wiki may hold one.
GENERIC_FILES = frozenset(("index", "readme", "overview", "glossary", "log", "home", "_index",
                           "contents", "summary", "changelog", "todo", "notes"))


class Name(Frozen):
    stems: tuple[str, ...]
    whole_words: bool  # only whole words count (an alias); a title's may extend query words
    kind: int  # 0 the title, 1 an alias, 2 a part of the title, 3 the file name


class Names(Frozen):
    names: tuple[Name, ...]

    @classmethod
    def of(cls, title: str, aliases: Iterable[str], path: str = "") -> Names:
        out = [Name(name_stems(t), False, 0 if i == 0 else 2)
               for i, t in enumerate(title_names(title))]
        out += [Name(name_stems(a), True, 1) for a in aliases if not is_address(a)]
        # The file name is a name too, the one [[links]] use: in a bilingual wiki the Russian
        # page `Двойная трата` is `double-spend.md`, which an English title names, where a
        # glossary or an index that lists both would otherwise come first.
        slug = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if slug.casefold() not in GENERIC_FILES:
            out.append(Name(name_stems(slug.replace("-", " ").replace("_", " ")), True, 3))
        return cls(tuple(n for n in out if n.stems))


def _extends(name_word: str, query_word: str) -> bool:
    return name_word == query_word or (len(query_word) >= MIN_PREFIX
                                       and name_word.startswith(query_word))


def _held(name: Name, everything: set[str]) -> bool:
    """Every word of the name is among the words searched."""
    if name.whole_words:
        return set(name.stems) <= everything
    return all(any(_extends(w, q) for q in everything) for w in name.stems)


def grade(names: Names, readings: list[set[str]], everything: set[str],
          ) -> tuple[int, int, int]:
    """A sort key, lower first: (0 exact, 1 whole, 2 around, 3 not named; the title before an
    alias before a part of the title; longer names first). `readings` are the query's words
    as typed and with the alias table's terms in place of their members; `everything`, every
    term searched (respellings too)."""
    best = (3, 0, 0)
    for name in names.names:
        have = set(name.stems)
        for asked in readings:
            if have == asked:
                best = min(best, (0, name.kind, -len(have)))
                continue
            if len(asked) < 2:
                continue
            if asked <= have if name.whole_words else all(
                    any(_extends(w, q) for w in name.stems) for q in asked):
                best = min(best, (1, name.kind, -len(have)))
            elif _held(name, everything) and 2 * len(asked) < 3 * len(have):
                best = min(best, (2, name.kind, -len(have)))
    return best


def names_of(conn: sqlite3.Connection, docs: list[int]) -> dict[int, Names]:
    if not docs:
        return {}
    rows = conn.execute(f"SELECT id, title, aliases, path, in_pages FROM docs WHERE id IN "
                        f"({','.join('?' * len(docs))})", docs)
    # Only a wiki page's file name is a name: notes and sources elsewhere are named by
    # whatever saved them (a clipped article's slug is its source's, not the KB's).
    return {doc: _names(title, aliases or "[]", path if in_pages else "")
            for doc, title, aliases, path, in_pages in rows}


@lru_cache(maxsize=8192)
def _names(title: str, aliases: str, path: str) -> Names:
    """A page's names from what the index holds of it, kept for the process: stemming them
    again cost a search at 5,000 pages 1.2 ms, each read asking for the same few hundred
    pages."""
    return Names.of(title, json.loads(aliases), path)


def covered(names: Names, readings: list[set[str]], everything: set[str]) -> bool:
    """Every word of the title (or of an alias) is in the query, and they are at least half of
    it: a question around the page's name, whose other words need not be on the page."""
    return any(name.kind < 2 and _held(name, everything)
               and any(len(r) > 1 and 2 * len(name.stems) >= len(r) for r in readings)
               for name in names.names)
