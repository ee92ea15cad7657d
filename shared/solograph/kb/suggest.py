"""Alias groups the KB already knows but its table lacks (`solograph kb-aliases --suggest`).

Since a missing group is a silent miss, they are read from what the pages say:

- frontmatter `aliases:` of a page: [alias..., title];
- parallel pages, one page in two languages (twins.py: the same path in two language folders,
  in the wiki or beside it, or one frontmatter key): [the other title, the title in the wiki's
  script];
- catalog lines whose label translates the page's title (`[[sandboxing|Песочница]]` for a
  page titled "Agent sandboxing"): [label, title];
- titles and headings that hold both spellings, "Атомарные свопы (Atomic Swaps)".

The last member is the term searched for the others, so it is the spelling in the wiki's
script: that of `kb: language:` when set, else of the wiki's pages (their frontmatter
`language`, else their titles; Latin unless Cyrillic outnumbers it two to one). Sources
elsewhere in the KB never vote: a wiki in English over Russian source articles points its
groups to English. A URL or a path (`/practical-phoenix`, a static site's old address) is no
member.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from solograph.kb.aliases import AliasTable
from solograph.kb.layout import Layout
from solograph.kb.names import is_address
from solograph.kb.twins import language_key, twins
from solograph.text.tokens import stems

BOTH = re.compile(r"^\s*([^()]+?)\s*\(([^()]+)\)\s*$")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")
MAX_MEMBER = 60
CYRILLIC_LANGUAGES = frozenset(("ru", "uk", "be", "bg", "sr", "mk", "kk", "ky", "tg", "mn"))


def script(text: str) -> str:
    cyr, lat = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyr and cyr >= lat:
        return "cyrillic"
    return "latin" if lat else ""


def pure(text: str) -> str:
    """The script of a text written in one script only, else ''."""
    cyr, lat = _CYRILLIC.search(text), _LATIN.search(text)
    return "cyrillic" if cyr and not lat else "latin" if lat and not cyr else ""


def language_script(code: str) -> str:
    return "cyrillic" if code.lower().split("-")[0].split("_")[0] in CYRILLIC_LANGUAGES \
        else "latin"


def _in_script(title: str, wanted: str) -> str:
    """The half of "Мультиподпись (Multisig)" written in `wanted` when the other half is in
    another script, else the whole title ("The Blocksize War (2015-2017)")."""
    both = BOTH.match(title)
    if both:
        halves = pure(both.group(1)), pure(both.group(2))
        if wanted in halves and "" not in halves and halves[0] != halves[1]:
            return both.group(1) if halves[0] == wanted else both.group(2)
    return title


def page_script(row: sqlite3.Row) -> str:
    """The script a page is written in: its frontmatter language, else the language its
    folder names, else its title's ("Сеть Lightning" is Russian although most of its letters
    are Latin)."""
    if row["language"]:
        return language_script(row["language"])
    found = language_key(row["path"])
    if found:
        return language_script(found[1])
    return "cyrillic" if _CYRILLIC.search(row["title"]) else script(row["title"])


def main_script(rows: list[sqlite3.Row], layout: Layout) -> str:
    """The script the wiki writes in: its stated language, else its pages'."""
    if layout.language:
        return language_script(layout.language)
    votes = [language_script(r["language"]) if r["language"] else script(r["title"])
             for r in rows if r["in_pages"] and not r["catalog"]]
    cyr, lat = votes.count("cyrillic"), votes.count("latin")
    return "cyrillic" if cyr >= 2 * max(1, lat) else "latin"


def suggest(conn: sqlite3.Connection, table: AliasTable, *, root: Path,
            layout: Layout) -> list[dict]:
    rows = conn.execute("SELECT id, path, title, aliases, catalog, language, in_pages "
                        "FROM docs WHERE in_pages = 1 ORDER BY path").fetchall()
    main = main_script(rows, layout)
    out: dict[tuple[str, ...], dict] = {}

    def add(members: list[str], why: str, *, last_fixed: bool = False) -> None:
        members = [m.strip() for m in members if m and m.strip() and len(m) <= MAX_MEMBER
                   and not is_address(m)]
        members = list(dict.fromkeys(members))
        if len(members) < 2:
            return
        if not last_fixed:  # the main script's spelling goes last
            members.sort(key=lambda m: script(m) == main)
        if _known(table, members):
            return
        key = tuple(m.casefold() for m in members)
        if key not in out and len({tuple(stems(m)) for m in members}) > 1:
            out[key] = {"group": members, "why": why}

    for r in rows:
        for alias in json.loads(r["aliases"]):
            add([alias, r["title"]], f"frontmatter aliases of {r['path']}", last_fixed=True)
        both = BOTH.match(r["title"])
        if both and pure(both.group(1)) and pure(both.group(2)) \
                and pure(both.group(1)) != pure(both.group(2)):
            add([both.group(1), both.group(2)], f"title of {r['path']}")
    for group, reason in twins(conn, root):
        by_script: dict[str, sqlite3.Row] = {}
        for r in sorted(group, key=lambda r: (not r["in_pages"], len(r["path"]))):
            by_script.setdefault(page_script(r), r)
        if "latin" in by_script and "cyrillic" in by_script:
            other = "latin" if main == "cyrillic" else "cyrillic"
            first, last = by_script[other], by_script[main]
            add([_in_script(first["title"], other), _in_script(last["title"], main)],
                f"parallel pages {by_script['cyrillic']['path']} and "
                f"{by_script['latin']['path']} ({reason})", last_fixed=True)
    for label, title, path in conn.execute(
            "SELECT l.label, d.title, d.path FROM links l JOIN docs s ON s.id = l.src "
            "JOIN docs d ON d.id = l.dst WHERE s.catalog = 1 AND l.label != '' "
            "AND d.in_pages = 1 ORDER BY d.path"):
        if script(label) and script(title) and script(label) != script(title):
            add([label, title], f"catalog line for {path}", last_fixed=True)
    for heading, path in conn.execute(
            "SELECT DISTINCT s.heading, d.path FROM sections s JOIN docs d ON d.id = s.doc "
            "WHERE d.in_pages = 1 AND s.heading LIKE '%(%)%' ORDER BY d.path"):
        last = heading.rpartition(" > ")[2]
        both = BOTH.match(last)
        if both and pure(both.group(1)) and pure(both.group(2)) \
                and pure(both.group(1)) != pure(both.group(2)):
            add([both.group(1), both.group(2)], f"heading in {path}")
    return list(out.values())


def _known(table: AliasTable, members: list[str]) -> bool:
    """True when the table already sends the first members to the last one."""
    target = tuple(stems(members[-1]))
    have = table.members
    return all(have.get(tuple(stems(m))) == target for m in members[:-1])
