"""A rescan lists a checkout with git only when something that could change its file list
moved (portfolio/listing.py); otherwise it plans from the stored list and still stats every
file. A path is trusted only when its stats are RACY_NS old; the tests set that margin to zero
so that files written a moment ago are trusted at once (their nanosecond ctimes still move on
every later change)."""

from __future__ import annotations

import subprocess

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.portfolio import listing, plan
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.portfolio import git_init, write_tree
from tests.support.spy import calls


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setattr(listing, "RACY_NS", 0)
    root = tmp_path / "projects" / "app"
    git_init(root)
    write_tree(root, {"src/app.py": "def first_function():\n    pass\n",
                      "src/deep/util.py": "def helper_function():\n    pass\n",
                      ".gitignore": "generated/\n",
                      "generated/out.py": "def generated_function():\n    pass\n"})
    settings = Settings(home=tmp_path / "home", scan_paths=(tmp_path / "projects",))
    refresh_registry(settings)
    scan_portfolio(settings)
    return settings, root


def found(settings, name: str) -> bool:
    return any(r["name"] == name for r in reads.symbol_search(settings, name)["results"])


def listed(monkeypatch) -> list:
    return calls(monkeypatch, plan, "list_files")


def test_a_rescan_with_nothing_moved_runs_no_git(repo, monkeypatch):
    settings, _root = repo
    gits = listed(monkeypatch)
    report = scan_portfolio(settings)
    assert gits == [] and report["parsed"] == 0 and report["unchanged"] == 2


def test_an_edit_in_place_is_read_without_git(repo, monkeypatch):
    settings, root = repo
    gits = listed(monkeypatch)
    with (root / "src" / "deep" / "util.py").open("a", encoding="utf-8") as fh:
        fh.write("\ndef added_in_place():\n    pass\n")
    assert scan_portfolio(settings)["parsed"] == 1 and gits == []
    assert found(settings, "added_in_place")


@pytest.mark.parametrize("change", ["new file", "new folder", "deleted", "ignore edited",
                                    "commit"])
def test_what_could_change_the_list_makes_git_list_it(repo, monkeypatch, change):
    settings, root = repo
    gits = listed(monkeypatch)
    if change == "new file":
        write_tree(root, {"src/deep/more.py": "def new_function():\n    pass\n"})
    elif change == "new folder":
        write_tree(root, {"src/fresh/mod.py": "def new_function():\n    pass\n"})
    elif change == "deleted":
        (root / "src" / "deep" / "util.py").unlink()
    elif change == "ignore edited":
        with (root / ".gitignore").open("w", encoding="utf-8") as fh:  # in place
            fh.write("# nothing ignored now\n")
    else:
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                        "commit", "-qm", "x"], check=True)
    scan_portfolio(settings)
    assert gits, "the list may have changed: git lists it"
    if change in ("new file", "new folder"):
        assert found(settings, "new_function")
    elif change == "deleted":
        assert not found(settings, "helper_function")
    elif change == "ignore edited":
        assert found(settings, "generated_function")
    assert scan_portfolio(settings)["parsed"] == 0


def test_a_checkout_changed_too_recently_is_listed_again(repo, monkeypatch):
    settings, root = repo
    monkeypatch.setattr(listing, "RACY_NS", 10**18)  # every stat is "too recent"
    write_tree(root, {"src/deep/more.py": "def new_function():\n    pass\n"})
    scan_portfolio(settings)
    gits = listed(monkeypatch)
    scan_portfolio(settings)
    assert gits, "no digest was kept: git lists it again"


def test_a_checkout_without_a_git_folder_is_always_listed(tmp_path, monkeypatch):
    monkeypatch.setattr(listing, "RACY_NS", 0)
    assert listing.keep(str(tmp_path), ["a.py"]) == ""
    assert not listing.unchanged(str(tmp_path), '{"paths": [""], "digest": "x"}')
