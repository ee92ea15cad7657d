"""What a newcomer mistypes in the first hour gets an exit code a script can test and a hint
a person can follow: a package no project uses (exit 1, like grep), a project to scan that the
registry lacks, by name or by path (exit 2, a usage error), and a command or a choice one
letter off ("did you mean")."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph_services.cli.main import main as run_here
from solograph_services.mcp.handshake import INSTRUCTIONS
from tests.support.portfolio import make_portfolio
from tests.support.procs import solograph_cmd


@pytest.fixture
def scanned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    settings = Settings(home=tmp_path / "home", scan_paths=(make_portfolio(tmp_path),))
    refresh_registry(settings)
    scan_portfolio(settings)
    monkeypatch.setenv("SOLOGRAPH_HOME", str(settings.home))
    monkeypatch.setenv("CODEGRAPH_SCAN_PATH", str(settings.scan_paths[0]))
    return settings


def test_a_package_no_project_uses_is_nothing_found_exit_1(scanned, capsys):
    assert run_here(["shared", "nosuchpkg"]) == 1
    out = capsys.readouterr()
    assert "nothing found" in out.err and "nosuchpkg" in out.err
    assert run_here(["shared", "nosuchpkg", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["projects"] == []
    assert run_here(["shared", "react"]) == 0  # a package some project uses


def test_a_mistyped_project_to_scan_is_a_usage_error_with_a_hint(scanned, capsys):
    assert run_here(["scan", "-p", "web-ap"]) == 2
    assert "did you mean: web-app?" in capsys.readouterr().err
    assert run_here(["scan", "-p", "wbe-app"]) == 2  # two letters swapped
    assert "did you mean: web-app?" in capsys.readouterr().err
    root = scanned.scan_paths[0]
    assert run_here(["scan", "-p", str(root / "web-ap")]) == 2
    assert "there is no folder" in capsys.readouterr().err
    assert run_here(["scan", "-p", str(root / "web-app")]) == 0  # a checkout's path is its name
    assert "scanned 1 project" in capsys.readouterr().out


def test_a_mistyped_command_or_choice_gets_did_you_mean(scanned, capsys):
    with pytest.raises(SystemExit) as exited:
        run_here(["symbls", "auth"])
    assert exited.value.code == 2
    assert "did you mean 'symbols'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_here(["sessions", "x", "--format", "jsnl"])
    assert "did you mean 'jsonl'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_here(["zzzzzz"])
    assert "choose from" in capsys.readouterr().err  # nothing near: the whole list


def test_the_installed_command_says_it_too(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CODEGRAPH"))}
    done = subprocess.run(solograph_cmd("explian", "web-app"), capture_output=True, text=True,
                          timeout=60, env={**env, "SOLOGRAPH_HOME": str(tmp_path / "home")})
    assert done.returncode == 2 and "did you mean 'explain'?" in done.stderr


def test_the_mcp_instructions_name_every_source():
    for name in ("YouTube", "ProductHunt", "TrustMRR", "Telegram"):
        assert name in INSTRUCTIONS
