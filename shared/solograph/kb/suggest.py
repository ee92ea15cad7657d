"""Alias groups the KB already knows but its table lacks (`solograph kb-aliases --suggest`).

Since a missing group is a silent miss, they are read from what the pages say:

- frontmatter `aliases:` of a page: [alias..., title];
- parallel pages, the same path in two language folders (`en/concepts/money.md`,
  `ru/concepts/money.md`): [the other title, the title in the KB's main script];
- catalog lines whose label translates the page's title (`[[sandboxing|Песочница]]` for a
  page titled "Agent sandboxing"): [label, title];
- titles and headings that hold both spellings, "Атомарные свопы (Atomic Swaps)".

The last member is the term searched for the others, so it is always the spelling in the
KB's main script (Latin unless Cyrillic titles outnumber Latin ones two to one).
"""

from __future__ import annotations

import json
import re
import sqlite3

from solograph.kb.aliases import AliasTable
from solograph.text.tokens import stems

LANGUAGE_CODES = frozenset(("en", "ru", "uk", "be", "de", "fr", "es", "it", "pt", "pl", "nl",
                            "sv", "fi", "cs", "zh", "ja", "ko"))
BOTH = re.compile(r"^\s*([^()]+?)\s*\(([^()]+)\)\s*$")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")
MAX_MEMBER = 60


def script(text: str) -> str:
    cyr, lat = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyr and cyr >= lat:
        return "cyrillic"
    return "latin" if lat else ""


def pure(text: str) -> str:
    """The script of a text written in one script only, else ''."""
    cyr, lat = _CYRILLIC.search(text), _LATIN.search(text)
    return "cyrillic" if cyr and not lat else "latin" if lat and not cyr else ""


def _language_key(path: str) -> tuple[str, str] | None:
    """('*'-path, language) when one folder of `path` names a language ('en', 'wiki-ru')."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        tokens = re.split(r"[-_.]", part.lower())
        found = [t for t in tokens if t in LANGUAGE_CODES]
        if len(found) == 1:
            rest = [t if t != found[0] else "*" for t in tokens]
            return "/".join([*parts[:i], "-".join(rest), *parts[i + 1:]]), found[0]
    return None


def suggest(conn: sqlite3.Connection, table: AliasTable) -> list[dict]:
    rows = conn.execute("SELECT id, path, title, aliases, catalog FROM docs WHERE in_pages = 1 "
                        "ORDER BY path").fetchall()
    titles = [r["title"] for r in rows if not r["catalog"]]
    cyr = sum(script(t) == "cyrillic" for t in titles)
    lat = sum(script(t) == "latin" for t in titles)
    main = "cyrillic" if cyr >= 2 * max(1, lat) else "latin"
    out: dict[tuple[str, ...], dict] = {}

    def add(members: list[str], why: str, *, last_fixed: bool = False) -> None:
        members = [m.strip() for m in members if m and m.strip() and len(m) <= MAX_MEMBER]
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
    by_key: dict[str, list[sqlite3.Row]] = {}
    for r in rows:
        if r["catalog"]:
            continue
        key = _language_key(r["path"])
        if key:
            by_key.setdefault(key[0], []).append(r)
    for group in by_key.values():
        spellings = {script(r["title"]): r for r in group}
        if len(spellings) >= 2 and "latin" in spellings and "cyrillic" in spellings:
            add([spellings["cyrillic"]["title"], spellings["latin"]["title"]],
                f"parallel pages {spellings['cyrillic']['path']} and "
                f"{spellings['latin']['path']}")
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
    have = table._members
    return all(have.get(tuple(stems(m))) == target for m in members[:-1])
