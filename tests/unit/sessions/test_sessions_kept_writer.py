"""A long-lived process (the HTTP API, the MCP server) keeps one writer per thread on the
session index between reads, as it keeps its readers: each search still syncs first, sees
every append, and a store moved aside is opened again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from solograph import readers, reads
from solograph.config import PRIVATE_MARKERS, Settings
from solograph.sessions import folders, store, sync
from solograph.sessions.policy import Policy
from solograph.sessions.sync import sync_sessions
from tests.support.spy import calls
from tests.support.transcripts import Transcripts


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects")


def _opens(monkeypatch) -> list:
    return calls(monkeypatch, store, "open_index")


def _session(home: Settings) -> object:
    s = Transcripts(home.claude_projects).session("/home/dev/app")
    s.prompt("wire the quokka feeder")
    s.reply("Wired.")
    s.flush()
    return s


def test_a_long_lived_process_keeps_one_writer_and_sees_each_append(home, keeping,
                                                                    monkeypatch):
    opened = _opens(monkeypatch)
    s = _session(home)
    assert reads.session_search(home, "quokka feeder")["count"] == 1
    s.prompt("and the wombat gate")
    s.flush()
    hit = reads.session_search(home, "wombat gate")["results"][0]
    assert hit["session"] == s.id and hit["messages"] == 3
    assert len(opened) == 1
    assert not readers._opened[0].in_transaction


def test_without_keep_each_read_opens_its_writer(home, monkeypatch):
    opened = _opens(monkeypatch)
    _session(home)
    for _ in range(2):
        reads.session_search(home, "quokka feeder")
    assert len(opened) == 2 and not readers._opened


def test_a_kept_writer_follows_a_store_moved_aside(home, keeping):
    s = _session(home)
    assert reads.session_search(home, "quokka feeder")["count"] == 1
    os.rename(home.sessions_db, home.sessions_db.with_suffix(".old"))
    for extra in ("-wal", "-shm"):
        side = Path(f"{home.sessions_db}{extra}")
        if side.exists():
            side.unlink()
    hit = reads.session_search(home, "quokka feeder")["results"][0]  # indexed again
    assert hit["session"] == s.id and home.sessions_db.exists()


def test_the_index_is_read_again_only_after_it_changed(home, keeping, monkeypatch):
    reads_of_files = calls(monkeypatch, folders, "_known")
    s = _session(home)
    for _ in range(3):
        assert reads.session_search(home, "quokka feeder")["count"] == 1
    # The first search read the new file in (a write of its own), the second read the index
    # again, the third found it unchanged.
    assert len(reads_of_files) == 2
    # Another process writes: a sync of its own, on its own connection.
    other = Transcripts(home.claude_projects).session("/home/dev/other")
    other.prompt("the quokka feeder again")
    other.flush()
    assert sync_sessions(home)["new"] == 1
    found = {r["session"] for r in reads.session_search(home, "quokka feeder")["results"]}
    assert found == {s.id, other.id}
    kept = reads_of_files[0]
    assert sum(conn is kept for conn in reads_of_files) == 3


def test_a_marker_appearing_between_kept_reads_purges_the_session(home, keeping, tmp_path,
                                                                   monkeypatch):
    policy = Policy(temp_roots=("/nowhere-temp",), markers=PRIVATE_MARKERS)
    monkeypatch.setattr(sync, "default_policy", lambda: policy)  # tmp_path is under /tmp
    folder = tmp_path / "code" / "secret-app"
    folder.mkdir(parents=True)
    s = Transcripts(home.claude_projects).session(str(folder))
    s.prompt("wire the quokka feeder")
    s.flush()
    for _ in range(2):  # the second read takes the index's folders from what it kept
        assert reads.session_search(home, "quokka feeder")["count"] == 1
    (folder.parent / ".solograph-private").touch()
    assert reads.session_search(home, "quokka feeder")["count"] == 0
