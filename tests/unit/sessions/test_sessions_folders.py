"""The disk check lists only the folders that changed, and still sees every change.

A folder's mtime moves when an entry is created, deleted or renamed in it, never when a file
in it is written: so appends and in-place rewrites must be seen by each live file's stat, and
new, deleted and replaced files by the folder's mtime. Pinned by counting listings, not time.
"""

from __future__ import annotations

import os
import time

import pytest

from solograph.sessions import folders
from solograph.sessions.policy import Policy
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from tests.support.spy import calls
from tests.support.transcripts import Transcripts

POLICY = Policy(temp_roots=("/nowhere-temp",), markers=(".solograph-private",))
OLD = time.time_ns() - 3600 * 10**9  # an hour ago: past the racy window


@pytest.fixture
def conn(tmp_path):
    c = open_index(tmp_path / "home" / "sessions.db")
    yield c
    c.close()


@pytest.fixture
def t(tmp_path):
    return Transcripts(tmp_path / "projects")


@pytest.fixture
def listings(monkeypatch):
    """The folders each disk check lists (relative to the transcripts folder)."""
    return calls(monkeypatch, folders._Walk, "_list", arg=1)


def age(root) -> None:
    """Every folder of the tree last changed an hour ago, as in a long-used projects folder
    (files keep their own times)."""
    for folder, _dirs, _files in os.walk(root):
        os.utime(folder, ns=(OLD, OLD))


def run(conn, t) -> dict:
    return sync(conn, t.root, policy=POLICY)


def texts(conn) -> list[str]:
    return [r[0] for r in conn.execute("SELECT text FROM entries ORDER BY file_id, seq")]


def test_an_unchanged_tree_is_not_listed_again(conn, t, listings):
    a = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    agent = t.subagent(a)
    agent.prompt("look for the webhook handler")
    agent.flush()
    t.conversation("/home/dev/api", "add the billing page", "Added.")
    age(t.root)
    run(conn, t)  # lists every folder once, and trusts them from now on
    listings.clear()
    report = run(conn, t)
    assert listings == []
    assert report["files"] == 3 and report["new"] == report["grown"] == 0


def test_an_append_inside_an_unchanged_folder_is_seen(conn, t, listings):
    s = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    age(t.root)
    run(conn, t)
    folder = s.path.parent
    before = folder.stat().st_mtime_ns
    s.prompt("now add a retry with backoff")
    s.flush()
    assert folder.stat().st_mtime_ns == before  # an append does not move the folder's mtime
    listings.clear()
    report = run(conn, t)
    assert listings == [] and report["grown"] == 1
    assert texts(conn)[-1] == "now add a retry with backoff"


def test_an_in_place_rewrite_of_the_same_size_is_seen(conn, t):
    s = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    age(t.root)
    run(conn, t)
    folder_mtime = s.path.parent.stat().st_mtime_ns
    data = s.path.read_bytes()
    with s.path.open("r+b") as fh:  # same inode, same size, other words
        fh.write(data.replace(b"webhook", b"gateway"))
    assert s.path.parent.stat().st_mtime_ns == folder_mtime
    report = run(conn, t)
    assert report["reread"] == 1
    assert texts(conn)[0] == "set up the gateway"


def test_new_deleted_and_replaced_files_move_their_folder(conn, t, listings):
    a = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    b = t.conversation("/home/dev/app", "write the changelog", "Written.")
    age(t.root)
    run(conn, t)
    project = a.path.parent.name
    listings.clear()
    b.path.unlink()
    c = t.conversation("/home/dev/app", "rotate the api keys", "Rotated.")
    replacement = a.path.with_suffix(".tmp")
    replacement.write_bytes(a.path.read_bytes().replace(b"webhook", b"gateway"))
    os.replace(replacement, a.path)  # a new file under the old name
    report = run(conn, t)
    assert listings == [project]  # only the folder that changed, not the root
    assert (report["new"], report["deleted"], report["reread"]) == (1, 1, 1)
    assert conn.execute("SELECT status FROM files WHERE path LIKE ?",
                        (f"%{b.id}.jsonl",)).fetchone()[0] == "deleted"
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE session_id = ?",
                        (c.id,)).fetchone()[0] == 1


def test_a_new_project_and_a_new_subagent_are_found(conn, t, listings):
    a = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    age(t.root)
    run(conn, t)
    listings.clear()
    agent = t.subagent(a)
    agent.prompt("find the webhook handler")
    agent.flush()
    t.conversation("/home/dev/new-project", "start the new project", "Started.")
    report = run(conn, t)
    assert report["new"] == 2
    assert "" in listings  # the root changed: a new project folder
    assert any(rel.endswith("/subagents") for rel in listings)


def test_a_folder_changed_during_its_listing_is_listed_again(conn, t, listings):
    t.conversation("/home/dev/app", "set up the webhook", "Done.")  # mtimes: just now
    run(conn, t)
    listings.clear()
    run(conn, t)
    assert "" in listings  # too recent to trust: a change in the same tick would not show
    assert conn.execute("SELECT COUNT(*) FROM folders WHERE mtime_ns IS NULL").fetchone()[0]


def test_files_left_pending_keep_their_folder_listed(conn, t, listings):
    for i in range(3):
        t.conversation("/home/dev/app", f"task number {i} about webhooks", "Done.")
    age(t.root)
    first = sync(conn, t.root, policy=POLICY, deadline=time.monotonic() - 1)
    assert first["pending"] == 2
    listings.clear()
    second = run(conn, t)
    assert second["new"] == 2  # the folder was listed again: the pending files are read
    assert listings
    listings.clear()
    assert run(conn, t)["new"] == 0 and listings == []  # now complete, so trusted


def test_a_removed_project_folder_archives_its_sessions(conn, t):
    a = t.conversation("/home/dev/app", "set up the webhook", "Done.")
    age(t.root)
    run(conn, t)
    for f in a.path.parent.iterdir():
        f.unlink()
    a.path.parent.rmdir()
    report = run(conn, t)
    assert report["deleted"] == 1 and report["files"] == 0
    assert conn.execute("SELECT COUNT(*) FROM folders").fetchone()[0] == 1  # the root only


def six_old_sessions(conn, t, monkeypatch, **sizes) -> list:
    """Six sessions, indexed, p5 written last; the check's sizes (HOT, COLD, ...) set."""
    from solograph.sessions import cold

    for name, value in sizes.items():
        monkeypatch.setattr(cold, name, value)
    made = [t.conversation(f"/home/dev/p{i}", f"task number {i}", "Done.") for i in range(6)]
    for i, s in enumerate(made):
        os.utime(s.path, ns=(OLD + i * 10**9, OLD + i * 10**9))
    age(t.root)
    run(conn, t)
    return made


def test_a_read_stats_the_files_written_last_and_the_others_in_turn(conn, t, monkeypatch):
    made = six_old_sessions(conn, t, monkeypatch, HOT=1, COLD=2)
    report = sync(conn, t.root, policy=POLICY, quick=True)
    assert report["unchecked"] == 6 - 1 - 2
    assert report["checked_ns"] > 0  # the full sync before stat'ed every transcript
    made[0].prompt("one more thing about the cache")  # an old file written, its mtime kept
    made[0].flush()
    os.utime(made[0].path, ns=(OLD, OLD))
    seen = []
    for _ in range(3):  # 5 cold files, 2 a read: every one within 3 reads
        seen.append(sync(conn, t.root, policy=POLICY, quick=True)["grown"])
    assert sum(seen) == 1
    assert "one more thing about the cache" in " ".join(texts(conn))


def test_while_a_watcher_runs_a_read_stats_what_it_named_and_fewer_in_turn(conn, t,
                                                                         monkeypatch):
    made = six_old_sessions(conn, t, monkeypatch, HOT=1, COLD=3, WATCHED_COLD=1)
    rel = made[2].path.relative_to(t.root).as_posix()
    made[2].prompt("a rewrite the watcher saw")
    made[2].flush()
    os.utime(made[2].path, ns=(OLD, OLD))
    report = sync(conn, t.root, policy=POLICY, quick=True, watched={rel: 1})
    assert report["grown"] == 1  # named by the watcher, stat'ed though out of turn
    assert report["unchecked"] == 6 - 1 - 1 - 1  # the hot one, one in turn, the named one
    assert "a rewrite the watcher saw" in " ".join(texts(conn))
    # Without the watcher the turn goes at its own pace again.
    assert sync(conn, t.root, policy=POLICY, quick=True)["unchecked"] == 6 - 1 - 3


def test_the_answer_says_how_many_transcripts_a_read_left_unchecked(conn, t, monkeypatch):
    from solograph.sessions import cold
    from solograph.sessions.sync import per_agent

    monkeypatch.setattr(cold, "HOT", 1)
    monkeypatch.setattr(cold, "COLD", 1)
    for i in range(4):
        t.conversation(f"/home/dev/p{i}", f"task number {i}", "Done.")
    age(t.root)
    run(conn, t)
    report = sync(conn, t.root, policy=POLICY, quick=True)
    claude = per_agent(conn, {"claude": report})["claude"]
    assert claude["unchecked"] == 2 and claude["checked_as_of"].endswith("Z")
    everything = per_agent(conn, {"claude": run(conn, t)})["claude"]
    assert "unchecked" not in everything  # a sync that stat'ed them all says nothing more
