"""Never stale, within a budget: a search syncs for at most `sync_budget_ms`, newest files
first, answers with what it read and says how much it left (`freshness`); later searches
finish the work; explicit syncs read everything. Every read carries the same `freshness`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from solograph import freshness, reads
from solograph.config import Settings
from solograph.kb.store import open_kb
from solograph.kb.sync import index_kb
from solograph.kb.sync import sync as kb_sync
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.sessions.sync import sync_sessions
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.sources import build_sources
from tests.support.transcripts import Transcripts

SHAPE = {"complete", "pending", "unreadable", "as_of"}
# The session index says the same of each agent it reads.
SESSIONS_SHAPE = SHAPE | {"agents"}
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def transcripts(root: Path) -> list[str]:
    """Six conversations, all about the webhook, each with its own word; the later in WORDS,
    the more recently modified."""
    t = Transcripts(root)
    ids = []
    for i, word in enumerate(WORDS):
        s = t.conversation(f"/home/dev/code/app{i}", f"fix the webhook {word} retry", "Done.")
        path = next(root.rglob(f"{s.id}.jsonl"))
        stamp = 1_700_000_000 + i * 60
        os.utime(path, (stamp, stamp))
        ids.append(s.id)
    return ids


def found(answer: dict) -> set[str]:
    return {hit["session"] for hit in answer["results"]}


def test_a_search_under_no_budget_answers_with_the_newest_and_converges(tmp_path):
    ids = transcripts(tmp_path / "projects")
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects",
                        sync_budget_ms=0)
    first = reads.session_search(settings, "webhook retry", limit=20)
    assert set(first["freshness"]) == SESSIONS_SHAPE
    assert first["freshness"]["agents"]["claude"]["pending"] == first["freshness"]["pending"]
    assert first["freshness"]["complete"] is False
    assert first["freshness"]["pending"] == len(ids) - 1
    assert found(first) == {ids[-1]}  # the most recently modified file is read first
    assert "sync-sessions" in first["note"]
    answers = [first]
    for _ in range(len(ids) * 2):
        answers.append(reads.session_search(settings, "webhook retry", limit=20))
        if answers[-1]["freshness"]["complete"]:
            break
    last = answers[-1]
    as_of = last["freshness"]["as_of"]
    assert last["freshness"] == {"complete": True, "pending": 0, "unreadable": 0,
                                 "as_of": as_of, "agents": {"claude": {
                                     "pending": 0, "unreadable": 0, "present": True,
                                     "as_of": as_of}}}
    assert "note" not in last
    pending = [a["freshness"]["pending"] for a in answers]
    assert pending == sorted(pending, reverse=True) and len(answers) == len(ids)
    assert found(last) == set(ids)

    # The same answer as an index synced in one go, freshness included.
    whole = Settings(home=tmp_path / "home2", claude_projects=tmp_path / "projects")
    assert sync_sessions(whole)["pending"] == 0
    one_shot = reads.session_search(whole, "webhook retry", limit=20)
    assert found(one_shot) == found(last)
    assert one_shot["freshness"] == last["freshness"]
    assert reads.to_json(reads.session_search(settings, "foxtrot")) == \
        reads.to_json(reads.session_search(whole, "foxtrot"))


def test_an_explicit_sync_reads_everything(tmp_path):
    ids = transcripts(tmp_path / "projects")
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects",
                        sync_budget_ms=0)
    report = sync_sessions(settings)
    assert (report["new"], report["pending"], report["sessions"]) == (len(ids), 0, len(ids))
    answer = reads.session_search(settings, "webhook retry", limit=20)
    assert answer["freshness"]["complete"] is True and found(answer) == set(ids)


def test_a_grown_transcript_is_read_from_its_offset_under_a_budget(tmp_path):
    root = tmp_path / "projects"
    t = Transcripts(root)
    sessions = [t.conversation(f"/home/dev/code/p{i}", f"webhook number{i}", "ok")
                for i in range(3)]
    settings = Settings(home=tmp_path / "home", claude_projects=root, sync_budget_ms=0)
    while not reads.session_search(settings, "webhook")["freshness"]["complete"]:
        pass
    sessions[0].prompt("now the zeppelin queue")
    sessions[0].flush()
    answer = reads.session_search(settings, "zeppelin")
    assert answer["freshness"]["complete"] is True and found(answer) == {sessions[0].id}
    whole = Settings(home=tmp_path / "home2", claude_projects=root)
    assert reads.to_json(reads.session_search(whole, "webhook zeppelin")) == \
        reads.to_json(reads.session_search(settings, "webhook zeppelin"))


def test_the_kb_under_no_budget_converges_to_the_one_shot_index(tmp_path):
    root = make_kb(tmp_path)
    pages = sorted(p for p in root.rglob("*.md"))
    for i, path in enumerate(pages):
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    settings = Settings(home=tmp_path / "home", kb_path=root, sync_budget_ms=0)
    first = reads.kb_search(settings, "sandbox")
    assert set(first["freshness"]) == SHAPE
    assert first["freshness"]["complete"] is False and first["freshness"]["pending"] > 0
    assert "index-kb" in first["note"]
    answers = [first]
    for _ in range(len(pages) * 2):
        answers.append(reads.kb_search(settings, "sandbox"))
        if answers[-1]["freshness"]["complete"]:
            break
    assert answers[-1]["freshness"]["complete"] is True
    whole = Settings(home=tmp_path / "home2", kb_path=root)
    assert index_kb(whole)["pending"] == 0
    for query in ("sandbox", "recipe units", "песочница для агента"):
        assert reads.to_json(reads.kb_search(settings, query)) == \
            reads.to_json(reads.kb_search(whole, query))
    assert reads.to_json(reads.kb_graph(settings)) == reads.to_json(reads.kb_graph(whole))


def test_kb_sync_reads_newest_first_and_explicit_runs_read_all(tmp_path):
    root = make_kb(tmp_path)
    pages = sorted(p for p in root.rglob("*.md"))
    for i, path in enumerate(pages):
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    kb = open_kb(tmp_path / "home", root)
    try:
        report = kb_sync(kb, deadline=time.monotonic() - 1)
        assert report.read == 1 and report.pending > 0
        newest = kb.conn.execute("SELECT path FROM docs").fetchall()
        assert [r[0] for r in newest] == [pages[-1].relative_to(root).as_posix()]
        full = kb_sync(kb)
        assert full.pending == 0 and full.read == report.pending
    finally:
        kb.close()


@pytest.fixture(scope="module")
def everything(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("fresh")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        kb_path=make_kb(base), claude_projects=base / "projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    build_sources(settings, base)
    transcripts(settings.claude_projects)
    return settings


def test_every_read_carries_the_same_freshness_and_repeats_its_bytes(everything):
    calls = {
        "symbol_search": lambda: reads.symbol_search(everything, "auth middleware"),
        "project_info": lambda: reads.project_info(everything, "stats"),
        "session_search": lambda: reads.session_search(everything, "webhook retry"),
        "kb_search": lambda: reads.kb_search(everything, "sandbox"),
        "kb_get": lambda: reads.kb_get(everything, "wiki/index.md"),
        "source_search": lambda: reads.source_search(everything, "pricing tiers"),
    }
    for name, call in calls.items():
        first = call()
        assert set(first["freshness"]) == (SESSIONS_SHAPE if name == "session_search"
                                           else SHAPE), name
        fresh = first["freshness"]
        assert fresh["complete"] is True and fresh["pending"] == 0, name
        assert fresh["as_of"] is not None and freshness.iso(fresh["as_of"]) == fresh["as_of"]
        time.sleep(1.1 if name == "symbol_search" else 0)  # "now" would change; as_of must not
        assert reads.to_json(call()) == reads.to_json(first), name
    # sessions: the newest message stored (the test transcripts are all of 2026-03-01)
    assert reads.session_search(everything, "webhook")["freshness"]["as_of"].startswith(
        "2026-03-01T")
    for action in ("list", "tags"):
        assert set(reads.source_search(everything, action=action)["freshness"]) == SHAPE


def test_iso_reads_every_stored_form():
    assert freshness.iso("2026-03-01T00:00:05.123Z") == "2026-03-01T00:00:05Z"
    assert freshness.iso(1_700_000_000) == "2023-11-14T22:13:20Z"
    assert freshness.iso(1_700_000_000 * 10**9) == "2023-11-14T22:13:20Z"
    assert freshness.iso("1700000000.5") == "2023-11-14T22:13:20Z"
    assert freshness.iso("2026-11-28") == "2026-11-28T00:00:00Z"
    assert freshness.iso("") is None and freshness.iso(None) is None
    assert freshness.iso("not a date") is None
