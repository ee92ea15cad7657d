"""The KB's answers, composed from its parts; `solograph.reads` wraps each in one function.

Every answer first syncs the index with the folder (never stale), then reads.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from solograph.errors import BadQuery, NotIndexed
from solograph.kb import aliases, graph, hint, search, stacks, state, suggest
from solograph.kb.paths import state_dir
from solograph.kb.resolve import Resolver
from solograph.kb.sync import KbIndex


def alias_table(kb: KbIndex) -> aliases.AliasTable:
    return aliases.load(kb.conn, aliases.aliases_path(kb.root, kb.layout.pages))


def search_answer(kb: KbIndex, query: str, *, path: str | None = None, pages: bool = False,
                  expand: bool = False, limit: int = 10) -> dict:
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the notes hold: "privacy architecture"')
    q = search.build_query(kb.conn, query, alias_table(kb))
    results = search.search(kb.conn, q, path=path, pages=pages, limit=limit)
    answer = {"query": query, "path": path, "pages": pages, "count": len(results),
              "respelled": q.respelled, "aliases": q.aliases, "results": results}
    if expand:
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
    raise NotIndexed(f"no page {ref!r} in the knowledge base",
                     hint='find it first: solograph kb "words of the page"')


def get_answer(kb: KbIndex, ref: str) -> dict:
    """One page, or with `#Heading` one section and the sections under it."""
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
            raise NotIndexed(f"no heading {heading!r} in {row['path']}",
                             hint="headings: " + "; ".join(
                                 dict.fromkeys(s["heading"] for s in sections if s["heading"]))
                             [:400])
        prefix = " > ".join(chosen)
        picked = [s for s in sections if s["heading"] == prefix
                  or s["heading"].startswith(prefix + " > ")]
        section, line = prefix, picked[0]["line"]
        text = "\n\n".join(s["text"] for s in picked)
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


def graph_answer(kb: KbIndex, *, path: str | None = None, page: str | None = None,
                 check: bool = False) -> dict:
    if page:
        row = find_doc(kb, page)
        return {"page": row["path"], "title": row["title"], **graph.page_links(kb.conn,
                                                                                row["id"])}
    return graph.report(kb.conn, path=path, check=check)


def hint_answer(kb: KbIndex, prompt: str, *, session: str | None, home: Path) -> dict:
    """The hint for one prompt; with a session, each page is named once in it."""
    folder = state_dir(home)
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


def aliases_answer(kb: KbIndex, *, suggested: bool = False) -> dict:
    table = alias_table(kb)
    file = aliases.aliases_path(kb.root, kb.layout.pages)
    answer: dict = {"file": str(file), "groups": len(table)}
    if suggested:
        found = suggest.suggest(kb.conn, table, root=kb.root, layout=kb.layout)
        answer["suggested"] = found
        answer["yaml"] = aliases.to_yaml([s["group"] for s in found])
    else:
        answer["table"] = [list(g) for g in table.groups]
    return answer
