"""The link graph, read from the links recorded at sync, so it is as fresh as search.

Within a scope (the wiki unless a path is given): hubs (most linked to), connectors (pages on
the most shortest paths between others), orphans (no other page links to them; the catalog
does not count, since it lists every page by design), broken links (no page, or no such
heading on it), and pages missing from index.md (a catalog in their folder or above exists,
and none of them links to the page). Catalogs and `_*` paths (templates, the alias table) are
neither orphans nor missing, and expand_graph never adds them.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict, deque
from dataclasses import dataclass

from solograph.kb.paths import folder_condition
from solograph.limits import bounded

TOP = 10
EXPAND = 3


def special(path: str) -> bool:
    """Templates and tables, not content: any folder or file name starting with '_'."""
    return any(part.startswith("_") for part in path.split("/"))


@dataclass(frozen=True)
class Node:
    id: int
    path: str
    title: str
    catalog: bool
    problem: str


def scope_where(path: str | None) -> tuple[str, tuple]:
    bounded("folder", path)
    if path and path.strip().strip("/") in ("", "."):
        return "1", ()
    if path:
        prefix = path.strip().strip("/")
        return folder_condition(prefix)
    return "d.in_pages = 1", ()


def nodes(conn: sqlite3.Connection, path: str | None) -> dict[int, Node]:
    where, params = scope_where(path)
    return {r[0]: Node(r[0], r[1], r[2], bool(r[3]), r[4]) for r in conn.execute(
        f"SELECT d.id, d.path, d.title, d.catalog, d.problem FROM docs d WHERE {where} "
        "ORDER BY d.path", params)}


def report(conn: sqlite3.Connection, *, path: str | None = None, check: bool = False,
           drawing: bool = False) -> dict:
    scope = nodes(conn, path)
    links = [r for r in conn.execute(
        # By the source's path, not its id: ids follow the order pages were first read in.
        "SELECT l.src, l.dst, l.target, l.heading, l.line, l.asset FROM links l "
        "JOIN docs d ON d.id = l.src ORDER BY d.path, l.line, l.id")
        if r[0] in scope]
    edges = {(s, d) for s, d, *_ in links if d is not None and d != s and d in scope}
    content = {i for i, n in scope.items() if not n.catalog and not special(n.path)}
    inbound: dict[int, set[int]] = defaultdict(set)
    outbound: dict[int, set[int]] = defaultdict(set)
    for s, d in edges:
        outbound[s].add(d)
        if not scope[s].catalog:
            inbound[d].add(s)
    broken = _broken(conn, scope, links)
    orphans = [scope[i].path for i in sorted(content, key=lambda i: scope[i].path)
               if not inbound[i]]
    missing = _missing_from_index(scope, content, edges)
    frontmatter = [{"path": n.path, "problem": n.problem} for n in scope.values() if n.problem]
    problems = len(broken) + len(orphans) + len(missing) + len(frontmatter)
    answer: dict = {"scope": path.strip().strip("/") if path else "wiki", "pages": len(scope),
                    "links": len(links), "edges": len(edges)}
    if not check:
        hubs = sorted(scope, key=lambda i: (-len(inbound[i]), scope[i].path))
        answer["hubs"] = [_brief(scope[i], inbound=len(inbound[i]), out=len(outbound[i]))
                          for i in hubs[:TOP] if inbound[i]]
        answer["connectors"] = [_brief(scope[i], score=round(v, 1))
                                for i, v in connectors(content, edges)[:TOP]]
    answer.update(orphans=orphans, broken=broken, missing_from_index=missing,
                  frontmatter=frontmatter, problems=problems)
    if drawing:
        answer.update(_network(scope, edges, inbound, set(orphans), set(missing), broken))
    return answer


def _network(scope: dict[int, Node], edges: set[tuple[int, int]],
             inbound: dict[int, set[int]], orphans: set[str], missing: set[str],
             broken: list[dict]) -> dict:
    """Every page of the scope (in path order) and every link between two of them, as pairs
    of places in that list: what a drawing of the graph needs."""
    order = sorted(scope, key=lambda i: scope[i].path)
    place = {doc: n for n, doc in enumerate(order)}
    broken_from: dict[str, int] = defaultdict(int)
    for b in broken:
        broken_from[b["from"]] += 1
    out = [{"path": scope[i].path, "title": scope[i].title, "inbound": len(inbound[i]),
            "catalog": scope[i].catalog, "orphan": scope[i].path in orphans,
            "missing_from_index": scope[i].path in missing,
            "broken": broken_from[scope[i].path]} for i in order]
    pairs = sorted([place[s], place[d]] for s, d in edges)
    return {"nodes": out, "pairs": pairs}


def _brief(node: Node, **extra: object) -> dict:
    return {"path": node.path, "title": node.title, **extra}


def _broken(conn: sqlite3.Connection, scope: dict[int, Node], links: list) -> list[dict]:
    headings: dict[int, set[str]] = {}
    out = []
    for src, dst, target, heading, line, asset in links:
        reason = ""
        if dst is None and not asset:
            reason = "no page"
        elif dst is not None and heading and not heading.startswith("^"):
            if dst not in headings:
                headings[dst] = _headings(conn, dst)
            anchor = heading.split("#")[-1]
            if _norm(anchor) not in headings[dst] and _slug(anchor) not in headings[dst]:
                reason = "no heading"
        if reason:
            shown = target + (f"#{heading}" if heading else "")
            out.append({"from": scope[src].path, "line": line, "target": shown,
                        "reason": reason})
    return out


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _slug(text: str) -> str:
    """A heading as Quartz and GitHub anchor it: `Hard fork` -> `hard-fork`."""
    return re.sub(r"[^\w\- ]", "", text.casefold()).strip().replace(" ", "-")


def _headings(conn: sqlite3.Connection, doc: int) -> set[str]:
    out: set[str] = set()
    for (heading,) in conn.execute("SELECT DISTINCT heading FROM sections WHERE doc = ?",
                                   (doc,)):
        for h in heading.split(" > "):
            if h:
                out.update((_norm(h), _slug(h)))
    return out


def _missing_from_index(scope: dict[int, Node], content: set[int],
                        edges: set[tuple[int, int]]) -> list[str]:
    catalogs: dict[str, int] = {}
    for i, n in scope.items():
        if n.catalog:
            catalogs[n.path.rpartition("/")[0]] = i
    if not catalogs:
        return []
    listed = {d for s, d in edges if scope[s].catalog}
    out = []
    for i in sorted(content, key=lambda i: scope[i].path):
        folder = scope[i].path.rpartition("/")[0]
        above = []
        while True:
            if folder in catalogs:
                above.append(folder)
            if not folder:
                break
            folder = folder.rpartition("/")[0]
        if above and i not in listed:
            out.append(scope[i].path)
    return out


def connectors(content: set[int], edges: set[tuple[int, int]]) -> list[tuple[int, float]]:
    """Betweenness centrality (Brandes) over the undirected links between content pages."""
    adjacent: dict[int, set[int]] = defaultdict(set)
    for s, d in edges:
        if s in content and d in content:
            adjacent[s].add(d)
            adjacent[d].add(s)
    score: dict[int, float] = dict.fromkeys(adjacent, 0.0)
    for source in adjacent:
        order, preds = [], defaultdict(list)
        sigma = dict.fromkeys(adjacent, 0)
        dist = dict.fromkeys(adjacent, -1)
        sigma[source], dist[source] = 1, 0
        queue = deque([source])
        while queue:
            v = queue.popleft()
            order.append(v)
            for w in adjacent[v]:
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    queue.append(w)
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
                    preds[w].append(v)
        delta = dict.fromkeys(adjacent, 0.0)
        for w in reversed(order):
            for v in preds[w]:
                delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
            if w != source:
                score[w] += delta[w]
    ranked = sorted(((i, v / 2) for i, v in score.items() if v > 0),
                    key=lambda x: (-x[1], x[0]))
    return ranked


def page_links(conn: sqlite3.Connection, doc: int) -> dict:
    """Who links to one page (backlinks) and where it links."""
    backlinks = [{"from": r[0], "title": r[1], "line": r[2], "context": r[3]}
                 for r in conn.execute(
                     "SELECT d.path, d.title, l.line, l.context FROM links l "
                     "JOIN docs d ON d.id = l.src WHERE l.dst = ? AND l.src != ? "
                     "ORDER BY d.path, l.line", (doc, doc))]
    out = [{"target": r[0] + (f"#{r[1]}" if r[1] else ""), "path": r[2] or (r[3] or None),
            "line": r[4], "embed": bool(r[5])}
           for r in conn.execute(
               "SELECT l.target, l.heading, d.path, l.asset, l.line, l.embed FROM links l "
               "LEFT JOIN docs d ON d.id = l.dst WHERE l.src = ? ORDER BY l.line, l.id",
               (doc,))]
    return {"backlinks": backlinks, "links": out}


def expand(conn: sqlite3.Connection, hits: list[int], limit: int = EXPAND) -> list[dict]:
    """At most `limit` pages most linked from the hits: each hit at rank r adds 1/r to every
    page it links to; hits, catalogs and `_*` pages are left out, and a catalog hit passes
    nothing on (it links to every page: its links say nothing about the query)."""
    taken = set(hits)
    score: dict[int, float] = defaultdict(float)
    sources: dict[int, list[str]] = defaultdict(list)
    for rank, doc in enumerate(hits, 1):
        path, catalog = conn.execute("SELECT path, catalog FROM docs WHERE id = ?",
                                     (doc,)).fetchone()
        if catalog:
            continue
        for (dst,) in conn.execute("SELECT DISTINCT dst FROM links WHERE src = ? AND "
                                   "dst IS NOT NULL", (doc,)):
            if dst not in taken:
                score[dst] += 1 / rank
                sources[dst].append(path)
    out = []
    for dst, value in sorted(score.items(), key=lambda kv: -kv[1]):
        row = conn.execute("SELECT path, title, catalog FROM docs WHERE id = ?",
                           (dst,)).fetchone()
        if row["catalog"] or special(row["path"]):
            continue
        out.append({"path": row["path"], "title": row["title"], "score": round(value, 3),
                    "linked_from": sources[dst]})
    out.sort(key=lambda x: (-x["score"], x["path"]))
    return out[:limit]
