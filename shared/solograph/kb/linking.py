"""Which links a sync resolves, and from which pages: what it costs follows what changed.

A sync resolves the links of the pages it read, and, when pages or assets came or went, the
links that may point at them now or did before. Every way a link resolves keys it by its name
(kb/resolve.py: `name_of`), so a link can point only at a page or asset of its own name: the
resolver is built from those alone, and a page that comes or goes moves only the links that
end in its name. At 5,000 pages, resolving all 64,760 links on each new page took 0.7 s a sync
and building the resolver from every path 25 ms.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from solograph.kb.resolve import ANYWHERE, Resolver, changes_with, name_of
from solograph.store import like_escape


def resolver(conn: sqlite3.Connection, pages_prefix: str, came_or_went: set[str],
             targets: Iterable[str]) -> Resolver:
    """A resolver for the links to `targets` and for those that may move with the paths of
    `came_or_went`: built from the pages and assets of their names (of every page when one of
    them is a name no page has)."""
    names = {name_of(p) for p in came_or_went} | {name_of(t) for t in targets}
    whole = bool(names & ANYWHERE)

    def named(table: str) -> list[str]:
        paths = [r[0] for r in conn.execute(f"SELECT path FROM {table}")]
        return paths if whole else [p for p in paths if name_of(p) in names]

    return Resolver(named("docs"), named("assets"), pages_prefix=pages_prefix)


def resolve_again(conn: sqlite3.Connection, resolver: Resolver, came_or_went: set[str]
                  ) -> set[str]:
    """Resolve again the links that may point elsewhere now that the pages or assets at
    `came_or_went` came or went (every other link resolves as it did); returns the pages such
    a link pointed at before or points at now, whose catalog lines may change."""
    if not came_or_went:
        return set()
    names = {name_of(p) for p in came_or_went}
    if all(n.isascii() for n in names):  # LIKE folds ASCII letters only: a prefilter
        tests = ["l.target LIKE ? ESCAPE '\\'"] * len(names) + ["l.target LIKE '%.'"]
        where = "WHERE " + " OR ".join(tests)
        params: tuple = tuple(f"%{like_escape(n)}%" for n in names)
    else:
        where, params = "", ()
    rows = [r for r in conn.execute(
        "SELECT l.id, l.target, d.path, l.asset, (SELECT path FROM docs WHERE id = l.dst) "
        f"FROM links l JOIN docs d ON d.id = l.src {where}", params)
        if changes_with(r[1], names)]
    updates: list[tuple] = []
    moved: set[str] = set()
    for lid, target, source, asset, dst_path in rows:
        page, new_asset = resolver.resolve(target, source)
        if page != dst_path or (new_asset or "") != asset:
            updates.append((page, new_asset or "", lid))
            moved.update(p for p in (page, dst_path) if p)
    conn.executemany("UPDATE links SET dst = (SELECT id FROM docs WHERE path = ?), asset = ? "
                     "WHERE id = ?", updates)
    return moved
