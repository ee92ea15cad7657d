"""Symbol search: a phrase finds every spelling of a definition's name.

Ranking, in tiers: the exact name (any spelling: `auth middleware` is `AuthMiddleware`), then
definitions holding all the query's words, then those holding some; BM25 orders each tier.
"""

from __future__ import annotations

import sqlite3

from solograph.text.tokens import fold_name, match_all, match_any, query_terms, words

MAX_LIMIT = 200
# The name counts more than the enclosing scope (`Widget draw` still finds Widget.draw).
BM25 = "bm25(symbols_fts, 1.0, 0.4)"
_SELECT = f"""
SELECT s.id, p.name AS project, f.path, s.line, s.kind, s.name, s.scope, {BM25} AS rank
FROM symbols_fts
JOIN symbols s ON s.id = symbols_fts.rowid
JOIN files f ON f.id = s.file_id
JOIN projects p ON p.id = s.project_id
WHERE symbols_fts MATCH ? {{project}}
"""


def _exact_ids(conn: sqlite3.Connection, query: str, key: str, extra: tuple,
               limit: int) -> list[int]:
    """Definitions named exactly by the query in any spelling: the name alone (`escape`), or
    the enclosing scope then the name (`color parse` is Color.parse)."""
    by_project = "AND project_id = ? " if extra else ""
    ids = [r[0] for r in conn.execute(
        f"SELECT id FROM symbols WHERE name_key = ? {by_project}LIMIT ?", (key, *extra, limit))]
    parts = words(query)
    for cut in range(1, min(len(parts), 5)):
        scope_key, name_key = "".join(parts[:cut]), "".join(parts[cut:])
        for row in conn.execute(
                f"SELECT id, scope FROM symbols WHERE name_key = ? AND scope != '' {by_project}"
                "LIMIT 500", (name_key, *extra)):
            if fold_name(row[1].rsplit(".", 1)[-1]) == scope_key:
                ids.append(row[0])
    return ids[:limit]


def search_symbols(conn: sqlite3.Connection, query: str, *, project_id: int | None = None,
                   limit: int = 20) -> list[dict]:
    limit = max(1, min(limit, MAX_LIMIT))
    terms = query_terms(query)
    key = fold_name(query)
    where = "AND s.project_id = ?" if project_id is not None else ""
    extra = (project_id,) if project_id is not None else ()
    sql = _SELECT.format(project=where)

    hits: dict[int, tuple[int, float, sqlite3.Row]] = {}

    def collect(tier: int, rows: list[sqlite3.Row]) -> None:
        for row in rows:
            if row["id"] not in hits:
                hits[row["id"]] = (tier, row["rank"], row)

    all_rows = conn.execute(sql + " ORDER BY rank LIMIT ?",
                            (match_all(terms), *extra, limit * 4)).fetchall()
    exact_ids = _exact_ids(conn, query, key, extra, limit)
    if exact_ids:
        marks = ",".join("?" * len(exact_ids))
        collect(0, conn.execute(sql + f" AND s.id IN ({marks}) ORDER BY rank",
                                (match_all(terms), *extra, *exact_ids)).fetchall())
    collect(1, all_rows)
    if len(hits) < limit and len(terms) > 1:
        collect(2, conn.execute(sql + " ORDER BY rank LIMIT ?",
                                (match_any(terms), *extra, limit * 2)).fetchall())

    ordered = sorted(hits.values(), key=lambda h: (h[0], h[1], h[2]["project"], h[2]["path"],
                                                    h[2]["line"]))[:limit]
    return [{"project": r["project"], "path": r["path"], "line": r["line"], "kind": r["kind"],
             "name": r["name"], "scope": r["scope"], "score": round(-rank, 3),
             "match": ("exact", "all", "some")[tier]}
            for tier, rank, r in ordered]
