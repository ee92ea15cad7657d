"""What makes symbol search fast, pinned by structure, never by time: kept read-only
connections in long-lived processes, prefix indexes, and a some-words tier that leaves out
words too common to say anything."""

from __future__ import annotations

import shutil

import pytest

from solograph import readers, reads
from solograph.errors import NotIndexed
from solograph.portfolio import search, topk
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_reader, connect_writer
from tests.support.portfolio import make_portfolio, store_before
from tests.support.spy import calls


@pytest.fixture
def scanned(settings, tmp_path):
    make_portfolio(tmp_path)
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings


def _opened(monkeypatch) -> list:
    return calls(monkeypatch, readers, "connect_reader")


def test_a_long_lived_process_keeps_one_reader(scanned, keeping, monkeypatch):
    opened = _opened(monkeypatch)
    first = reads.symbol_search(scanned, "auth middleware")
    for _ in range(3):
        assert reads.symbol_search(scanned, "auth middleware") == first
    assert len(opened) == 1


def test_without_keep_each_read_opens_and_closes(scanned, monkeypatch):
    opened = _opened(monkeypatch)
    for _ in range(2):
        reads.symbol_search(scanned, "auth middleware")
    assert len(opened) == 2


def test_a_kept_reader_sees_a_new_scan_and_a_replaced_or_removed_store(scanned, keeping,
                                                                      monkeypatch, tmp_path):
    assert reads.symbol_search(scanned, "auth middleware")["count"]
    project = tmp_path / "projects" / "py-service"
    (project / "fresh_module.py").write_text("def brand_new_widget():\n    pass\n")
    scan_portfolio(scanned)  # the writer commits; the kept reader holds no transaction
    assert reads.symbol_search(scanned, "brand new widget")["results"][0]["name"] == \
        "brand_new_widget"
    opened = _opened(monkeypatch)
    moved = tmp_path / "aside.db"
    shutil.copy(scanned.portfolio_db, moved)
    scanned.portfolio_db.unlink()
    with pytest.raises(NotIndexed):
        reads.symbol_search(scanned, "auth middleware")
    shutil.copy(moved, scanned.portfolio_db)  # a new file at the same path: opened again
    assert reads.symbol_search(scanned, "brand new widget")["count"]
    assert len(opened) == 2


def test_release_closes_every_kept_reader(scanned):
    readers.keep()
    reads.symbol_search(scanned, "auth middleware")
    kept = list(readers._opened)
    readers.release()
    assert kept and not readers._opened
    with pytest.raises(Exception, match="closed"):
        kept[0].execute("SELECT 1")
    assert reads.symbol_search(scanned, "auth middleware")["count"]  # a new one, unkept


def test_the_definitions_table_has_prefix_indexes(scanned):
    conn = connect_writer(scanned.portfolio_db, "portfolio")
    try:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'symbols_fts'").fetchone()[0]
        assert "prefix='2 3 4 5'" in sql
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('integrity-check')")
    finally:
        conn.close()


def test_a_store_from_before_the_prefix_indexes_is_rebuilt_on_opening(tmp_path):
    """Its definitions are indexed again by the migration, and the triggers still follow
    every insert and delete."""
    db = tmp_path / "portfolio.db"
    conn = store_before(db, "0003")
    conn.execute("INSERT INTO projects (id, name, path, added_at, scanned_at) "
                 "VALUES (1, 'old', '/old', 0, 0)")
    conn.execute("INSERT INTO files (id, project_id, path, language, size, mtime_ns, status) "
                 "VALUES (1, 1, 'a.py', 'python', 1, 1, 'ok')")
    conn.execute("INSERT INTO symbols (id, file_id, project_id, name, kind, line, name_key, "
                 "words) VALUES (1, 1, 1, 'parseArguments', 'function', 1, 'parsearguments', "
                 "'pars argument parsearguments')")
    conn.close()
    conn = connect_writer(db, "portfolio")
    try:
        assert [r["name"] for r in search.search_symbols(conn, "parse arg")] == ["parseArguments"]
        conn.execute("DELETE FROM symbols WHERE id = 1")
        assert search.search_symbols(conn, "parse arg") == []
        conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('integrity-check')")
    finally:
        conn.close()


def test_the_some_words_tier_leaves_out_common_words(scanned, monkeypatch):
    """With COMMON lowered to 3, `bill` (5 definitions) is common in the fixture and `draw`
    (2) is not: the some-words tier searches `draw` alone. With every word common it searches
    them all within one project; across the portfolio the definitions holding all the words
    but one (none for two words: each alone matches thousands at full size)."""
    monkeypatch.setattr(search, "COMMON", 3)
    matches: list[str] = []
    real = topk.match_of

    def recording(query, df):
        matches.append(real(query, df))
        return matches[-1]

    monkeypatch.setattr(topk, "match_of", recording)
    conn = connect_reader(scanned.portfolio_db, "portfolio")
    try:
        results = search.search_symbols(conn, "bill draw", limit=20)
        assert matches[-1] == '"draw"*'
        some = [r for r in results if r["match"] == "some"]
        assert some and all("draw" in r["name"].lower() for r in some)
        matches.clear()
        monkeypatch.setattr(search, "COMMON", 1)
        search.search_symbols(conn, "bill draw", limit=20)
        assert matches == ['"bill"* AND "draw"*'], "the all-words tier only"
        project = conn.execute("SELECT project_id FROM symbols WHERE name LIKE '%draw%'"
                               ).fetchone()[0]
        matches.clear()
        search.search_symbols(conn, "bill draw", project_id=project, limit=20)
        assert matches[-1] == '"bill"* OR "draw"*'
        matches.clear()
        monkeypatch.setattr(search, "COMMON", 0)  # every word common, even one held by none
        search.search_symbols(conn, "bill draw invoice", limit=20)
        assert matches[-1] == ('("bill"* AND "draw"*) OR ("bill"* AND "invoic"*) OR '
                               '("draw"* AND "invoic"*)')
    finally:
        conn.close()
