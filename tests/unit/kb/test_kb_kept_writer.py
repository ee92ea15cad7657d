"""A long-lived process (the HTTP API, the MCP server) keeps one writer per thread on a KB's
index between reads, as it does on the session index: each search still syncs first and sees
every edit and a changed layout; only such a connection maps the file, one opened for one read
reads its pages in."""

from __future__ import annotations

from pathlib import Path

import pytest

from solograph import readers, reads
from solograph.config import Settings
from solograph.kb import store
from solograph.watching import stop_all
from tests.support.kb import make_kb
from tests.support.spy import calls


@pytest.fixture
def kb(tmp_path: Path):
    root = make_kb(tmp_path)
    yield Settings(home=tmp_path / "home", kb_path=root), root
    stop_all()  # the watch a kept read starts


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def test_a_long_lived_process_keeps_one_writer_and_sees_each_edit(kb, keeping, monkeypatch):
    settings, root = kb
    opened = calls(monkeypatch, store, "connect_writer")
    assert "wiki/agent-sandboxing.md" in paths(reads.kb_search(settings, "sandbox"))
    assert "wiki/recipe-box.md" not in paths(reads.kb_search(settings, "zeppelin"))
    page = root / "wiki" / "recipe-box.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nThe zeppelin importer.\n",
                    encoding="utf-8")
    assert "wiki/recipe-box.md" in paths(reads.kb_search(settings, "zeppelin"))
    assert len(opened) == 1
    kept = readers._opened[0]
    assert not kept.in_transaction
    assert kept.execute("PRAGMA mmap_size").fetchone()[0] > 0


def test_a_changed_layout_is_read_on_the_next_kept_read(kb, keeping):
    settings, root = kb
    assert reads.kb_search(settings, "sandbox", pages=True)["results"]
    (root / "notes").mkdir(exist_ok=True)
    (root / "notes" / "blimp.md").write_text("# Blimp\n\nA blimp hangar plan.\n",
                                              encoding="utf-8")
    (root / ".solograph.yaml").write_text("kb:\n  pages: notes/\n", encoding="utf-8")
    assert paths(reads.kb_search(settings, "blimp hangar", pages=True))[0] == "notes/blimp.md"


def test_without_keep_each_read_opens_its_own_unmapped_writer(kb, monkeypatch):
    settings, _ = kb
    opened = calls(monkeypatch, store, "connect_writer")
    mapped = []
    real = store.open_kb

    def spy(*args, **kwargs):
        handle = real(*args, **kwargs)
        mapped.append(handle.conn.execute("PRAGMA mmap_size").fetchone()[0])
        return handle

    monkeypatch.setattr(store, "open_kb", spy)
    for _ in range(2):
        reads.kb_search(settings, "sandbox")
    assert len(opened) == 2 and mapped == [0, 0] and not readers._opened
