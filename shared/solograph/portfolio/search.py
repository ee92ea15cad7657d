"""Symbol search: a phrase finds every spelling of a definition's name.

Ranking, in tiers: the exact name (any spelling: `auth middleware` is `AuthMiddleware`), then
definitions holding all the query's words, then all of them with rare words also respelt from
the index's own vocabulary (`handlr` -> handler), then those holding some of the words that
are not common in the index (COMMON); BM25 orders each tier. Two rules cut across: for a query
that is one identifier, the definitions spelt exactly as typed come first, then those equal
but for case (`add_command` before another project's `AddCommand`, the class `ParameterHelp`
before `parameterHelp` properties); and among the definitions holding every word, those under
a test path (`tests/`, `test_*.py`, `*_test.go`, `*.test.ts`, `Tests/`, `spec/`) come after
the rest.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache

from solograph.portfolio import topk
from solograph.portfolio.rank import Query
from solograph.text.spelling import respell
from solograph.text.tokens import fold_name, query_terms, words

MAX_LIMIT = 200
_ROWS = """
SELECT s.id, p.name AS project, f.path, s.line, s.kind, s.name, s.scope
FROM symbols s
JOIN files f ON f.id = s.file_id
JOIN projects p ON p.id = s.project_id
WHERE s.id IN ({marks})
"""
_BY_ID = """
SELECT s.id, p.name AS project, f.path, s.line, s.kind, s.name, s.scope, 0.0 AS rank
FROM symbols s
JOIN files f ON f.id = s.file_id
JOIN projects p ON p.id = s.project_id
WHERE s.id IN ({marks})
ORDER BY p.name, f.path, s.line
"""


# A word held by this many definitions says little on its own: the some-words tier leaves it
# out (unless every word is that common): `get`, `set` or `session` match thousands, while a
# definition that holds only such a word is the weakest of matches.
COMMON = 1_000
GROUPS = (0, 0, 1, 2)  # exact and all-words definitions both hold every word of the query
_TEST_DIRS = frozenset(("test", "tests", "spec", "specs", "__tests__", "testing", "testdata"))
_TEST_FILE = re.compile(r"^(?:test_.*\.py|.*_test\.(?:py|go|rb|exs?)|.*_spec\.rb|"
                        r".*\.(?:test|spec)\.[cm]?[jt]sx?|.*Tests?\.(?:java|kt|swift|cs|php))$")


_SPELT = re.compile(r"[A-Z_]|\d|[^\W_][-.][^\W_]")  # a spelling that says something


_TEST_NAME = re.compile(r"^(?:test|Test|TEST)")


def is_test_case(path: str, name: str, scope: str) -> bool:
    """A test itself (`test_confirmation_prompt`, `TestExecute`, a function inside one), in a
    test file: it is named after what it tests, which is what a search for those words wants."""
    return is_test_path(path) and bool(_TEST_NAME.match(name) or _TEST_NAME.match(scope))


@lru_cache(maxsize=8192)
def is_test_path(path: str) -> bool:
    """Whether a file is a test: under a test folder, or named as test runners find tests."""
    parts = path.split("/")
    return any(p.lower() in _TEST_DIRS for p in parts[:-1]) or bool(_TEST_FILE.match(parts[-1]))


def spelling(typed: str, name: str, scope: str) -> int:
    """0 when the definition is spelt as typed (`add_command`, or `Group.add_command`), 1 when
    only the case differs, else 2; always 2 when the query is not one identifier with a
    spelling of its own (a capital, an underscore, a digit: `option` says nothing of case)."""
    if not typed:
        return 2
    names = (name, f"{scope.rsplit('.', 1)[-1]}.{name}" if scope else name)
    if typed in names:
        return 0
    return 1 if typed.casefold() in (n.casefold() for n in names) else 2


@lru_cache(maxsize=65536)
def _scope_key(scope: str) -> str:
    """The enclosing scope's last part, spelling-free (`Color` of `rich.Color`): a class
    encloses many definitions, and a common name (`get`) reads hundreds of them."""
    return fold_name(scope.rsplit(".", 1)[-1])


def _exact_ids(conn: sqlite3.Connection, query: str, key: str, extra: tuple,
               limit: int) -> list[int]:
    """Definitions named exactly by the query in any spelling: the name alone (`escape`), the
    enclosing scope then the name (`color parse` is Color.parse), or the name then its scope,
    as a sentence says it (`execute command` is Command.Execute)."""
    by_project = "AND project_id = ? " if extra else ""
    ids = [r[0] for r in conn.execute(
        f"SELECT id FROM symbols WHERE name_key = ? {by_project}LIMIT ?", (key, *extra, limit))]
    parts = words(query)
    for cut in range(1, min(len(parts), 5)):
        head, tail = "".join(parts[:cut]), "".join(parts[cut:])
        for scope_key, name_key in ((head, tail), (tail, head)):
            for row in conn.execute(
                    f"SELECT id, scope FROM symbols WHERE name_key = ? AND scope != '' "
                    f"{by_project}LIMIT 500", (name_key, *extra)):
                if _scope_key(row[1]) == scope_key and row[0] not in ids:
                    ids.append(row[0])
    return ids[:limit]


def _top(scope: topk.Scope, query: Query, n: int, cap: int) -> list[dict]:
    """The tier's best `n`, best first, as rows, from at most `cap` candidates (and one
    impact list; portfolio.topk)."""
    ranked = topk.top(scope, query, n, cap=cap)
    if not ranked:
        return []
    rows = {r["id"]: dict(r) for r in scope.conn.execute(
        _ROWS.format(marks=",".join("?" * len(ranked))), [i for _, i in ranked])}
    return [{**rows[i], "rank": r} for r, i in ranked if i in rows]


def _some(terms: list[str], counts: dict[str, int], project_id: int | None) -> Query | None:
    """The some-words tier: any of the words held by fewer than COMMON definitions; when
    every word is that common, any of them within one project, and across the portfolio the
    definitions holding all the words but one (none for two words). Each common word alone
    matches thousands of definitions there (every `user`, every `session`), and a definition
    holding one of them is the weakest match there is; those holding all but one rank first
    in the tier anyway."""
    telling = [t for t in terms if counts[t] < COMMON]
    if telling or project_id is not None:
        return Query.any(telling or terms)
    if len(terms) < 3:
        return None
    # FTS5's expression names each word once per group holding it: BM25 counts it as often.
    return Query(tuple(terms), tuple((i,) for i in range(len(terms))), len(terms) - 1,
                 (len(terms) - 1,) * len(terms))


def search_symbols(conn: sqlite3.Connection, query: str, *, project_id: int | None = None,
                   limit: int = 20) -> list[dict]:
    limit = max(1, min(limit, MAX_LIMIT))
    terms = query_terms(query)
    extra = (project_id,) if project_id is not None else ()
    hits: dict[int, tuple[int, float, dict]] = {}
    scope = topk.Scope.open(conn, project_id)

    def collect(tier: int, rows: list) -> None:
        for row in rows:
            if row["id"] not in hits:
                hits[row["id"]] = (tier, row["rank"], row)

    all_rows = _top(scope, Query.every(terms), limit * 4, topk.CAP)
    ranks = {row["id"]: row["rank"] for row in all_rows}
    exact_ids = _exact_ids(conn, query, fold_name(query), extra, limit)
    if exact_ids:
        rows = conn.execute(_BY_ID.format(marks=",".join("?" * len(exact_ids))),
                            exact_ids).fetchall()
        # An exact hit keeps the BM25 it has among the all-words hits, for a stable order.
        collect(0, sorted(rows, key=lambda r: ranks.get(r["id"], 0.0)))
    collect(1, all_rows)

    def wanting() -> bool:  # tests come after every other hit: they do not fill the answer
        return sum(not is_test_case(r["path"], r["name"], r["scope"])
                   for _, _, r in hits.values()) < limit

    counts: dict[str, int] = {}
    if wanting():  # one count per word serves both tiers below
        counts = scope.freq(terms)
        respelt = {t: respell(conn, "symbols_fts", "symbols_vocab", t, docs=counts[t])
                   for t in terms}
        if any(respelt.values()):
            phrases: list[str] = []
            groups = []
            for t, a in respelt.items():
                groups.append(tuple(range(len(phrases), len(phrases) + (2 if a else 1))))
                phrases.extend((t, a) if a else (t,))
            collect(2, _top(scope, Query(tuple(phrases), tuple(groups), len(groups)),
                            limit * 2, topk.CAP))
    some = _some(terms, counts, project_id) if wanting() and len(terms) > 1 else None
    if some:
        collect(3, _top(scope, some, limit * 2, topk.CAP))

    typed = query.strip() if len(query.split()) == 1 and _SPELT.search(query) else ""

    def order(hit: tuple[int, float, dict]) -> tuple:
        tier, rank, row = hit
        # A test (`test_confirmation_prompt`) holding every word still comes after the
        # source holding some of them (`confirm`, `prompt`), unless it is named exactly.
        return (spelling(typed, row["name"], row["scope"]) if tier == 0 else 2,
                tier > 0 and is_test_case(row["path"], row["name"], row["scope"]),
                GROUPS[tier], is_test_path(row["path"]) if tier < 2 else False, tier,
                ranks.get(row["id"], rank), row["project"], row["path"], row["line"])

    ordered = sorted(hits.values(), key=order)[:limit]
    return [{"project": r["project"], "path": r["path"], "line": r["line"], "kind": r["kind"],
             "name": r["name"], "scope": r["scope"],
             "score": round(-ranks.get(r["id"], rank), 3),
             "match": ("exact", "all", "respelt", "some")[tier]}
            for tier, rank, r in ordered]
