"""The portfolio rows a newcomer meets first: a scan path that is not there or holds no
checkout is a warning with the fix, a removed project names `registry --add PATH`, and counts
read "1 project", not "1 projects"."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import UnknownProject
from solograph.portfolio.sync import edit_registry, refresh_registry, scan_portfolio
from solograph.refresh import refresh
from tests.support.portfolio import git_init, write_tree
from tests.support.procs import solograph_cmd


def one_checkout(base: Path) -> Path:
    root = base / "projects"
    write_tree(root / "solo", {"main.py": "def only_function():\n    pass\n"})
    git_init(root / "solo")
    return root


def test_a_scan_path_that_is_not_there_or_holds_no_checkout_is_a_warning(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no checkout here", encoding="utf-8")
    gone = tmp_path / "typo"
    settings = Settings(home=tmp_path / "home", scan_paths=(gone, empty, one_checkout(tmp_path)),
                        claude_projects=tmp_path / "claude")
    warnings = refresh_registry(settings)["warnings"]
    assert len(warnings) == 2
    assert f"scan path {gone} does not exist" in warnings[0]
    assert "CODEGRAPH_SCAN_PATH" in warnings[0]
    assert f"scan path {empty} holds no git checkout" in warnings[1]
    assert "warning: scan path" in refresh(settings)["summary"]
    env = {**os.environ, "SOLOGRAPH_HOME": str(settings.home),
           "CODEGRAPH_SCAN_PATH": f"{gone},{empty}", "CLAUDE_PROJECTS_PATH": str(tmp_path)}
    done = subprocess.run(solograph_cmd("registry"), env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stderr.count("warning: scan path") == 2


def test_a_removed_project_gets_the_add_hint(tmp_path):
    root = one_checkout(tmp_path)
    settings = Settings(home=tmp_path / "home", scan_paths=(root,))
    refresh_registry(settings)
    edit_registry(settings, remove="solo")
    with pytest.raises(UnknownProject) as caught:
        reads.project_info(settings, "explain", project="solo")
    assert caught.value.hint == f"bring it back with `solograph registry --add {root / 'solo'}`"
    with pytest.raises(UnknownProject) as caught:
        scan_portfolio(settings, projects=["solo"])
    assert "registry --add" in caught.value.hint
    with pytest.raises(UnknownProject) as caught:
        reads.project_info(settings, "explain", project="never-heard-of")
    assert "registry --add" not in caught.value.hint


def test_one_of_a_thing_is_singular(tmp_path):
    root = one_checkout(tmp_path)
    settings = Settings(home=tmp_path / "home", scan_paths=(root,))
    refresh_registry(settings)
    summary = scan_portfolio(settings)["summary"]
    assert summary.startswith("scanned 1 project: 1 file,") and "1 definition indexed" in summary
    env = {**os.environ, "SOLOGRAPH_HOME": str(settings.home), "CODEGRAPH_SCAN_PATH": str(root)}
    for args, said in ((["registry"], "1 project registered"),
                       (["stats"], "1 project (1 scanned), 1 file, 2 lines, 1 definition"),
                       (["projects"], "1 file"), (["explain", "solo"], "1 file, 2 lines")):
        out = subprocess.run(solograph_cmd(*args), env=env, capture_output=True, text=True,
                             timeout=60).stdout
        assert said in out, (args, out)
        assert "1 files" not in out and "1 projects" not in out
