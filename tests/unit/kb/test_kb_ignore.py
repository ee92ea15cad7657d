"""A KB's .gitignore and .indexignore (gitignore syntax, in any folder) keep pages out of the
index, as git itself would ignore them."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph.kb.layout import Layout
from solograph.kb.sync import index_kb
from solograph.kb.walk import walk
from tests.support.kb import make_kb


def write(root: Path, rel: str, text: str = "# x\n\nzeppelin notes\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_indexignore_in_a_folder_and_the_kb_gitignore(tmp_path):
    root = make_kb(tmp_path)
    settings = Settings(home=tmp_path / "home", kb_path=root)
    write(root, "tools/scripts/readme.md")
    write(root, "tools/notes.md")
    write(root, "drafts/zeppelin.md")
    write(root, "wiki/zeppelin-history.md")
    write(root, "tools/.indexignore", "scripts/\n")
    write(root, ".gitignore", "drafts/\n*.tmp.md\n")
    write(root, "wiki/scratch.tmp.md")
    found = {r["path"] for r in reads.kb_search(settings, "zeppelin notes", limit=50)["results"]}
    assert "tools/notes.md" in found and "wiki/zeppelin-history.md" in found
    assert not found & {"tools/scripts/readme.md", "drafts/zeppelin.md", "wiki/scratch.tmp.md"}
    (root / ".gitignore").write_text("drafts/\n", encoding="utf-8")  # a rule went: the page is back
    found = {r["path"] for r in reads.kb_search(settings, "zeppelin notes", limit=50)["results"]}
    assert "wiki/scratch.tmp.md" in found
    (root / "tools" / ".indexignore").write_text("*.md\n!notes.md\n", encoding="utf-8")
    report = index_kb(settings)
    docs = {r["path"] for r in reads.kb_search(settings, "zeppelin", limit=50)["results"]}
    assert "tools/notes.md" in docs and report["deleted"] == 0


def test_a_deeper_file_overrides_and_an_ignored_folder_stays_out(tmp_path):
    root = tmp_path / "kb"
    write(root, "a/keep.md")
    write(root, "a/b/keep.md")
    write(root, "logs/one.md")
    write(root, "logs/important.md")
    write(root, "out/keep.md")
    write(root, ".indexignore", "keep.md\nlogs/**\n!logs/important.md\nout/\n!out/keep.md\n")
    write(root, "a/b/.gitignore", "!keep.md\n")
    pages = set(walk(root, Layout()).pages)
    assert pages == {"a/b/keep.md", "logs/important.md"}
    assert set(walk(root, Layout(), under="a").pages) == {"a/b/keep.md"}  # the root's rules hold


NAMES = st.sampled_from(["a", "b", "notes", "tmp", "drafts", "x.md", "y.md", "keep.md",
                         "draft-1.md", "z"])
PATTERNS = st.sampled_from(["*.md", "!keep.md", "tmp/", "/drafts", "a/**/y.md", "**/notes",
                            "b/*", "!b/x.md", "draft-*.md", "z", "a/", "!a/keep.md", "#x.md",
                            "notes/**", "!notes/keep.md", "*", "!*/"])


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(st.lists(NAMES, min_size=1, max_size=4).map("/".join), min_size=1,
                      max_size=25),
       root_rules=st.lists(PATTERNS, max_size=6), deep_rules=st.lists(PATTERNS, max_size=4))
def test_the_same_pages_as_git_would_keep(paths, root_rules, deep_rules):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {p if p.endswith(".md") else p + ".md" for p in paths}
        folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
        files -= folders
        for f in files:
            write(root, f)
        write(root, ".gitignore", "\n".join(root_rules) + "\n")
        write(root, "a/.indexignore", "\n".join(deep_rules) + "\n")
        (root / "a" / ".gitignore").write_text("\n".join(deep_rules) + "\n", encoding="utf-8")
        subprocess.run(["git", "init", "-q", tmp], check=True)
        listed = subprocess.run(["git", "-C", tmp, "ls-files", "-z", "--others",
                                 "--exclude-standard"], capture_output=True, check=True)
        kept = {p for p in listed.stdout.decode().split("\0") if p.endswith(".md")}
        ours = set(walk(root, Layout()).pages)
    # pathspec differs from git only for a folder pattern ending in `**/`, not generated here
    assert ours == kept


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=300))
def test_any_ignore_file_never_stops_a_walk(text):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, "wiki/a.md")
        write(root, ".indexignore", text)
        write(root, "wiki/.gitignore", text[::-1])
        listing = walk(root, Layout())
    assert set(listing.pages) <= {"wiki/a.md"}
