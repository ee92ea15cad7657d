"""Where a [[link]] points: a page (or a file, for embeds) of the KB, or nowhere.

In order: a path relative to the linking page (`./x`, `../x`); a path from the KB root; a
path from the wiki folder; the end of a page's path (`concepts/taproot` finds
`wiki/en/concepts/taproot.md`; Obsidian's `[[Page Name]]` is the shortest such end), the page
nearest the linking one winning among several; last, a path whose first folder names the
language folder it lives in under another name (`[[en/concepts/x]]` for
`wiki-en/concepts/x.md`, as Quartz publishes `wiki-en/` at `/en/`). Case is ignored, as
Obsidian does.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable

MARKDOWN = (".md", ".markdown")
_TOKENS = re.compile(r"[-_. ]+")


def strip_md(path: str) -> str:
    low = path.lower()
    for ext in MARKDOWN:
        if low.endswith(ext):
            return path[: -len(ext)]
    return path


# Names no page or asset has: a target ending so (`../..`) may point anywhere once normalised.
ANYWHERE = frozenset({".", ".."})


def name_of(path: str) -> str:
    """What any way of resolving keys a link or a page by last: its file name, casefolded,
    without a markdown extension. A link can point at a page or an asset only when the two
    have the same name (a relative target named ANYWHERE excepted)."""
    return strip_md(path.strip().replace("\\", "/").rpartition("/")[2]).casefold()


def changes_with(target: str, names: set[str]) -> bool:
    """Whether link `target` may resolve differently once pages or assets named `names` come
    or go."""
    name = name_of(target)
    return name in names or name in ANYWHERE


class Resolver:
    """Built once from every page path and asset path of the KB."""

    def __init__(self, pages: Iterable[str], assets: Iterable[str] = (), *,
                 pages_prefix: str = "") -> None:
        self.pages_prefix = pages_prefix
        self._exact: dict[str, str] = {}
        self._ends: dict[str, list[str]] = defaultdict(list)
        for path in pages:
            self.add_page(path)
        self._assets: dict[str, str] = {}
        self._asset_ends: dict[str, list[str]] = defaultdict(list)
        for path in assets:
            key = path.casefold()
            self._assets[key] = path
            parts = key.split("/")
            for i in range(len(parts)):
                self._asset_ends["/".join(parts[i:])].append(path)

    def add_page(self, path: str) -> None:
        key = strip_md(path).casefold()
        self._exact[key] = path
        parts = key.split("/")
        for i in range(len(parts)):
            self._ends["/".join(parts[i:])].append(path)

    def resolve(self, target: str, source: str) -> tuple[str | None, str | None]:
        """(page path, asset path) for a link `target` written in page `source`; both None
        when it points nowhere."""
        raw = target.strip().replace("\\", "/")
        if not raw:  # [[#Heading]]: the page itself
            return source, None
        here = posixpath.dirname(source)
        if raw.startswith(("./", "../")):
            raw = posixpath.normpath(posixpath.join(here, raw))
            if raw.startswith("../"):
                return None, None
        raw = raw.lstrip("/")
        stem = strip_md(raw)
        suffix = posixpath.splitext(raw)[1].lower()
        if suffix and suffix not in MARKDOWN and stem == raw:
            return None, self._asset(raw.casefold(), here)
        key = stem.casefold()
        for candidate in (key, (self.pages_prefix + key).casefold()):
            if candidate in self._exact:
                return self._exact[candidate], None
        found = self._ends.get(key)
        if found:
            return nearest(found, source), None
        page = self._renamed_root(key, source)
        if page:
            return page, None
        return None, self._asset(raw.casefold(), here)

    def _renamed_root(self, key: str, source: str) -> str | None:
        first, _, rest = key.partition("/")
        if not rest:
            return None
        chosen = [p for p in self._ends.get(rest, ())
                  if any(first in _TOKENS.split(part)
                         for part in strip_md(p).casefold()[: -len(rest)].split("/"))]
        return nearest(chosen, source) if chosen else None

    def _asset(self, key: str, here: str) -> str | None:
        if key in self._assets:
            return self._assets[key]
        local = posixpath.normpath(posixpath.join(here, key)) if here else key
        if local in self._assets:
            return self._assets[local]
        found = self._asset_ends.get(key)
        return nearest(found, here + "/x") if found else None


def nearest(paths: list[str], source: str) -> str:
    """The path sharing the most folders with `source`; then the shortest; then by name."""
    if len(paths) == 1:
        return paths[0]
    here = source.split("/")[:-1]

    def shared(path: str) -> int:
        n = 0
        for a, b in zip(here, path.split("/")[:-1], strict=False):
            if a != b:
                break
            n += 1
        return n

    return min(paths, key=lambda p: (-shared(p), p.count("/"), p))
