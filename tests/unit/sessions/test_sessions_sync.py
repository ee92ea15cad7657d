"""Sync rules, one fixture each: growth from an offset, a half line, truncation, replacement,
deletion then archive, sub-agents, temp and private folders; and incremental equals one-shot
on a real transcript."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from solograph.config import PRIVATE_MARKERS
from solograph.sessions import ingest
from solograph.sessions.chunks import rebuild
from solograph.sessions.policy import Policy
from solograph.sessions.search import search
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from tests.support.spy import calls
from tests.support.transcripts import Transcripts, line

# Test folders live under /tmp, which the default policy treats as batch runs.
POLICY = Policy(temp_roots=("/nowhere-temp",), temp_parts=("scratchpad",),
                markers=PRIVATE_MARKERS)


@pytest.fixture
def conn(tmp_path):
    c = open_index(tmp_path / "home" / "sessions.db")
    yield c
    c.close()


@pytest.fixture
def t(tmp_path):
    return Transcripts(tmp_path / "projects")


def run(conn, t) -> dict:
    return sync(conn, t.root, policy=POLICY)


def texts(conn, session_id: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT e.text FROM entries e JOIN sessions s ON s.id = e.session "
        "WHERE s.session_id = ? ORDER BY e.file_id, e.seq", (session_id,))]


def hit_ids(conn, query: str) -> list[str]:
    return [h["session"] for h in search(conn, query)[1]]


def file_row(conn, path: Path, root: Path):
    return conn.execute("SELECT * FROM files WHERE path = ?",
                        (str(path.relative_to(root)),)).fetchone()


def test_new_file_then_growth_reads_only_the_new_bytes(conn, t):
    s = t.conversation("/home/dev/app", "set up the webhook", "Webhook added.")
    first = run(conn, t)
    assert (first["new"], first["entries"]) == (1, 2)
    s.prompt("now add a retry with backoff")
    s.progress()
    s.reply("Retry added.")
    appended = s.flush()
    report = run(conn, t)
    assert (report["grown"], report["entries"], report["bytes"]) == (1, 2, len(appended))
    assert texts(conn, s.id) == ["set up the webhook", "Webhook added.",
                                 "now add a retry with backoff", "Retry added."]
    again = run(conn, t)
    assert again["entries"] == again["bytes"] == again["grown"] == 0


def test_two_processes_syncing_the_same_growth_store_it_once(conn, t, tmp_path):
    s = t.conversation("/home/dev/app", "shared growth")
    run(conn, t)
    other = open_index(tmp_path / "home" / "sessions.db")
    s.prompt("appended while both were looking")
    s.flush()
    assert run(conn, t)["entries"] == 1
    assert run(other, t)["entries"] == 0
    other.close()
    assert len(texts(conn, s.id)) == 2


def test_half_written_line_waits_for_its_newline(conn, t):
    s = t.conversation("/home/dev/app", "first prompt here")
    run(conn, t)
    s.prompt("second prompt about caching")
    data = b"".join(line(r) for r in s.pending)
    s.pending.clear()
    with s.path.open("ab") as fh:
        fh.write(data[:-20])
    assert run(conn, t)["entries"] == 0
    row = file_row(conn, s.path, t.root)
    assert row["offset"] < s.path.stat().st_size
    assert hit_ids(conn, "caching") == []
    with s.path.open("ab") as fh:
        fh.write(data[-20:])
    assert run(conn, t)["entries"] == 1
    assert hit_ids(conn, "caching") == [s.id]


def test_truncated_file_is_read_again(conn, t):
    s = t.conversation("/home/dev/app", "alpha topic", "beta answer", "gamma question")
    run(conn, t)
    lines = s.path.read_bytes().splitlines(keepends=True)
    s.path.write_bytes(lines[0])
    report = run(conn, t)
    assert report["reread"] == 1
    assert texts(conn, s.id) == ["alpha topic"]
    assert hit_ids(conn, "gamma") == []


def test_replaced_file_is_read_again(conn, t):
    s = t.conversation("/home/dev/app", "original words zebra")
    run(conn, t)
    other = t.session("/home/dev/app", session_id=s.id)
    other.prompt("replacement words yak")
    data = b"".join(line(r) for r in other.pending)
    tmp = s.path.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, s.path)  # a new inode, as an editor's save or a rewrite gives
    assert run(conn, t)["reread"] == 1
    assert texts(conn, s.id) == ["replacement words yak"]


def test_rewritten_prefix_is_read_again_even_on_the_same_inode(conn, t):
    s = t.conversation("/home/dev/app", "aaaa first", "bbbb second")
    run(conn, t)
    inode = s.path.stat().st_ino
    with s.path.open("r+b") as fh:  # rewritten in place, then grown
        fh.write(s.path.read_bytes().replace(b"aaaa", b"cccc", 1))
    s.prompt("dddd third")
    s.flush()
    assert s.path.stat().st_ino == inode
    assert run(conn, t)["reread"] == 1
    assert texts(conn, s.id) == ["cccc first", "bbbb second", "dddd third"]


def test_deleted_transcript_is_kept_and_archived_then_reappears(conn, t):
    s = t.conversation("/home/dev/app", "deploy the observatory", "Deployed.")
    run(conn, t)
    live = search(conn, "observatory")[1][0]
    assert (live["archived"], live["resume"]) == (
        False, f"cd '/home/dev/app' && claude --resume {s.id}")
    s.path.unlink()
    assert run(conn, t)["deleted"] == 1
    hit = search(conn, "observatory")[1][0]
    assert hit["session"] == s.id
    assert (hit["archived"], hit["transcript"], hit["resume"]) == (True, "deleted", None)
    assert texts(conn, s.id) == ["deploy the observatory", "Deployed."]
    assert run(conn, t)["deleted"] == 0
    t.conversation("/home/dev/app", "deploy the observatory", "Deployed.", session_id=s.id)
    assert run(conn, t)["reread"] == 1
    assert search(conn, "observatory")[1][0]["archived"] is False


def test_junk_files_and_lines_do_not_stop_a_sync(conn, t):
    s = t.conversation("/home/dev/app", "readable words")
    bad = t.conversation("/home/dev/app", "never mind")
    bad.path.unlink()
    bad.path.mkdir()  # a folder named like a transcript
    (bad.path.parent / "junk.jsonl").write_bytes(
        b'\x00\xff not json\n{"type":"user", broken\n{"type": 1}\n[1]\n')
    report = run(conn, t)
    assert (report["entries"], report["bad_lines"]) == (1, 1)
    assert hit_ids(conn, "readable") == [s.id]


def test_missing_transcripts_folder_changes_nothing(conn, t, tmp_path):
    t.conversation("/home/dev/app", "keep me around")
    run(conn, t)
    report = sync(conn, tmp_path / "not-mounted", policy=POLICY)
    assert report["missing"] is True
    assert search(conn, "keep")[1][0]["archived"] is False


def test_subagent_file_belongs_to_its_parent_session(conn, t):
    parent = t.conversation("/home/dev/app", "explore the billing module", "Spawning.")
    agent = t.subagent(parent)
    agent.prompt("Read billing/invoice.py and summarise the tax rules")
    agent.reply("Tax rules: VAT by country.")
    agent.flush()
    report = run(conn, t)
    assert report["new"] == 2
    rows = conn.execute("SELECT session_id, title, messages FROM sessions").fetchall()
    assert [tuple(r) for r in rows] == [(parent.id, "explore the billing module", 4)]
    assert hit_ids(conn, "VAT country") == [parent.id]
    sidechain = conn.execute("SELECT COUNT(*) FROM entries WHERE sidechain = 1").fetchone()[0]
    assert sidechain == 2


def test_orphan_subagent_makes_an_archived_session(conn, t):
    parent = t.session("/home/dev/app")  # its main file is never written
    agent = t.subagent(parent)
    agent.prompt("Explore the router")
    agent.flush()
    run(conn, t)
    hit = search(conn, "router")[1][0]
    assert (hit["session"], hit["archived"], hit["title"]) == (parent.id, True,
                                                                "Explore the router")


def test_same_message_copied_by_a_resume_is_stored_once(conn, t):
    s = t.conversation("/home/dev/app", "unique walrus prompt")
    copy = t.session("/home/dev/app", session_id=s.id)
    copy.path = s.path.with_name("resumed-copy.jsonl")
    copy.raw(json.loads(s.path.read_bytes()))
    copy.prompt("a new question")
    copy.flush()
    run(conn, t)
    assert sorted(texts(conn, s.id)) == ["a new question", "unique walrus prompt"]


@pytest.mark.parametrize("cwd", ["/nowhere-temp/claude-run", "/home/dev/.x/scratchpad/job"])
def test_temp_folder_sessions_are_never_indexed(conn, t, cwd):
    t.conversation(cwd, "batch run prompt kiwi")
    report = run(conn, t)
    assert (report["temp"], report["entries"]) == (1, 0)
    assert hit_ids(conn, "kiwi") == []
    assert run(conn, t)["temp"] == 0  # not read again


def test_default_policy_keeps_tmp_and_var_folders_out(tmp_path):
    from solograph.sessions.policy import default_policy

    policy = default_policy()
    for cwd in ("/tmp", "/tmp/x", "/var/folders/ab/T/y", "/private/var/folders/z"):
        assert policy.skip_reason(cwd) == "temp", cwd
    assert policy.skip_reason("/home/dev/tmpfiles") == ""


def test_default_policy_keeps_the_platforms_temp_folder_out(monkeypatch, tmp_path):
    """TMPDIR (or the platform's folder) wherever it is, and through a link as resolved, as
    `tempfile.gettempdir()` names it; never a TMPDIR that holds the home."""
    import tempfile

    from solograph.sessions.policy import default_policy

    real = tmp_path / "real-tmp"
    real.mkdir()
    link = tmp_path / "link-tmp"
    link.symlink_to(real)
    monkeypatch.setattr(tempfile, "tempdir", "/srv/build-tmp")
    policy = default_policy()
    assert policy.skip_reason("/srv/build-tmp/claude-run") == "temp"
    assert policy.skip_reason("/srv/build-tmpfiles") == ""
    monkeypatch.setattr(tempfile, "tempdir", str(link) + "/")
    roots = default_policy().temp_roots
    assert str(link) in roots and str(real) in roots
    monkeypatch.setattr(tempfile, "tempdir", str(Path.home()))
    assert default_policy().skip_reason(str(Path.home() / "code" / "app")) == ""


def test_private_folder_never_indexed_and_purged_when_marked_later(conn, t, tmp_path):
    work = tmp_path / "work"
    (work / "client" / "app").mkdir(parents=True)
    (work / "mine").mkdir()
    secret = t.conversation(str(work / "client" / "app"), "client pricing negotiation")
    t.conversation(str(work / "mine"), "my own pricing page")
    run(conn, t)
    assert sorted(hit_ids(conn, "pricing")) == sorted([secret.id, *[
        r[0] for r in conn.execute("SELECT session_id FROM sessions WHERE session_id != ?",
                                   (secret.id,))]])
    (work / "client" / ".solograph-private").touch()
    report = run(conn, t)
    assert report["purged"] == 1
    assert secret.id not in hit_ids(conn, "pricing")
    assert conn.execute("SELECT COUNT(*) FROM entries e JOIN files f ON f.id = e.file_id "
                        "WHERE f.status = 'private'").fetchone()[0] == 0
    secret.prompt("more client talk")
    secret.flush()
    assert run(conn, t)["entries"] == 0  # a private file is not read
    (work / "client" / ".solograph-private").unlink()
    run(conn, t)
    assert secret.id in hit_ids(conn, "negotiation")


def test_an_unchanged_folder_is_not_searched_for_markers_again(conn, t, tmp_path,
                                                                monkeypatch):
    """A process that reads again stats each session's folder (and those above it) once a
    read; it looks for the markers only in a folder whose mtime moved since it last did, and
    a marker made later moves it: seen on the next read, the session purged."""
    folder = tmp_path / "work" / "client"
    folder.mkdir(parents=True)
    old = time.time_ns() - 3600 * 10**9  # past the racy window
    for f in (folder, folder.parent, tmp_path):
        os.utime(f, ns=(old, old))
    secret = t.conversation(str(folder), "client pricing negotiation")
    run(conn, t)  # a process's first look: the markers only (a command reads once)
    run(conn, t)  # the second: the folder's mtime noted
    looked = calls(monkeypatch, os.path, "exists")
    run(conn, t)
    assert not [p for p in looked if str(p).startswith(str(folder))]
    (folder / ".solograph-private").touch()
    assert run(conn, t)["purged"] == 1
    assert secret.id not in hit_ids(conn, "pricing")


def test_private_from_the_start_with_the_spotlight_marker(conn, t, tmp_path):
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / ".metadata_never_index").touch()
    t.conversation(str(folder / "deep"), "hidden walnut")
    report = run(conn, t)
    assert (report["private"], report["entries"]) == (1, 0)
    assert hit_ids(conn, "walnut") == []


# --------------------------------------------------------------------------- incremental


def _snapshot(conn) -> dict:
    return {
        "sessions": sorted(tuple(r) for r in conn.execute(
            "SELECT session_id, cwd, title, custom_title, ai_title, first_at, last_at, messages "
            "FROM sessions")),
        "entries": sorted(tuple(r) for r in conn.execute(
            "SELECT s.session_id, f.path, e.seq, e.uuid, e.role, e.kind, e.at, e.sidechain, "
            "e.text, e.tools, e.words FROM entries e JOIN sessions s ON s.id = e.session "
            "JOIN files f ON f.id = e.file_id")),
        "chunks": sorted(tuple(r) for r in conn.execute(
            "SELECT f.path, c.seq, c.size, (SELECT group_concat(e.seq) FROM entries e "
            "WHERE e.chunk = c.id) FROM chunks c JOIN files f ON f.id = c.file_id")),
        "vocab": sorted(tuple(r) for r in conn.execute(
            "SELECT term, doc, cnt FROM chunks_vocab")),
        "files": sorted(tuple(r) for r in conn.execute(
            "SELECT path, offset, lines, entries, status, head_hash, tail_hash FROM files")),
    }


@pytest.mark.parametrize("batch", [ingest.BATCH_ENTRIES, 37])
def test_incremental_equals_one_shot_on_a_real_transcript(corpora, tmp_path, monkeypatch,
                                                          batch):
    monkeypatch.setattr(ingest, "BATCH_ENTRIES", batch)  # 37: commits inside every read
    src = corpora / "transcripts" / "claude-projects"
    rel = Path("-home-USER-projects-spotter-worktrees-spotter-gqc") / \
        "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    data = (src / rel).read_bytes()
    lines = data.splitlines(keepends=True)
    cut_line = sum(len(x) for x in lines[:700])  # at a line boundary
    half = cut_line + sum(len(x) for x in lines[700:1300]) + 57  # inside a line

    whole = tmp_path / "whole"
    (whole / rel).parent.mkdir(parents=True)
    shutil.copyfile(src / rel, whole / rel)
    one = open_index(tmp_path / "one.db")
    sync(one, whole, policy=POLICY)

    grown = tmp_path / "grown"
    (grown / rel).parent.mkdir(parents=True)
    inc = open_index(tmp_path / "inc.db")
    for end in (cut_line, half, len(data)):
        with (grown / rel).open("ab") as fh:
            fh.write(data[(grown / rel).stat().st_size if (grown / rel).exists() else 0:end])
        sync(inc, grown, policy=POLICY)
    a, b = _snapshot(one), _snapshot(inc)
    for key in a:
        assert a[key] == b[key], key
    assert len(a["chunks"]) >= 3
    for query in ("liveview annotations", "sandbox isolation", "push"):
        assert search(one, query)[1] == search(inc, query)[1]
    rebuild(inc)  # the index is derived state: rebuilt from entries, it is the same
    assert _snapshot(inc)["vocab"] == a["vocab"]
    one.close()
    inc.close()


def test_corpus_sync_indexes_every_session(corpora, conn):
    report = sync(conn, corpora / "transcripts" / "claude-projects")
    assert (report["files"], report["new"], report["bad_lines"]) == (25, 25, 0)
    ids = {r[0] for r in conn.execute("SELECT session_id FROM sessions")}
    assert len(ids) == 13 and "6c2214d7-b87e-4432-8e41-22ba294ea584" in ids
    archived = [h["session"] for h in search(conn, "router", limit=20)[1] if h["archived"]]
    assert archived == ["6c2214d7-b87e-4432-8e41-22ba294ea584"]
    assert sync(conn, corpora / "transcripts" / "claude-projects")["entries"] == 0
