"""The KB's answers, composed from its parts: kb_search, kb_get, kb_graph, kb_hint and
kb_aliases. `solograph.reads` syncs the index with the folder first (never stale), then calls
them with the open index.
"""

from __future__ import annotations

import sqlite3

from solograph.errors import BadQuery, NotFound
from solograph.freshness import Freshness
from solograph.kb import aliases, search
from solograph.kb.resolve import Resolver
from solograph.kb.store import KbIndex
from solograph.typed import NotRequired, TypedDict


class PageHit(TypedDict):
    path: str
    title: str
    line: int
    section: str
    summary: str
    snippet: str
    score: float
    wiki: bool


class KbSearch(TypedDict):
    query: str
    path: str | None
    pages: bool
    count: int
    respelled: dict[str, str]
    aliases: dict[str, str]
    results: list[PageHit]
    expanded: NotRequired[list[dict]]
    freshness: Freshness
    note: NotRequired[str]


class KbPage(TypedDict):
    path: str
    title: str
    description: str
    index_line: str
    tags: list
    aliases: list
    problem: str
    section: str
    line: int
    text: str
    headings: list[str]
    links: list[dict]
    backlinks: list[dict]
    freshness: Freshness
    note: NotRequired[str]


def alias_table(kb: KbIndex) -> aliases.AliasTable:
    return aliases.load(kb.conn, aliases.aliases_path(kb.root, kb.layout.pages))


def kb_search(kb: KbIndex, *, query: str, path: str | None = None, pages: bool = False,
              expand: bool = False, limit: int = 10) -> dict:
    """Pages of the knowledge base for the query, each with its best section; with no path
    the whole KB and the wiki in turn; `expand` adds up to 3 pages the hits link to most."""
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the notes hold: "privacy architecture"')
    table = alias_table(kb)
    q = search.build_query(kb.conn, query, table)
    results = search.search(kb.conn, q, path=path, pages=pages, limit=limit)
    answer = {"query": query, "path": path, "pages": pages, "count": len(results),
              "respelled": q.respelled, "aliases": q.aliases, "results": results}
    if table.problem:
        answer["warnings"] = [table.problem]
    if expand:
        from solograph.kb import graph

        ids = [kb.conn.execute("SELECT id FROM docs WHERE path = ?", (r["path"],)).fetchone()[0]
               for r in results]
        answer["expanded"] = graph.expand(kb.conn, ids)
    return answer


def find_doc(kb: KbIndex, ref: str) -> sqlite3.Row:
    """A page by its path from the KB root (with or without .md), else as a [[link]] would
    find it from the wiki's root."""
    target = ref.strip().strip("/")
    row = kb.conn.execute("SELECT * FROM docs WHERE path = ? OR path = ? OR path = ?",
                          (target, target + ".md", target + ".markdown")).fetchone()
    if row is not None:
        return row
    resolver = Resolver((r[0] for r in kb.conn.execute("SELECT path FROM docs")),
                        pages_prefix=kb.layout.pages_prefix)
    found, _ = resolver.resolve(target, kb.layout.pages_prefix + "_")
    if found:
        return kb.conn.execute("SELECT * FROM docs WHERE path = ?", (found,)).fetchone()
    raise NotFound(f"no page {ref!r} in the knowledge base",
                     hint='find it first: solograph kb "words of the page"')


def kb_get(kb: KbIndex, *, ref: str) -> dict:
    """One page (`wiki/x.md`, or a [[link]] target), or with `#Heading` one section and the
    sections under it."""
    if not ref or not ref.strip():
        raise BadQuery("no page given", hint="give a path from a search result: wiki/x.md")
    page_ref, _, heading = ref.partition("#")
    row = find_doc(kb, page_ref)
    sections = kb.conn.execute("SELECT heading, line, text FROM sections WHERE doc = ? "
                               "ORDER BY seq", (row["id"],)).fetchall()
    text, section, line = row["body"], "", 1
    if heading.strip():
        wanted = " ".join(heading.split()).casefold()
        chosen = None
        for s in sections:
            parts = [" ".join(p.split()).casefold() for p in s["heading"].split(" > ")]
            if wanted in parts:
                chosen = s["heading"].split(" > ")[:parts.index(wanted) + 1]
                break
        if chosen is None:
            raise NotFound(f"no heading {heading!r} in {row['path']}",
                             hint="headings: " + "; ".join(
                                 dict.fromkeys(s["heading"] for s in sections if s["heading"]))
                             [:400])
        prefix = " > ".join(chosen)
        picked = [s for s in sections if s["heading"] == prefix
                  or s["heading"].startswith(prefix + " > ")]
        section, line = prefix, picked[0]["line"]
        text = "\n\n".join(s["text"] for s in picked)
    from solograph.kb import graph

    links = graph.page_links(kb.conn, row["id"])
    return {"path": row["path"], "title": row["title"], "description": row["description"],
            "index_line": row["index_line"], "tags": _json(row["tags"]),
            "aliases": _json(row["aliases"]), "problem": row["problem"], "section": section,
            "line": line, "text": text,
            "headings": list(dict.fromkeys(s["heading"] for s in sections if s["heading"])),
            "links": links["links"], "backlinks": links["backlinks"]}


def _json(text: str) -> list:
    import json

    return json.loads(text)


def kb_graph(kb: KbIndex, *, path: str | None = None, page: str | None = None,
             check: bool = False) -> dict:
    """The wiki's link graph (or a folder's): hubs, connectors, orphans, broken links, pages
    missing from index.md; with `page`, its backlinks and links; `check`: problems only."""
    from solograph.kb import graph

    if page:
        row = find_doc(kb, page)
        return {"page": row["path"], "title": row["title"], **graph.page_links(kb.conn,
                                                                                row["id"])}
    return graph.report(kb.conn, path=path, check=check)


def kb_hint(kb: KbIndex, *, prompt: str, session: str | None = None) -> dict:
    """The prompt hook's pointer to a wiki page, or none; with a session, each page is named
    once in it."""
    from solograph.kb import hint, stacks, state
    from solograph.kb.paths import state_dir

    folder = state_dir(kb.settings.home)
    seen = state.load(folder, session) if session else {"pages": [], "maps": []}
    found = hint.find(kb.conn, prompt, alias_table(kb), told=set(seen["pages"]))
    if found and session:
        seen["pages"].append(found.path)
        state.save(folder, session, seen)
    stack = None
    if kb.layout.stacks and stacks.asks_for_stack(prompt):
        stack = stacks.answer(prompt, stacks.templates(kb.root, kb.layout.stacks), kb.root)
    return {"session": session, "hint": found.text if found else None,
            "pages": [found.path] if found else [], "stack": stack}


def kb_aliases(kb: KbIndex, *, suggest: bool = False) -> dict:
    """The alias table, or (`suggest`) the groups the KB already knows and the table lacks."""
    suggested = suggest
    table = alias_table(kb)
    file = aliases.aliases_path(kb.root, kb.layout.pages)
    answer: dict = {"file": str(file), "groups": len(table)}
    if table.problem:
        answer["warnings"] = [table.problem]
    if suggested:
        from solograph.kb.suggest import suggest as suggest_groups

        found = suggest_groups(kb.conn, table, root=kb.root, layout=kb.layout)
        answer["suggested"] = found
        answer["yaml"] = aliases.to_yaml([s["group"] for s in found])
    else:
        answer["table"] = [list(g) for g in table.groups]
    return answer
