"""`.solograph.yaml`: the layout of a KB, its errors, and where its index lives."""

from __future__ import annotations

import os
import stat

import pytest

from solograph import reads
from solograph.config import Settings, kb_db_path
from solograph.errors import ConfigError, NotIndexed
from solograph.kb.layout import Layout, load_layout, parse_layout
from tests.support.kb import make_kb


def test_defaults_without_a_file(tmp_path):
    assert load_layout(tmp_path) == Layout(pages="wiki")


def test_every_key_is_read():
    layout = parse_layout("kb:\n  pages: notes/wiki/\n  stacks: 1-methodology/stacks\n"
                          "  exclude: [archive, clients/acme]\n  memory_gate: h/gate.json\n"
                          "  language: EN\nscope: [a, b]\n")
    assert layout == Layout(pages="notes/wiki", stacks="1-methodology/stacks",
                            exclude=("archive", "clients/acme"), memory_gate="h/gate.json",
                            language="en")
    assert Layout.from_json(layout.to_json()) == layout
    assert parse_layout("kb:\n  pages: .\n").pages == ""


@pytest.mark.parametrize("text, named", [
    ("kb:\n  page: wiki/\n", "kb.page"),
    ("kb:\n  exlude: [x]\n", "kb.exlude"),
    ("kbb:\n  pages: wiki/\n", "kbb"),
    ("kb:\n  memory-gate: x.json\n", "kb.memory-gate"),
])
def test_an_unknown_key_is_an_error_that_names_it(text, named):
    with pytest.raises(ConfigError) as err:
        parse_layout(text)
    assert f"`{named}`" in err.value.message


def test_a_typo_gets_a_suggestion():
    with pytest.raises(ConfigError) as err:
        parse_layout("kb:\n  exlude: [x]\n")
    assert "did you mean `kb.exclude`" in err.value.message


@pytest.mark.parametrize("text", ["kb:\n  pages: ../elsewhere\n", "kb:\n  pages: /abs\n",
                                  "kb:\n  exclude: 3\n", "kb: [1, 2]\n", "- a\n",
                                  "kb:\n  pages: [\n", "kb:\n  language: english!\n",
                                  "kb:\n  language: [en]\n"])
def test_bad_values_are_errors(text):
    with pytest.raises(ConfigError):
        parse_layout(text)


def test_a_layout_cached_before_the_language_key_still_reads():
    old = '{"exclude": [], "memory_gate": "", "pages": "wiki", "stacks": ""}'
    assert Layout.from_json(old) == Layout()


def test_exclude_takes_a_bare_name_anywhere_or_a_path_from_the_root():
    layout = Layout(exclude=("archive", "clients/acme"))
    assert layout.excluded("archive/x.md")
    assert layout.excluded("notes/archive/deep/x.md")
    assert layout.excluded("clients/acme/x.md")
    assert not layout.excluded("clients/other/x.md")
    assert not layout.excluded("notes/clients/acme/x.md")
    assert not layout.excluded("archived.md")


def test_the_index_lives_under_home_one_file_per_kb(tmp_path):
    a = kb_db_path(tmp_path / "home", tmp_path / "kb-a")
    b = kb_db_path(tmp_path / "home", tmp_path / "kb-b")
    assert a != b and a.parent == b.parent == tmp_path / "home" / "kb"
    assert kb_db_path(tmp_path / "home", tmp_path / "x" / ".." / "kb-a") == a
    assert Settings(home=tmp_path / "home", kb_path=tmp_path / "kb-a").kb_db == a


def test_a_read_only_kb_is_indexed_and_nothing_is_written_into_it(tmp_path):
    root = make_kb(tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        settings = Settings(home=tmp_path / "home", kb_path=root)
        assert reads.kb_search(settings, "recipe")["count"] > 0
        assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
        assert settings.kb_db.exists()
    finally:
        for path in [root, *root.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_a_typo_in_the_kbs_file_fails_the_search_naming_it(tmp_path):
    root = make_kb(tmp_path, config="kb:\n  pagse: wiki/\n")
    with pytest.raises(ConfigError) as err:
        reads.kb_search(Settings(home=tmp_path / "home", kb_path=root), "recipe")
    assert "kb.pagse" in err.value.message


def test_a_missing_kb_and_no_kb_are_clear_errors(tmp_path):
    with pytest.raises(NotIndexed):
        reads.kb_search(Settings(home=tmp_path, kb_path=tmp_path / "nope"), "x")
    with pytest.raises(NotIndexed) as err:
        reads.kb_search(Settings(home=tmp_path), "x")
    assert "KB_PATH" in err.value.hint


def test_a_changed_layout_reindexes(tmp_path):
    root = make_kb(tmp_path)
    settings = Settings(home=tmp_path / "home", kb_path=root)
    assert reads.kb_graph(settings)["pages"] == 6
    (root / ".solograph.yaml").write_text("kb:\n  pages: notes/\n", encoding="utf-8")
    os.utime(root / ".solograph.yaml", ns=(1, 1))
    assert reads.kb_graph(settings)["pages"] == 2
    assert reads.kb_search(settings, "archived", path="archive")["count"] == 1  # no exclude now
