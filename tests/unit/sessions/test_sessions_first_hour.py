"""The session rows a newcomer meets first: a resume command that works from anywhere, image
markers out of the text, batch runs counted, an unknown project named, `export` without an id."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import UnknownProject
from solograph.sessions import upkeep
from solograph.sessions.sync import sync_sessions
from tests.support.procs import solograph_cmd
from tests.support.transcripts import Transcripts


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects")


def test_resume_cds_into_the_folder_the_session_started_in(home):
    t = Transcripts(home.claude_projects)
    started = "/home/dev/it's my app"
    s = t.session(started)
    s.prompt("wire the quokka feeder")
    s.reply("Wired.")
    s.flush()
    agent = t.subagent(s)  # written later, after the session moved into a subfolder
    agent.cwd = started + "/server"
    agent.prompt("check the quokka feeder tests")
    agent.reply("They pass.")
    agent.flush()
    later = time.time() + 60
    os.utime(agent.path, (later, later))  # newest first: the sub-agent's file is read first
    hit = reads.session_search(home, "quokka feeder")["results"][0]
    assert hit["cwd"] == started
    command = hit["resume"]
    assert command.startswith("cd '/home/dev/it") and command.endswith(
        f"' && claude --resume {s.id}")
    words = shlex.split(command)
    assert words == ["cd", started, "&&", "claude", "--resume", s.id]
    # The shell reads the folder back exactly (printed instead of entered: it is not here).
    shown = command.replace("cd ", "printf '%s\\n' ", 1).replace("claude --resume", "echo")
    done = subprocess.run(["sh", "-c", shown], capture_output=True, text=True, timeout=10)
    assert done.stdout.splitlines() == [started, s.id]


def test_the_starting_folder_of_undated_messages_and_its_query_plan(home):
    t = Transcripts(home.claude_projects)
    s = t.session("/home/dev/undated")
    s.prompt("wire the wombat feeder")["timestamp"] = ""  # records without a time
    s.reply("Wired.")["timestamp"] = ""
    s.flush()
    assert reads.session_search(home, "wombat feeder")["results"][0]["cwd"] == "/home/dev/undated"
    # Finding the folder must not sort every message of the session on each resync of a
    # growing transcript: each lookup walks the (session, at) index.
    conn = sqlite3.connect(home.sessions_db)
    try:
        for at in ("AND e.at != '' ORDER BY e.at, e.seq", "AND e.at = '' ORDER BY e.seq"):
            plan = [r[3] for r in conn.execute(
                f"EXPLAIN QUERY PLAN {upkeep._FIRST_CWD} {at} LIMIT 1", (1,))]
            assert any("entries_session" in step for step in plan), plan
    finally:
        conn.close()


def test_image_markers_leave_the_text_and_the_snippet(home):
    t = Transcripts(home.claude_projects)
    s = t.session("/home/dev/app")
    s.prompt("[Image #1] why is the quokka chart red [Image #12] and blurry")
    s.prompt("[Image #3]")
    s.reply("The palette.")
    s.flush()
    hit = reads.session_search(home, "quokka chart")["results"][0]
    assert "[Image" not in hit["snippet"] and "quokka chart red and blurry" in hit["snippet"]
    assert reads.session_search(home, "image")["count"] == 0  # the word is not indexed
    exported = reads.session_export(home, s.id)["content"]
    assert "[Image" not in exported


def test_batch_runs_from_temporary_folders_are_counted(home):
    t = Transcripts(home.claude_projects)
    for i in range(3):
        t.conversation(f"/tmp/batch-{i}", f"summarise report {i}", "Done.")
    t.conversation("/home/dev/app", "fix the webhook", "Fixed.")
    report = sync_sessions(home)
    assert report["skipped"] == {"temp": 3}
    assert "3 batch runs from temporary folders left out" in report["summary"]
    empty = reads.session_search(home, "summarise report")
    assert empty["count"] == 0 and "3 batch runs from temporary folders" in empty["warnings"][0]
    assert "warnings" not in reads.session_search(home, "webhook")


def test_an_unknown_project_says_so_with_did_you_mean(home):
    t = Transcripts(home.claude_projects)
    t.conversation("/home/dev/web-app", "fix the webhook", "Fixed.")
    t.conversation("/home/dev/api", "add a route", "Added.")
    with pytest.raises(UnknownProject) as caught:
        reads.session_search(home, "webhook", project="web-ap")
    assert "web-ap" in caught.value.message and caught.value.hint == "did you mean: web-app?"
    assert reads.session_search(home, "nothing like it", project="web-app")["count"] == 0


def run(home: Settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SOLOGRAPH_HOME": str(home.home),
           "CLAUDE_PROJECTS_PATH": str(home.claude_projects)}
    return subprocess.run(solograph_cmd(*args), env=env, capture_output=True, text=True,
                          timeout=60)


def test_the_command_line_rows(home):
    Transcripts(home.claude_projects).conversation("/home/dev/web-app", "fix webhook", "Ok.")
    export = run(home, "sessions", "export")
    assert export.returncode == 1 and "needs the session's id" in export.stderr
    assert export.stdout == ""
    unknown = run(home, "sessions", "webhook", "-p", "webapp", "--json")
    assert unknown.returncode == 1 and "did you mean: web-app?" in unknown.stderr
    assert json.loads(unknown.stdout)["error"] == "unknown_project"
    found = run(home, "sessions", "webhook")
    assert "cd '/home/dev/web-app' && claude --resume" in found.stdout
    assert "· 2 messages ·" in found.stdout
