"""The disk check of a read without a walk (kb/check.py): folders that did not move are not
listed, the pages changed last are stat'ed every read and the others in turn, and whatever a
folder's ctime shows (a new, deleted or renamed page, an edited ignore file) makes a walk.

A folder is trusted only when its ctime is RACY_NS older than its walk; the tests set that
margin to zero so that a folder written a moment ago is trusted at once (the file system's
nanosecond ctimes still move on every later change)."""

from __future__ import annotations

import os

import pytest

from solograph import racy, reads
from solograph.config import Settings
from solograph.kb import check
from solograph.kb.store import open_kb
from solograph.kb.sync import index_kb, sync
from tests.support.kb import make_kb
from tests.support.spy import calls


@pytest.fixture
def kb(tmp_path, monkeypatch):
    monkeypatch.setattr(racy, "RACY_NS", 0)
    root = make_kb(tmp_path)
    settings = Settings(home=tmp_path / "home", kb_path=root)
    index_kb(settings)
    return settings, root


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def walks(monkeypatch) -> list:
    from solograph.kb import sync as sync_module

    return calls(monkeypatch, sync_module, "walk")


def test_an_unchanged_kb_is_answered_without_listing_a_folder(kb, monkeypatch):
    settings, _root = kb
    walked = walks(monkeypatch)
    answer = reads.kb_search(settings, "sandbox")
    assert answer["count"] > 0 and answer["freshness"]["complete"]
    assert walked == []


def test_a_page_rewritten_in_place_is_read_again(kb, monkeypatch):
    settings, root = kb
    walked = walks(monkeypatch)
    page = root / "notes" / "meeting.md"
    with page.open("a", encoding="utf-8") as fh:  # in place: no folder moves
        fh.write("\nWe talked about a dirigible.\n")
    assert paths(reads.kb_search(settings, "dirigible")) == ["notes/meeting.md"]
    assert walked == []


def test_a_cold_page_rewritten_in_place_is_seen_within_a_round_of_reads(kb, monkeypatch):
    settings, root = kb
    monkeypatch.setattr(check, "HOT", 1)
    monkeypatch.setattr(check, "COLD", 2)
    page = root / "notes" / "meeting.md"
    old = 10**18  # 2001: older than every other page, so never among the HOT
    os.utime(page, ns=(old, old))
    index_kb(settings)
    page.write_text(page.read_text(encoding="utf-8") + "\ndirigible\n", encoding="utf-8")
    os.utime(page, ns=(old + 10**9, old + 10**9))
    handle = open_kb(settings.home, root)
    try:
        docs = handle.conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
    finally:
        handle.close()
    walked = walks(monkeypatch)
    rounds = [reads.kb_search(settings, "dirigible")["count"] for _ in range(docs)]
    assert walked == []
    assert rounds[-1] == 1
    assert rounds.index(1) < -(-docs // 2)  # within one turn of COLD pages a read


@pytest.mark.parametrize("change", ["new", "deleted", "renamed", "ignored", "private"])
def test_what_a_folder_shows_makes_a_walk(kb, monkeypatch, change):
    settings, root = kb
    walked = walks(monkeypatch)
    notes = root / "notes"
    if change == "new":
        (notes / "dirigible.md").write_text("# Dirigible\n\nA dirigible.\n", encoding="utf-8")
    elif change == "deleted":
        (notes / "meeting.md").unlink()
    elif change == "renamed":
        (notes / "meeting.md").rename(notes / "dirigible.md")
    elif change == "ignored":
        (root / ".gitignore").write_text("notes/\n", encoding="utf-8")
    else:
        (notes / ".solograph-private").write_text("", encoding="utf-8")
    found = paths(reads.kb_search(settings, "dirigible meeting", limit=50))
    assert walked, "a folder moved: the read walks"
    if change in ("new", "renamed"):
        assert "notes/dirigible.md" in found
    else:
        assert "notes/meeting.md" not in found


def test_an_ignore_file_edited_in_place_makes_a_walk(kb, monkeypatch):
    settings, root = kb
    ignore = root / ".indexignore"
    ignore.write_text("# nothing yet\n", encoding="utf-8")
    reads.kb_search(settings, "meeting")  # walks (the root moved) and records the file
    walked = walks(monkeypatch)
    assert reads.kb_search(settings, "meeting")["count"] and walked == []
    with ignore.open("a", encoding="utf-8") as fh:
        fh.write("notes/\n")
    assert "notes/meeting.md" not in paths(reads.kb_search(settings, "meeting", limit=50))
    assert walked


def test_pages_left_pending_are_found_by_the_next_read(kb, monkeypatch):
    settings, root = kb
    for name in ("meeting.md", "todo.md"):
        page = root / "notes" / name
        if page.exists():
            with page.open("a", encoding="utf-8") as fh:
                fh.write("\ndirigible\n")
    handle = open_kb(settings.home, root)
    try:
        first = sync(handle, deadline=0.0, trust_folders=True)  # passed: one page read
        assert first.read >= 1
        stored = handle.conn.execute("SELECT COUNT(*) FROM folders WHERE ctime_ns = -1"
                                     ).fetchone()[0]
        assert not first.pending or stored
        second = sync(handle, deadline=None, trust_folders=True)
        assert second.pending == 0
    finally:
        handle.close()


def test_a_watcher_names_a_cold_page_rewritten_in_place(kb, monkeypatch):
    import time

    from solograph import readers, watching

    settings, root = kb
    monkeypatch.setattr(check, "HOT", 0)
    monkeypatch.setattr(check, "COLD", 0)  # no turn of the cold pages: only the watcher
    readers.keep()
    try:
        reads.kb_search(settings, "meeting")  # the first read starts the watch
        deadline = time.monotonic() + 10
        while watching.changes(str(root)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watching.changes(str(root)) == {}, "watching, nothing changed"
        page = root / "notes" / "meeting.md"
        with page.open("a", encoding="utf-8") as fh:  # in place: no folder moves
            fh.write("\nWe talked about a dirigible.\n")
        while "notes/meeting.md" not in (watching.changes(str(root)) or {}) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        assert paths(reads.kb_search(settings, "dirigible")) == ["notes/meeting.md"]
        assert "notes/meeting.md" not in (watching.changes(str(root)) or {})
    finally:
        readers.release()
        watching.stop_all()


def test_the_hooks_wiki_check_and_a_search_keep_each_other_trusted(kb, monkeypatch):
    settings, root = kb
    walked = walks(monkeypatch)
    for _ in range(2):
        handle = open_kb(settings.home, root)
        try:
            sync(handle, pages_only=True, trust_folders=True)  # the hook: the wiki only
        finally:
            handle.close()
        assert reads.kb_search(settings, "sandbox")["count"]
    assert walked == []
    (root / "wiki" / "dirigible.md").write_text("# Dirigible\n\nA dirigible.\n",
                                                 encoding="utf-8")
    handle = open_kb(settings.home, root)
    try:
        assert sync(handle, pages_only=True, trust_folders=True).read == 1
    finally:
        handle.close()
    assert paths(reads.kb_search(settings, "dirigible")) == ["wiki/dirigible.md"]
