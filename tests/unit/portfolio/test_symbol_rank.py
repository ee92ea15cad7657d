"""Symbol search ranks a bounded set of candidates (portfolio.impact, rank, topk): the same
ranks as FTS5's BM25 over every match, on the fixture portfolio and on generated stores, as
long as the matches fit the bound; the bound itself holds whatever the store holds; and a
store from before the word counts gains them when it is opened."""

from __future__ import annotations

import sqlite3
import tempfile
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph.portfolio import impact, rank, search, topk
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_writer
from solograph.text.tokens import fold_name, fts_term, identifier_index_text, index_text
from tests.support.portfolio import make_portfolio, store_before

WORDS = ["user", "users", "session", "token", "get", "set", "cache", "cached", "parse",
         "http", "response", "id", "draw", "bill"]


def reference(conn: sqlite3.Connection, match: str, n: int,
              project_id: int | None = None) -> list[tuple[float, int]]:
    """FTS5's own BM25 over every match: the unbounded ranking."""
    rows = conn.execute(
        "SELECT f.rowid, bm25(symbols_fts, 1.0, 0.4) FROM symbols_fts f "
        "JOIN symbols s ON s.id = f.rowid WHERE symbols_fts MATCH ? "
        "AND (? IS NULL OR s.project_id = ?)", (match, project_id, project_id)).fetchall()
    return sorted((round(r, 9), i) for i, r in rows)[:n]


def queries(terms: list[str]) -> list[tuple[rank.Query, str]]:
    """Each kind of tier over `terms`, with the FTS5 expression the tiers used to run."""
    every = " AND ".join(fts_term(t) for t in terms)
    out = [(rank.Query.every(terms), every), (rank.Query.any(terms), " OR ".join(
        fts_term(t) for t in terms))]
    if len(terms) >= 2:  # a respelt word: either spelling
        phrases = (terms[0], terms[1], *terms[2:])
        groups = ((0, 1), *((i,) for i in range(2, len(phrases))))
        out.append((rank.Query(phrases, groups, len(groups)),
                    " AND ".join([f"({fts_term(terms[0])} OR {fts_term(terms[1])})",
                                  *(fts_term(t) for t in terms[2:])])))
    if len(terms) >= 3:  # all the words but one: FTS5 counts each word once per group
        n = len(terms)
        out.append((rank.Query(tuple(terms), tuple((i,) for i in range(n)), n - 1,
                               (n - 1,) * n),
                    " OR ".join("(" + " AND ".join(fts_term(t) for t in group) + ")"
                                for group in combinations(terms, n - 1))))
    return out


def assert_same(conn: sqlite3.Connection, terms: list[str], n: int = 20,
                project_id: int | None = None) -> None:
    scope = topk.Scope.open(conn, project_id)
    for query, match in queries(terms):
        assert topk.top(scope, query, n) == reference(conn, match, n, project_id), match


@pytest.fixture
def scanned(settings, tmp_path):
    make_portfolio(tmp_path)
    refresh_registry(settings)
    scan_portfolio(settings)
    conn = connect_writer(settings.portfolio_db, "portfolio")
    yield conn
    conn.close()


@pytest.mark.parametrize("words", [["auth"], ["auth", "middlewar"], ["pars", "respons"],
                                   ["escap"], ["session", "store"], ["user"], ["get", "id"],
                                   ["auth", "middlewar", "http"]])
def test_the_fixture_ranks_as_fts5_does(scanned, words):
    assert_same(scanned, words)
    projects = [r[0] for r in scanned.execute("SELECT id FROM projects")]
    for project_id in projects:
        assert_same(scanned, words, project_id=project_id)


def test_totals_are_fts5s_own(scanned):
    rows, avgdl = impact.totals(scanned)
    assert rows == scanned.execute("SELECT count(*) FROM symbols").fetchone()[0]
    tokens = sum(len(w.split()) + len(s.split()) for w, s in scanned.execute(
        "SELECT words, scope_words FROM symbols"))
    assert avgdl == tokens / rows


def _store(path: Path, names: list[tuple[str, str, int]]) -> sqlite3.Connection:
    conn = connect_writer(path, "portfolio")
    for project in (1, 2):
        conn.execute("INSERT INTO projects (id, name, path, added_at) VALUES (?, ?, ?, 0)",
                     (project, f"p{project}", f"/p{project}"))
        conn.execute("INSERT INTO files (id, project_id, path, language, size, mtime_ns, "
                     "status) VALUES (?, ?, 'a.py', 'python', 1, 1, 'ok')", (project, project))
    conn.executemany(
        "INSERT INTO symbols (file_id, project_id, name, kind, line, scope, name_key, words, "
        "scope_words) VALUES (?, ?, ?, 'function', 1, ?, ?, ?, ?)",
        [(p, p, name, scope, fold_name(name), identifier_index_text(name), index_text(scope))
         for name, scope, p in names])
    return conn


_name = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(
    lambda parts: parts[0] + "".join(p.title() for p in parts[1:]))
_definitions = st.lists(st.tuples(_name, st.sampled_from(["", "Cache", "UserSession",
                                                          "http_token"]),
                                  st.sampled_from([1, 2])), min_size=1, max_size=60)
_terms = st.lists(st.sampled_from(["user", "session", "token", "get", "cach", "pars", "us",
                                   "http", "respons", "id", "set"]),
                  min_size=1, max_size=3, unique=True)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(definitions=_definitions, terms=_terms, common=st.booleans())
def test_generated_stores_rank_as_fts5_does(definitions, terms, common):
    """With `common`, every word counts as common: counts and impact lists come from the
    kept tables and long words are listed by their first letters; the ranks do not move."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = _store(Path(tmp) / "portfolio.db", definitions)
        try:
            with pytest.MonkeyPatch.context() as patch:
                if common:
                    patch.setattr(impact, "FLOOR", 1)
                    patch.setattr(impact, "_FILL_DF", impact._FILL_DF.replace(
                        "v.doc >= 1000", "v.doc >= 1"))
                    impact.refresh(conn)
                assert_same(conn, terms)
                assert_same(conn, terms, project_id=2)
        finally:
            conn.close()


def test_the_bound_holds_and_one_common_word_keeps_its_exact_top(tmp_path, monkeypatch):
    """Past CAP matches a tier scores at most CAP candidates plus one impact list; a query of
    one common word is answered from its impact list, which is its ranking."""
    names = [(f"user{w.title()}{i}", "", 1 + i % 2) for i in range(40) for w in WORDS[2:6]]
    conn = _store(tmp_path / "portfolio.db", names + [("user", "", 1), ("User", "Cache", 2)])
    monkeypatch.setattr(impact, "_FILL_DF", impact._FILL_DF.replace("v.doc >= 1000",
                                                                    "v.doc >= 1"))
    monkeypatch.setattr(impact, "FLOOR", 1)
    impact.refresh(conn)
    monkeypatch.setattr(topk, "CAP", 10)
    scored: list[int] = []
    real = rank.score

    def counting(conn, ids, *args, **kwargs):
        scored.append(len(ids))
        return real(conn, ids, *args, **kwargs)

    monkeypatch.setattr(rank, "score", counting)
    scope = topk.Scope.open(conn, None)
    assert topk.top(scope, rank.Query.every(["user"]), 5) == reference(conn, '"user"*', 5)
    for terms in (["user", "session"], ["token", "user"]):
        top = topk.top(scope, rank.Query.every(terms), 5)
        assert len(top) == 5 and set(top) <= set(reference(conn, " AND ".join(
            fts_term(t) for t in terms), 1000))
    assert scored and max(scored) <= topk.CAP + impact.TOP
    conn.close()


def test_the_project_spans_cut_at_the_widest_gaps():
    assert topk.spans([]) == []
    assert topk.spans([1, 2, 3]) == [(1, 3)]
    assert topk.spans([1, 2, 3, 500, 501, 9000]) == [(1, 3), (500, 501), (9000, 9000)]
    assert topk.spans([1, 2, 40, 41]) == [(1, 41)], "a narrow gap is one span"
    many = [i * 1000 for i in range(20)]
    assert len(topk.spans(many)) == topk.SPANS


def test_a_store_from_before_the_word_counts_gains_them_on_opening(tmp_path, monkeypatch):
    db = tmp_path / "portfolio.db"
    conn = store_before(db, "0005")
    conn.execute("INSERT INTO projects (id, name, path, added_at) VALUES (1, 'old', '/o', 0)")
    conn.execute("INSERT INTO files (id, project_id, path, language, size, mtime_ns, status) "
                 "VALUES (1, 1, 'a.py', 'python', 1, 1, 'ok')")
    conn.executemany(
        "INSERT INTO symbols (file_id, project_id, name, kind, line, name_key, words) "
        "VALUES (1, 1, ?, 'function', 1, ?, ?)",
        [(f"getUser{i}", f"getuser{i}", identifier_index_text(f"getUser{i}"))
         for i in range(1200)])
    conn.close()
    conn = connect_writer(db, "portfolio")
    try:
        counts = dict(conn.execute("SELECT term, docs FROM symbol_df").fetchall())
        assert counts["user"] == counts["get"] == 1200
        assert conn.execute("SELECT count(*) FROM symbol_top WHERE term = 'user'"
                            ).fetchone()[0] == impact.TOP
        assert [r["name"] for r in search.search_symbols(conn, "get user", limit=3)]
        held = conn.execute("SELECT count(*) FROM symbols WHERE name_key LIKE 'getuser1%'"
                            ).fetchone()[0]
        assert impact.doc_freq(conn, ["user", "getuser1"]) == {"user": 1200, "getuser1": held}
    finally:
        conn.close()


def test_changes_gather_until_a_refresh(scanned, monkeypatch):
    monkeypatch.setattr(impact, "REFRESH_AFTER", 10)
    impact.refresh(scanned)  # the scan's own changes counted, the count starts again
    assert not impact.note_changes(scanned, changed=4)
    assert not impact.note_changes(scanned, changed=5)
    assert impact.note_changes(scanned, changed=1)
    assert scanned.execute("SELECT value FROM meta WHERE key = ?", (impact.CHANGES,)
                           ).fetchone()[0] == "0"
