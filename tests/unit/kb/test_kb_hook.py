"""`solograph hook` as Claude Code runs it: a whole process, hook JSON in, its JSON out or
nothing; silent with exit 0 on garbage, a missing KB, a locked or broken store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from solograph.config import Settings
from solograph.kb import memgate
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.kb import PAGES, make_kb
from tests.support.portfolio import make_portfolio
from tests.support.procs import solograph_cmd
from tests.unit.kb.test_kb_hint import PAGES as HINT_PAGES
from tests.unit.kb.test_kb_memgate import labelled

CONFIG = "kb:\n  pages: wiki/\n  memory_gate: harness/memory-gate.json\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("hook")
    home = base / "home"
    projects = make_portfolio(base)
    settings = Settings(home=home, scan_paths=(projects,))
    refresh_registry(settings)
    scan_portfolio(settings, projects=["web-app"])
    kb = make_kb(base, pages={**PAGES, **HINT_PAGES}, config=CONFIG)
    gate, _ = memgate.train(labelled(150, seed=1))
    (kb / "harness").mkdir()
    (kb / "harness" / "memory-gate.json").write_text(gate.to_json(), encoding="utf-8")
    return {"home": home, "kb": kb, "project": projects / "web-app", "base": base}


def run(world: dict, payload: object, *args: str, raw: bytes | None = None,
        env: dict | None = None) -> subprocess.CompletedProcess:
    data = raw if raw is not None else json.dumps(payload).encode()
    argv = args or ("--kb-path", str(world["kb"]))
    return subprocess.run(solograph_cmd("hook", *argv), input=data, capture_output=True,
                          timeout=10, env={**os.environ, "SOLOGRAPH_HOME": str(world["home"]),
                                           **(env or {})})


def prompt(session: str, text: str, cwd: str = "/tmp") -> dict:
    return {"session_id": session, "transcript_path": "/x.jsonl", "cwd": cwd,
            "prompt_id": "p1", "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit", "prompt": text}


def start(session: str, cwd: str, source: str = "startup") -> dict:
    return {"session_id": session, "transcript_path": "/x.jsonl", "cwd": cwd,
            "hook_event_name": "SessionStart", "source": source}


def context(done: subprocess.CompletedProcess, event: str) -> str:
    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == event
    return out["hookSpecificOutput"]["additionalContext"]


def test_a_prompt_gets_the_wiki_hint_once_per_session(world):
    first = run(world, prompt("h1", "how should we feed a quokka in summer?"))
    assert "wiki/quokka-care.md" in context(first, "UserPromptSubmit")
    again = run(world, prompt("h1", "feed the quokka in summer"))
    assert again.returncode == 0 and again.stdout == b""


def test_kb_hint_hook_works_alone(world):
    done = subprocess.run(solograph_cmd("kb-hint", "--hook", "--kb-path", str(world["kb"])),
                          input=json.dumps(prompt("h2", "feed the quokka in summer")).encode(),
                          capture_output=True, timeout=10,
                          env={**os.environ, "SOLOGRAPH_HOME": str(world["home"])})
    assert "wiki/quokka-care.md" in context(done, "UserPromptSubmit")


def test_session_start_maps_the_project_once(world):
    cwd = str(world["project"] / "src")
    text = context(run(world, start("m1", cwd)), "SessionStart")
    assert "Project map: web-app" in text and "react" in text and "symbol_search" in text
    assert "source_search (search talks, launches and revenue pages)" in text  # every tool
    assert run(world, start("m1", cwd)).stdout == b""
    assert run(world, prompt("m1", "fix the login form", cwd)).stdout == b""
    # after /compact the agent's context no longer holds the map
    assert "Project map" in context(run(world, start("m1", cwd, "compact")), "SessionStart")


def test_the_first_prompt_that_starts_work_maps_the_project(world):
    cwd = str(world["project"])
    assert run(world, prompt("m2", "hello there", cwd)).stdout == b""
    text = context(run(world, prompt("m2", "почини, пожалуйста, форму входа", cwd)),
                   "UserPromptSubmit")
    assert text.startswith("Project map: web-app")
    assert run(world, prompt("m2", "now implement the logout", cwd)).stdout == b""


def test_no_map_outside_a_registered_project(world):
    assert run(world, start("m3", "/tmp")).stdout == b""


def test_the_memory_nudge(world):
    text = context(run(world, prompt("n1", "как мы делали кэш в прошлый раз")),
                   "UserPromptSubmit")
    assert "session_search" in text and "kb_search" in text
    assert run(world, prompt("n2", "напиши тест для парсера")).stdout == b""
    assert run(world, prompt("n3", "кэш?")).stdout == b""


def test_usage_lines_never_hold_the_prompt(world):
    run(world, prompt("u1", "how should we feed a quokka in summer?"))
    lines = [json.loads(x) for f in (world["home"] / "usage").glob("*.jsonl")
             for x in f.read_text(encoding="utf-8").splitlines()]
    mine = [x for x in lines if x.get("session") == "u1"]
    assert mine and mine[-1]["kind"] == "hook" and mine[-1]["pages"] == ["wiki/quokka-care.md"]
    assert "quokka in summer" not in json.dumps(lines)


def test_a_second_profile_logs_beside_its_own_store(world, tmp_path):
    profile = tmp_path / "client-profile"
    profile.mkdir()
    run(world, prompt("u2", "feed the quokka"), "--kb-path", str(world["kb"]),
        "--db-path", str(profile / "portfolio.db"))
    lines = [json.loads(x) for f in (profile / "usage").glob("*.jsonl")
             for x in f.read_text(encoding="utf-8").splitlines()]
    assert [x["session"] for x in lines] == ["u2"]


def test_nothing_is_logged_from_a_private_folder(world, tmp_path):
    private = tmp_path / "nda"
    private.mkdir()
    (private / ".solograph-private").touch()
    run(world, prompt("u3", "feed the quokka", cwd=str(private)))
    lines = [x for f in (world["home"] / "usage").glob("*.jsonl")
             for x in f.read_text(encoding="utf-8").splitlines()]
    assert not any('"u3"' in x for x in lines)


@pytest.mark.parametrize("raw", [b"", b"garbage", b"[1, 2]", b'{"hook_event_name": 3}',
                                 b'{"hook_event_name": "Stop"}', b"\xff\xfe\x00",
                                 b'{"hook_event_name": "UserPromptSubmit", "prompt": 5}',
                                 b"{" * 100_000])
def test_garbage_is_silence(world, raw):
    done = run(world, None, raw=raw)
    assert done.returncode == 0 and done.stdout == b""


def test_unknown_arguments_and_a_missing_kb_are_silence(world):
    assert run(world, prompt("g1", "feed the quokka"), "--bogus").stdout == b""
    done = run(world, prompt("g2", "feed the quokka"), "--kb-path", "/nonexistent/kb")
    assert done.returncode == 0 and done.stdout == b""


def test_a_locked_store_is_fast_and_never_an_error(world, tmp_path):
    kb = make_kb(tmp_path, pages=HINT_PAGES, config="")
    home = tmp_path / "home"
    env = {"SOLOGRAPH_HOME": str(home)}
    run(world, prompt("l0", "hello"), "--kb-path", str(kb), env=env)  # builds the index
    page = kb / "wiki" / "quokka-care.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nmore\n", encoding="utf-8")
    db = next((home / "kb").glob("*.db"))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        done = run(world, prompt("l1", "feed the quokka in summer"), "--kb-path", str(kb),
                   env=env)
        assert done.returncode == 0 and done.stderr == b""
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_the_hook_waits_for_a_locked_store_only_briefly(tmp_path):
    """How long it waits is the busy timeout it opens the store with, well inside Claude
    Code's 3 s hook timeout; the wall-clock figure is bench/kb_bench.py's hook run."""
    from solograph.kb.store import open_kb
    from solograph_services.hook import main as hook

    kb = open_kb(tmp_path / "home", make_kb(tmp_path, pages=HINT_PAGES, config=""),
                 busy_ms=hook.BUSY_MS, check_rules=False)
    try:
        assert kb.conn.execute("PRAGMA busy_timeout").fetchone()[0] == hook.BUSY_MS
    finally:
        kb.close()
    assert hook.BUSY_MS * 5 <= 3000


def test_a_corrupt_store_is_silence(world, tmp_path):
    kb = make_kb(tmp_path, pages=HINT_PAGES, config="")
    home = tmp_path / "home"
    (home / "kb").mkdir(parents=True)
    from solograph.config import kb_db_path

    kb_db_path(home, kb).write_bytes(b"this is not a database" * 100)
    done = run(world, prompt("c1", "feed the quokka in summer"), "--kb-path", str(kb),
               env={"SOLOGRAPH_HOME": str(home)})
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""


def test_the_hook_imports_nothing_heavy():
    code = ("import sys, io, json; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            "{'hook_event_name': 'UserPromptSubmit', 'prompt': 'x y z', 'session_id': 's'})"
            ".encode())); from solograph_services.cli.main import main; main(['hook']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tree_sitter', "
            "'tree_sitter_language_pack', 'fastapi', 'mcp', 'celery', 'uvicorn', 'starlette', "
            "'solograph_services') or m in ('solograph.reads',)), "
            "file=sys.stderr)")
    done = subprocess.run([str(Path(solograph_cmd()[0]).parent / "python"), "-c", code],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "SOLOGRAPH_HOME": "/nonexistent"})
    assert done.stderr.strip() == ("['solograph_services', 'solograph_services.cli', "
                                   "'solograph_services.cli.main', 'solograph_services.hook', "
                                   "'solograph_services.hook.main']")


def test_a_prompt_with_a_kb_loads_no_openssl_typing_or_dataclasses(world):
    """The store's file name and the session's state file are sha256 digests: taken from the
    interpreter's own module, not hashlib, which loads OpenSSL (2-3 ms of every run); the
    records on this path are `Frozen`/`Record` (a dataclass compiles its methods, and
    `dataclasses` imports `inspect`), and nothing on it needs `typing` at run time. Over a KB
    with nothing changed: the first run below reads the pages (and hashes them)."""
    run(world, prompt("s8", "how should we feed a quokka in summer?"))
    code = ("import sys, io, json; sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps("
            f"{prompt('s9', 'how should we feed a quokka in summer?')!r}).encode())); "
            "from solograph_services.cli.main import main; "
            f"main(['hook', '--kb-path', {str(world['kb'])!r}]); "
            "print(sorted(m for m in ('hashlib', '_hashlib', 'dataclasses', 'inspect', 'typing')"
            " if m in sys.modules), "
            "file=sys.stderr)")
    done = subprocess.run([str(Path(solograph_cmd()[0]).parent / "python"), "-c", code],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "SOLOGRAPH_HOME": str(world["home"])})
    assert "wiki/quokka-care.md" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "[]"
