"""`solograph refresh`, the nightly job with nothing but the command: the registry merge, a scan
of what changed (the scope honoured), the session sync and the KB index; a name the registry
lacks fails the run with exit 1."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.kb import make_kb
from tests.support.portfolio import git_init, write_tree
from tests.support.procs import solograph_cmd
from tests.support.transcripts import Transcripts


def world(tmp_path: Path) -> dict[str, str]:
    projects = tmp_path / "projects"
    for name in ("app", "api"):
        write_tree(projects / name, {"main.py": f"def {name}_entry():\n    pass\n"})
        git_init(projects / name)
    Transcripts(tmp_path / "claude").conversation("/home/dev/app", "fix the webhook", "Done.")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_PATH", "CODEGRAPH_"))}
    return {**env, "SOLOGRAPH_HOME": str(tmp_path / "home"),
            "CODEGRAPH_SCAN_PATH": str(projects), "CLAUDE_PROJECTS_PATH": str(tmp_path / "claude"),
            "KB_PATH": str(make_kb(tmp_path, config="kb:\n  pages: wiki/\n"))}


def refresh(env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(solograph_cmd("refresh", "--json"), env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_every_step_runs_from_the_command_alone(tmp_path):
    env = world(tmp_path)
    done = refresh(env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(report["registry"]["added"]) == ["api", "app"]
    assert report["scan"]["projects"] == 2 and report["scan"]["parsed"] == 2
    assert report["sessions"]["sessions"] == 1 and report["kb"]["docs"] > 0
    again = json.loads(refresh(env).stdout)
    assert again["scan"]["parsed"] == 0 and again["registry"]["added"] == []  # only changes


def test_the_scope_is_honoured_and_an_unknown_name_fails(tmp_path):
    env = world(tmp_path)
    scoped = json.loads(refresh({**env, "SOLOGRAPH_SCOPE": "app"}).stdout)
    assert scoped["scan"]["projects"] == 1
    failed = refresh({**env, "SOLOGRAPH_SCOPE": "app nope"})
    assert failed.returncode == 1 and "nope" in failed.stderr
    assert json.loads(failed.stdout)["error"] == "unknown_project"
    kb = Path(env["KB_PATH"])
    (kb / ".solograph.yaml").write_text("scope: [api]\n", encoding="utf-8")
    by_file = json.loads(refresh(env).stdout)
    assert by_file["scan"]["projects"] == 1
