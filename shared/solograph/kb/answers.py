"""The KB's answers, composed from its parts: kb_search, kb_get, kb_graph, kb_hint and
kb_aliases. `solograph.reads` syncs the index with the folder first (never stale), then calls
them with the open index.
"""

from __future__ import annotations

import sqlite3

from solograph.config import CONFIG_FILE
from solograph.errors import BadQuery, NotFound
from solograph.kb import aliases, search
from solograph.kb.layout import missing_folders
from solograph.kb.resolve import Resolver
from solograph.kb.store import KbIndex
from solograph.text.plural import plural


def alias_table(kb: KbIndex) -> aliases.AliasTable:
    return aliases.load(kb.conn, aliases.aliases_path(kb.root, kb.layout.pages))


def kb_search(kb: KbIndex, *, query: str | None = None, path: str | None = None,
              pages: bool = False, expand: bool = False, limit: int = 10,
              get: str | None = None) -> dict:
    """Pages of the knowledge base for the query, each with its best section; with no path
    the whole KB and the wiki in turn; `expand` adds up to 3 pages the hits link to most;
    `get` reads one page (or `#Heading` section) whole instead: the answer is then the page
    alone, exactly what `kb_get` answers, so `kb get --json` and the tool agree."""
    if get is not None and get.strip():
        return kb_get(kb, ref=get)
    if not query or not query.strip():
        raise BadQuery("empty query", hint='give words the notes hold: "privacy architecture"'
                       ', or `get` with a page\'s path to read it')
    table = alias_table(kb)
    q = search.build_query(kb.conn, query, table)
    results = search.search(kb.conn, q, path=path, pages=pages, limit=limit)
    answer: dict = {"query": query, "path": path, "pages": pages, "count": len(results),
              "respelled": q.respelled, "aliases": q.aliases, "results": results}
    warnings = [table.problem] if table.problem else []
    warnings += layout_warnings(kb)
    if warnings:
        answer["warnings"] = warnings
    if expand:
        answer["expanded"] = expanded(kb.conn, results)
    return answer


def expanded(conn: sqlite3.Connection, results: list[dict]) -> list[dict]:
    """Up to 3 pages the `results` link to most (`expand`)."""
    from solograph.kb import graph

    ids = []
    for r in results:
        row = conn.execute("SELECT id FROM docs WHERE path = ?", (r["path"],)).fetchone()
        if row is not None:  # a page gone meanwhile links to nothing
            ids.append(row[0])
    return graph.expand(conn, ids)


def layout_warnings(kb: KbIndex) -> list[str]:
    return missing_folders(kb.root, kb.layout)


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
             check: bool = False, nodes: bool = False) -> dict:
    """The wiki's link graph (or a folder's): hubs, connectors, orphans, broken links, pages
    missing from index.md; with `page`, its backlinks and links; `check`: problems only."""
    from solograph.kb import graph

    if page:
        row = find_doc(kb, page)
        return {"page": row["path"], "title": row["title"], **graph.page_links(kb.conn,
                                                                                row["id"])}
    answer = graph.report(kb.conn, path=path, check=check, drawing=nodes)
    if not path and layout_warnings(kb):
        answer["warnings"] = layout_warnings(kb)
    return answer


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


def kb_compact(kb: KbIndex, *, folder: str | None = None, min_chars: int = 2000,
               days: int = 7, include_all: bool = False, now: float | None = None) -> dict:
    """The inbox notes ready to be compacted into the wiki: in the inbox folder (`kb: inbox:`,
    default 3-inbox/, or `folder`), longer than `min_chars`, older than `days`, and not marked
    `compacted: true`; with `include_all`, every note there, each saying why it is not ready.
    It only lists: nothing is written."""
    import time

    from solograph.freshness import iso

    if min_chars < 0 or days < 0:
        raise BadQuery("--min-chars and --days must be 0 or more")
    where = (folder if folder is not None else kb.layout.inbox).strip().strip("/")
    if ".." in where.split("/"):
        raise BadQuery(f"{where!r} is not a folder inside the KB")
    prefix = f"{where}/" if where else ""
    now = time.time() if now is None else now
    documents = []
    for row in kb.conn.execute(
            "SELECT path, title, length(body) AS chars, mtime_ns, compacted FROM docs "
            "WHERE path >= ? AND path < ? AND catalog = 0 ORDER BY mtime_ns, path",
            (prefix, prefix + "\U0010ffff")):
        age = max(0.0, now - row["mtime_ns"] / 1e9) / 86400
        why = ("marked compacted: true" if row["compacted"]
               else f"{row['chars']} characters, under {min_chars}" if row["chars"] < min_chars
               else f"{age:.1f} days old, under {days}" if age < days else "")
        if why and not include_all:
            continue
        documents.append({"path": row["path"], "title": row["title"], "chars": row["chars"],
                          "age_days": round(age, 1), "modified": iso(row["mtime_ns"]),
                          "compacted": bool(row["compacted"]), "ready": not why, "why": why})
    ready = sum(d["ready"] for d in documents)
    answer: dict = {"dir": where or ".", "min_chars": min_chars, "days": days,
                    "all": include_all, "count": len(documents), "ready": ready,
                    "documents": documents,
                    "summary": f"{plural(ready, 'note')} in {where or '.'}/ ready to compact "
                               f"(over {min_chars} characters, older than {days} days, not "
                               "compacted: true)"}
    if not (kb.root / where).is_dir():
        answer["warnings"] = [f"the KB has no {where}/ folder: set `kb: inbox:` in "
                              f"{kb.root / CONFIG_FILE} to the folder of your inbox "
                              "notes, or give --dir"]
    return answer
