"""One bad page or config file never takes the KB index down, and the KB stays inside its
folder.

Generated input (hypothesis): frontmatter of YAML-ish garbage, impossible dates, huge
numbers, aliases, deep nesting, truncations and invalid UTF-8, between good pages; the layout
file, `scope:` and the alias table fed the same. Each asserts that nothing but the domain's
own ConfigError escapes (for the files whose mistakes must be named, never guessed around),
that the good pages before and after the bad one are searchable, and that a page written
after it still gets in.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings, _yaml_scope
from solograph.errors import ConfigError, NotFound
from solograph.kb import aliases, answers
from solograph.kb.layout import parse_layout
from solograph.kb.markdown import parse, split_frontmatter
from solograph.kb.store import open_kb
from solograph.kb.sync import index_kb, sync
from tests.support.kb import make_kb

EXAMPLES = 60
FAST = 200  # pure parsing, no index: cheap examples
QUIET = settings(max_examples=EXAMPLES, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PURE = settings(max_examples=FAST, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_YAML_BITS = st.sampled_from([
    "title: ", "tags: ", "aliases: ", "description: ", "created: ", "date: ", "- ", "? ", ": ",
    "[", "]", "{", "}", ",", "&a ", "*a ", "!!binary ", "!!timestamp ", "!!int ", "!!float ",
    "!!set ", "!!python/object ", "<<: ", "|\n  ", ">\n  ", "'", '"', "\\u", "\\ud800", "#",
    "\n", "\n  ", "\t", "2024-02-30", "2024-13-45", "2024-01-01 25:61:00", "9" * 5000, "._",
    "0b_", "0x", "1e99999", ".inf", "~", "null", "yes", "%YAML 1.1\n", "---\n", "...\n",
    "\x00", "\x07", "\ufeff", "пес", "sandbox", "x" * 3000,
])
yamlish = st.lists(st.one_of(_YAML_BITS, st.text(max_size=12)), max_size=40).map("".join)
deep = st.integers(60, 3_000).map(lambda n: "x: " + "[" * n + "]" * n)
dates = st.tuples(st.integers(0, 99999), st.integers(0, 99), st.integers(0, 99)).map(
    lambda t: f"created: {t[0]:04d}-{t[1]:02d}-{t[2]:02d}\ndate: {t[0]}-{t[1]}-{t[2]} 99:99")
alias_bomb = st.integers(2, 30).map(lambda n: "a0: &a0 [x, x]\n" + "".join(
    f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, n)) + f"tags: *a{n - 1}\n")
frontmatter = st.one_of(yamlish, deep, dates, alias_bomb)


def page_bytes(meta: str, body: str) -> st.SearchStrategy[bytes]:
    whole = f"---\n{meta}\n---\n{body}\n".encode()
    return st.one_of(
        st.just(whole),
        st.integers(0, len(whole)).map(lambda k: whole[:k]),  # truncated anywhere
        st.binary(min_size=1, max_size=8).map(lambda junk: whole[:4] + junk + whole[4:]),
    )


bad_pages = frontmatter.flatmap(lambda meta: page_bytes(meta, "middlemarker words"))


@PURE
@given(meta=frontmatter)
def test_frontmatter_never_raises(meta):
    data, body, line, problem = split_frontmatter(f"---\n{meta}\n---\nthe body\n")
    assert isinstance(data, dict) and isinstance(problem, str)
    page = parse(f"---\n{meta}\n---\n# Heading\nthe body\n", "wiki/x.md")
    assert isinstance(page.title, str) and all(isinstance(t, str) for t in page.tags)


@QUIET
@given(bad=bad_pages)
def test_generated_bad_pages_never_stop_a_sync(bad):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "kb"
        (root / "wiki").mkdir(parents=True)
        (root / "wiki" / "a-first.md").write_text("# First\n\nfirstmarker words\n")
        (root / "wiki" / "m-bad.md").write_bytes(bad)
        (root / "wiki" / "z-last.md").write_text("# Last\n\nlastmarker words\n")
        kb = open_kb(Path(tmp) / "home", root)
        try:
            report = sync(kb)
            assert report.docs == 3
            for word, path in (("firstmarker", "wiki/a-first.md"),
                               ("lastmarker", "wiki/z-last.md")):
                assert path in [r["path"] for r in answers.kb_search(kb, query=word)["results"]]
            (root / "wiki" / "n-after.md").write_text("# After\n\naftermarker words\n")
            sync(kb)
            assert answers.kb_search(kb, query="aftermarker")["count"] == 1
        finally:
            kb.close()


def test_frontmatter_with_an_impossible_date_is_indexed_with_its_text(tmp_path):
    """Measured: ValueError inside PyYAML; index-kb crashed and every KB read failed."""
    root = make_kb(tmp_path, config="", pages={
        "wiki/a.md": "---\ntitle: Quarterly plan\ncreated: 2024-02-30\ndate: 2024-13-45\n"
                     "description: 2024-02-30\n---\n# Quarterly plan\n\nbudget review\n",
        "wiki/b.md": "# Other\n\nbudget notes\n"})
    settings = Settings(home=tmp_path / "home", kb_path=root)
    report = index_kb(settings)
    assert report["docs"] == 2 and report["problems"] == 0
    page = reads.kb_get(settings, "wiki/a.md")
    assert (page["title"], page["description"]) == ("Quarterly plan", "2024-02-30")
    assert reads.kb_search(settings, "budget")["count"] == 2


def test_frontmatter_nested_past_the_limit_is_a_problem_not_a_crash():
    _, body, _, problem = split_frontmatter("---\nx: " + "[" * 900 + "]" * 900 + "\n---\nbody")
    assert "nested deeper than" in problem and body == "body"


# --------------------------------------------------------------------------- config files


@PURE
@given(text=st.one_of(yamlish, deep, dates, alias_bomb,
                      yamlish.map(lambda t: "kb:\n  pages: " + t),
                      yamlish.map(lambda t: "kb:\n  exclude: " + t),
                      yamlish.map(lambda t: "scope: " + t)),
       invalid_utf8=st.booleans())
def test_layout_and_scope_raise_only_config_errors(text, invalid_utf8, tmp_path_factory):
    with contextlib.suppress(ConfigError):
        parse_layout(text)
    folder = tmp_path_factory.mktemp("scope")
    data = text.encode("utf-8", "replace") + (b"\xff\xfe" if invalid_utf8 else b"")
    (folder / ".solograph.yaml").write_bytes(data)
    with contextlib.suppress(ConfigError):
        assert all(isinstance(s, str) for s in _yaml_scope(folder / ".solograph.yaml"))


@PURE
@given(text=st.one_of(yamlish, deep, alias_bomb,
                      st.lists(st.lists(st.text(max_size=6), max_size=3), max_size=4).map(
                          lambda groups: "".join(f"- {g}\n" for g in groups))))
def test_alias_table_raises_only_config_errors_and_load_never(text, tmp_path_factory):
    try:
        groups = aliases.parse(text)
        assert all(len(g) >= 2 for g in groups)
    except ConfigError:
        pass
    folder = tmp_path_factory.mktemp("aliases")
    (folder / "_aliases.yaml").write_text(text, encoding="utf-8", errors="replace")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    table = aliases.load(conn, folder / "_aliases.yaml")
    again = aliases.load(conn, folder / "_aliases.yaml")  # from the cache
    assert (table.groups, table.problem) == (again.groups, again.problem)


def test_a_bad_alias_table_searches_without_aliases_and_says_so(tmp_path):
    """Issue: a bad _aliases.yaml failed every KB search with config_error."""
    root = make_kb(tmp_path)
    (root / "wiki" / "_aliases.yaml").write_text("- [a: b, ?c]\n- [unclosed\n")
    settings = Settings(home=tmp_path / "home", kb_path=root)
    answer = reads.kb_search(settings, "sandbox")
    assert answer["count"] > 0 and "searching without aliases" in answer["warnings"][0]
    assert "warnings" in reads.kb_aliases(settings)
    (root / "wiki" / "_aliases.yaml").write_text("- [песочница, sandbox]\n")
    fixed = reads.kb_search(settings, "песочница")
    assert "warnings" not in fixed and fixed["aliases"]


# --------------------------------------------------------------------------- inside the KB


def test_links_leaving_the_kb_are_not_followed(tmp_path):
    """Measured: wiki/netrc.md -> ~/.netrc was indexed and served by `kb get`; a link to /
    walked the whole disk."""
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    (outside / "netrc").write_text("machine example.com login me password hunter2secret\n")
    (outside / "docs" / "manual.md").write_text("# Manual\n\nfarawayword\n")
    root = make_kb(tmp_path)
    (root / "wiki" / "netrc.md").symlink_to(outside / "netrc")
    (root / "wiki" / "usr").symlink_to(outside / "docs")
    (root / "wiki" / "disk").symlink_to("/")
    (root / "wiki" / "same.md").symlink_to(root / "wiki" / "recipe-box.md")  # inside: kept
    settings = Settings(home=tmp_path / "home", kb_path=root)
    report = index_kb(settings)
    assert report["outside"] == ["wiki/disk", "wiki/netrc.md", "wiki/usr"]
    with pytest.raises(NotFound):
        reads.kb_get(settings, "wiki/netrc.md")
    assert reads.kb_search(settings, "hunter2secret")["count"] == 0
    assert reads.kb_search(settings, "farawayword")["count"] == 0
    assert reads.kb_get(settings, "wiki/same.md")["title"]
    db = Settings(home=tmp_path / "home", kb_path=root).kb_db
    assert b"hunter2secret" not in db.read_bytes()


def test_a_page_that_leaves_the_index_leaves_the_files_bytes(tmp_path):
    root = make_kb(tmp_path)
    (root / "notes" / "client").mkdir(parents=True)
    (root / "notes" / "client" / "deal.md").write_text("# Deal\n\nqqzorkmidplover terms\n")
    settings = Settings(home=tmp_path / "home", kb_path=root)
    index_kb(settings)
    assert reads.kb_search(settings, "qqzorkmidplover")["count"] == 1
    db = settings.kb_db
    (root / "notes" / "client" / ".solograph-private").touch()
    assert index_kb(settings)["deleted"] == 1
    data = b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists())
    assert b"qqzorkmidplover" not in data
    assert reads.kb_search(settings, "sandbox")["count"] > 0


def test_a_page_once_unreadable_is_read_again_when_it_can_be(tmp_path):
    """A chmod leaves the mtime alone: a page stored as unreadable is tried again anyway."""
    root = make_kb(tmp_path)
    settings = Settings(home=tmp_path / "home", kb_path=root)
    index_kb(settings)
    kb = open_kb(settings.home, root)
    try:
        kb.conn.execute("UPDATE docs SET problem = 'unreadable: Permission denied' "
                        "WHERE path = 'wiki/recipe-box.md'")
        assert sync(kb).read == 1
        assert kb.conn.execute("SELECT problem FROM docs WHERE path = 'wiki/recipe-box.md'"
                               ).fetchone()[0] == ""
    finally:
        kb.close()
