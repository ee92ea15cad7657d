"""Never stale: the index re-reads changed pages, drops deleted ones, finds new ones, and
never stores a secret."""

from __future__ import annotations

import os
import sqlite3

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph.kb.store import open_kb
from solograph.kb.sync import index_kb, sync
from tests.support.kb import make_kb


@pytest.fixture
def kb(tmp_path):
    root = make_kb(tmp_path)
    return Settings(home=tmp_path / "home", kb_path=root), root


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def test_first_sync_reads_everything_then_nothing(kb):
    settings, root = kb
    first = index_kb(settings)
    assert first["read"] == first["docs"] == 9 and first["pages"] == 6
    assert "9 documents (6 in wiki/)" in first["summary"]
    second = index_kb(settings)
    assert second["read"] == 0 and second["deleted"] == 0


def test_excluded_hidden_and_private_folders_are_never_read(kb):
    settings, root = kb
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "x.md").write_text("zeppelins", encoding="utf-8")
    (root / "private").mkdir()
    (root / "private" / ".solograph-private").write_text("", encoding="utf-8")
    (root / "private" / "diary.md").write_text("zeppelins", encoding="utf-8")
    found = paths(reads.kb_search(settings, "zeppelins"))
    assert found == ["clients/other/public.md", "wiki/orphan-note.md"] or \
        sorted(found) == ["clients/other/public.md", "wiki/orphan-note.md"]
    assert reads.kb_search(settings, "archived")["count"] == 0
    assert reads.kb_search(settings, "client sandbox", path="clients/acme")["count"] == 0


def test_a_changed_page_is_read_again_before_the_answer(kb):
    settings, root = kb
    assert reads.kb_search(settings, "dirigible")["count"] == 0
    page = root / "notes" / "meeting.md"
    page.write_text("# Meeting notes\n\nWe talked about a dirigible.\n", encoding="utf-8")
    os.utime(page, ns=(10**18, 10**18))
    assert paths(reads.kb_search(settings, "dirigible")) == ["notes/meeting.md"]


def test_a_deleted_page_is_dropped_and_a_new_one_found(kb):
    settings, root = kb
    assert "wiki/orphan-note.md" in paths(reads.kb_search(settings, "zeppelins"))
    (root / "wiki" / "orphan-note.md").unlink()
    (root / "wiki" / "airships.md").write_text("# Airships\n\nzeppelins everywhere\n",
                                                encoding="utf-8")
    found = paths(reads.kb_search(settings, "zeppelins"))
    assert "wiki/orphan-note.md" not in found and "wiki/airships.md" in found


def test_a_new_page_mends_the_links_that_pointed_to_it(kb):
    settings, root = kb
    before = reads.kb_graph(settings)
    assert {"from": "wiki/index.md", "line": 9, "target": "missing-page",
            "reason": "no page"} in before["broken"]
    (root / "wiki" / "missing-page.md").write_text("# Missing page\n\nnow written\n",
                                                    encoding="utf-8")
    after = reads.kb_graph(settings)
    assert all(b["target"] != "missing-page" for b in after["broken"])
    assert "wiki/missing-page.md" not in after["missing_from_index"]


def test_a_changed_catalog_line_changes_what_search_finds(kb):
    settings, root = kb
    assert reads.kb_search(settings, "quokka")["count"] == 0
    index = root / "wiki" / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace(
        "the recipe app", "the recipe app, quokka edition"), encoding="utf-8")
    os.utime(index, ns=(10**18, 10**18))
    found = paths(reads.kb_search(settings, "quokka"))
    assert "wiki/recipe-box.md" in found
    page = reads.kb_get(settings, "wiki/recipe-box.md")
    assert "quokka" in page["index_line"]


def test_secrets_never_enter_the_index(kb):
    settings, root = kb
    index_kb(settings)
    conn = sqlite3.connect(settings.kb_db)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert "sk-proj-abcdefghijklmnopqrstuvwxyz" not in dump
    assert "OPENAI_API_KEY=[REDACTED]" in dump


def test_an_index_written_under_older_rules_is_cleaned_on_open(kb):
    settings, root = kb
    index_kb(settings)
    conn = sqlite3.connect(settings.kb_db)
    conn.execute("UPDATE docs SET body = 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz01' "
                 "WHERE path = 'wiki/privacy-architecture.md'")
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'rules_version'")
    conn.commit()
    conn.close()
    assert index_kb(settings)["read"] == 9
    page = reads.kb_get(settings, "wiki/privacy-architecture.md")
    assert "sk-proj" not in page["text"]


def test_huge_and_binary_files_are_counted_not_fatal(kb):
    settings, root = kb
    (root / "notes" / "huge.md").write_text("x " * 600_000, encoding="utf-8")
    (root / "notes" / "bin.md").write_bytes(b"\x00\x01\xff\xfe zeppelins \x00")
    report = index_kb(settings)
    assert report["huge"] == ["notes/huge.md"]
    assert "notes/bin.md" in paths(reads.kb_search(settings, "zeppelins"))


def test_the_hook_sync_touches_only_the_wiki(tmp_path):
    root = make_kb(tmp_path)
    kb = open_kb(tmp_path / "home", root)
    try:
        report = sync(kb, pages_only=True)
        assert report.docs == report.pages == 6
        full = sync(kb)
        assert full.read == 3 and full.docs == 9
    finally:
        kb.close()


def test_a_touched_page_is_known_by_its_hash_and_not_read_again(kb):
    settings, root = kb
    index_kb(settings)
    page = root / "wiki" / "recipe-box.md"
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # `touch`
    touched = index_kb(settings)
    assert (touched["touched"], touched["read"]) == (1, 0)
    again = index_kb(settings)  # the new mtime was noted: nothing to look at now
    assert (again["touched"], again["read"]) == (0, 0)
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("Recipe", "Recipi", 1), encoding="utf-8")  # same size
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 9_000_000_000))
    changed = index_kb(settings)
    assert (changed["touched"], changed["read"]) == (0, 1)
    assert reads.kb_search(settings, "recipi")["results"][0]["path"] == "wiki/recipe-box.md"


def test_an_index_from_before_the_hash_is_read_once_more(kb):
    settings, root = kb
    index_kb(settings)
    conn = sqlite3.connect(settings.kb_db)  # back to what the first migration made
    conn.execute("ALTER TABLE docs DROP COLUMN hash")
    conn.execute("ALTER TABLE docs DROP COLUMN compacted")
    conn.execute("DELETE FROM _migrations WHERE name LIKE '0002%'")
    conn.commit()
    conn.close()
    report = index_kb(settings)
    assert report["read"] == report["docs"] == 9  # each page read once more, hash filled
    conn = sqlite3.connect(settings.kb_db)
    assert conn.execute("SELECT COUNT(*) FROM docs WHERE hash = ''").fetchone()[0] == 0
    conn.close()
    assert index_kb(settings)["read"] == 0


# --------------------------------------------------------------------------- links, generated

NAMES = ["Taproot", "taproot", "graph", "Граф", "граф", "alpha-beta", "notes/taproot",
         "../graph", "./alpha-beta", "en/graph", "img.png", "..", "index"]
FOLDERS = ["wiki", "wiki/en", "wiki/notes", "wiki/en/deep"]


def _links_of(settings: Settings) -> list[tuple]:
    """Where each link points, and each page's catalog line."""
    kb = open_kb(settings.home, settings.kb_path)
    try:
        return [*kb.conn.execute(
            "SELECT s.path, l.target, l.line, d.path, l.asset FROM links l "
            "JOIN docs s ON s.id = l.src LEFT JOIN docs d ON d.id = l.dst "
            "ORDER BY s.path, l.line, l.target"),
            *kb.conn.execute("SELECT path, index_line FROM docs ORDER BY path")]
    finally:
        kb.close()


_page = st.tuples(st.sampled_from(FOLDERS), st.sampled_from(["taproot", "graph", "Граф",
                                                             "alpha-beta", "index", "other"]),
                  st.lists(st.sampled_from(NAMES), max_size=4))
_asset = st.tuples(st.sampled_from(FOLDERS), st.sampled_from(["img.png", "graph.png"]))


@hsettings(max_examples=25, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_page, min_size=1, max_size=8), st.lists(_asset, max_size=2),
       st.lists(st.tuples(st.booleans(), _page), min_size=1, max_size=5))
def test_links_resolve_after_pages_come_and_go_as_in_a_new_index(tmp_path_factory, pages,
                                                                  assets, steps):
    """Pages and assets added and removed one sync after another: every link points where an
    index made from scratch of the same folder points it, catalog lines included."""
    base = tmp_path_factory.mktemp("links")
    root = base / "kb"

    def write(folder: str, name: str, targets: list[str]) -> None:
        (root / folder).mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"- [[{t}]] about {name}" for t in targets)
        (root / folder / f"{name}.md").write_text(f"# {name}\n\n{body}\n", encoding="utf-8")

    for folder, name, targets in pages:
        write(folder, name, targets)
    for folder, name in assets:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_bytes(b"\x89PNG")
    kept = Settings(home=base / "kept", kb_path=root)
    index_kb(kept)
    for n, (add, (folder, name, targets)) in enumerate(steps):
        page = root / folder / f"{name}.md"
        if add or not page.exists():
            write(folder, name, targets)
        else:
            page.unlink()
        index_kb(kept)
        fresh = Settings(home=base / f"fresh{n}", kb_path=root)
        index_kb(fresh)
        assert _links_of(kept) == _links_of(fresh)
