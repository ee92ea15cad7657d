"""`solograph rebuild`: every full-text table is derived state, made again from what its index
holds; a search that found nothing after the tables were emptied finds its answers again."""

from __future__ import annotations

import json
import sqlite3

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.kb.sync import index_kb
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.sessions.sync import sync_sessions
from solograph_services.cli.main import main
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.sources import build_sources
from tests.support.transcripts import Transcripts

EMPTIED = {"portfolio_db": ("symbols_fts", "'delete-all'"),
           "sessions_db": ("chunks_fts", "'delete-all'"),
           "sources_db": ("documents_fts", "'delete-all'")}


@pytest.fixture
def world(tmp_path, monkeypatch) -> Settings:
    settings = Settings(home=tmp_path / "home", scan_paths=(make_portfolio(tmp_path),),
                        kb_path=make_kb(tmp_path), claude_projects=tmp_path / "claude")
    refresh_registry(settings)
    scan_portfolio(settings)
    build_sources(settings, tmp_path)
    Transcripts(settings.claude_projects).conversation("/home/dev/code/web-app",
                                                       "fix the webhook retry", "Done.")
    sync_sessions(settings)
    index_kb(settings)
    monkeypatch.setenv("SOLOGRAPH_HOME", str(settings.home))
    monkeypatch.setenv("KB_PATH", str(settings.kb_path))
    monkeypatch.setenv("CLAUDE_PROJECTS_PATH", str(settings.claude_projects))
    return settings


def counts(settings: Settings) -> tuple[int, int, int, int]:
    return (reads.symbol_search(settings, "auth middleware")["count"],
            reads.session_search(settings, "webhook retry")["count"],
            reads.source_search(settings, "pricing tiers")["count"],
            reads.kb_search(settings, "sandbox")["count"])


def test_rebuild_makes_every_full_text_table_again(world, capsys):
    before = counts(world)
    assert all(before)
    for attr, (table, command) in EMPTIED.items():
        conn = sqlite3.connect(getattr(world, attr))
        with conn:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ({command})")
        conn.close()
    conn = sqlite3.connect(world.kb_db)
    with conn:
        conn.execute("DELETE FROM docs_fts")
        conn.execute("DELETE FROM sections_fts")
    conn.close()
    emptied = counts(world)
    assert emptied[1:3] == (0, 0) and emptied[0] < before[0]  # exact names need no FTS
    assert main(["rebuild", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["index"] for r in report["rebuilt"]] == ["portfolio", "sessions", "kb", "sources"]
    assert counts(world) == before


def test_rebuild_creates_no_store_that_is_not_there(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOLOGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KB_PATH", raising=False)
    assert main(["rebuild"]) == 0
    assert "not indexed yet" in capsys.readouterr().out
    assert not (tmp_path / "home").exists()
