"""Parallel pages: one page written in two languages, found the ways bilingual KBs lay them out.

- the same path under two language folders, `en/concepts/money.md` and `ru/concepts/money.md`,
  inside the wiki or beside it (`pages: wiki-en/` with its Russian twin in `wiki-ru/`);
- one frontmatter key under any file names: the same `translationKey` (Hugo) or `id`, a
  `permalink` that differs only by a language segment (`/en/money/`, `/ru/money/`), or, on
  pages whose `lang` differ, the same `slug` (else the file name less a language suffix,
  `money.ru.md`).

A key that more than MAX_SHARING pages hold (a template's `id`) pairs nothing, nor a slug two
pages of one language share (`overview.md` in two folders). Frontmatter is read from the files
(only the keys, never stored or shown), so this costs one read per page: it serves
`kb-aliases --suggest`, not a search.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path, PurePosixPath

LANGUAGE_CODES = frozenset(("en", "ru", "uk", "be", "de", "fr", "es", "it", "pt", "pl", "nl",
                            "sv", "fi", "cs", "zh", "ja", "ko", "bg", "sr", "kk"))
MAX_SHARING = 4
_HEAD = 16_384  # bytes of a file read for its frontmatter
_KEYS = {"translationkey": "translationKey", "translation_key": "translationKey",
         "id": "id", "permalink": "permalink", "slug": "slug"}


def language_key(path: str) -> tuple[str, str] | None:
    """('*'-path, language) when one folder of `path` names a language ('en', 'wiki-ru')."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        tokens = re.split(r"[-_.]", part.lower())
        found = [t for t in tokens if t in LANGUAGE_CODES]
        if len(found) == 1:
            rest = [t if t != found[0] else "*" for t in tokens]
            return "/".join([*parts[:i], "-".join(rest), *parts[i + 1:]]), found[0]
    return None


def _frontmatter(root: Path, rel: str) -> dict:
    from solograph.kb.markdown import split_frontmatter

    try:
        with open(root / rel, "rb") as f:
            head = f.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return {}
    meta = split_frontmatter(head.lstrip("\ufeff").replace("\r\n", "\n"))[0]
    return {_KEYS[k.lower()]: str(v).strip() for k, v in meta.items()
            if isinstance(k, str) and k.lower() in _KEYS and isinstance(v, str | int)
            and str(v).strip()}


def _permalink(value: str) -> str:
    parts = [p for p in value.lower().strip("/").split("/") if p and p not in LANGUAGE_CODES]
    return "/".join(parts)


def _slug(path: str, meta: dict) -> str:
    if meta.get("slug"):
        return meta["slug"].lower()
    stem = PurePosixPath(path).stem.lower()
    return re.sub(r"[._-](?:" + "|".join(sorted(LANGUAGE_CODES)) + r")$", "", stem)


def twins(conn: sqlite3.Connection, root: Path) -> list[tuple[list[sqlite3.Row], str]]:
    """Groups of parallel pages, at least one in the wiki, each with what pairs them."""
    rows = [r for r in conn.execute(
        "SELECT id, path, title, language, in_pages FROM docs WHERE catalog = 0 ORDER BY path")
        if r["in_pages"] or language_key(r["path"])]
    keys: dict[tuple[str, str], list[int]] = {}
    slugs: dict[str, list[sqlite3.Row]] = {}
    for r in rows:
        found = language_key(r["path"])
        if found:
            keys.setdefault(("the same path in two language folders", found[0]), []).append(
                r["id"])
        meta = _frontmatter(root, r["path"])
        for name in ("translationKey", "id"):
            if meta.get(name):
                keys.setdefault((f"the same {name}", meta[name]), []).append(r["id"])
        if meta.get("permalink") and _permalink(meta["permalink"]):
            keys.setdefault(("the same permalink", _permalink(meta["permalink"])), []).append(
                r["id"])
        if r["language"]:
            slugs.setdefault(_slug(r["path"], meta), []).append(r)
    for slug, same in slugs.items():
        if len({r["language"] for r in same}) == len(same) > 1:
            keys[("the same slug in two languages", slug)] = [r["id"] for r in same]
    parent: dict[int, int] = {}
    why: dict[int, str] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (reason, _value), docs in keys.items():
        if not 1 < len(docs) <= MAX_SHARING:
            continue
        for doc in docs[1:]:
            a, b = find(docs[0]), find(doc)
            if a != b:
                parent[b] = a
                why[a] = why.get(a) or why.get(b) or reason
    by_id = {r["id"]: r for r in rows}
    groups: dict[int, list[sqlite3.Row]] = {}
    for doc in parent:
        groups.setdefault(find(doc), []).append(by_id[doc])
    out = []
    for head, group in groups.items():
        if any(r["in_pages"] for r in group) and len(group) > 1:
            out.append((sorted(group, key=lambda r: r["path"]), why.get(head, "")))
    return sorted(out, key=lambda g: g[0][0]["path"])
