"""One bad transcript line, or file, never takes the session index down; private stays private.

Generated input (hypothesis) goes between good records of a real transcript: garbage bytes,
truncated records, invalid UTF-8, lone surrogate escapes, huge single lines, deep nesting and
arbitrary JSON in every field. Each example asserts that the sync returns, that the good
records before and after the bad ones are searchable, and that a second good file after the
bad one still gets in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import PRIVATE_MARKERS, Settings
from solograph.sessions import records
from solograph.sessions.policy import Policy
from solograph.sessions.records import read_line
from solograph.sessions.search import search
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from tests.support.transcripts import Transcripts, line

POLICY = Policy(temp_roots=("/nowhere-temp",), temp_parts=("scratchpad",),
                markers=PRIVATE_MARKERS)
CWD = "/home/dev/code/app"
EXAMPLES = 60  # per generated-input test; the note in the report counts them
QUIET = settings(max_examples=EXAMPLES, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def found(conn, word: str) -> set[str]:
    return {h["session"] for h in search(conn, word)[1]}


def prompt(session_id: str, text: str, cwd: str = CWD) -> bytes:
    return line({"type": "user", "uuid": f"u-{text}", "sessionId": session_id, "cwd": cwd,
                 "timestamp": "2026-03-01T10:00:00.000Z",
                 "message": {"role": "user", "content": text}})


def nested(depth: int, *, closed: bool = True) -> bytes:
    inner = b"[" * depth + (b"]" * depth if closed else b"")
    return b'{"type":"user","sessionId":"s","cwd":"/home/dev/code/app","message":' \
        b'{"role":"user","content":' + inner + b'}}\n'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20)

record_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "summary", "ai-title", "custom-title"])},
    optional={"message": json_values, "sessionId": json_values, "cwd": json_values,
              "uuid": json_values, "timestamp": json_values, "isMeta": json_values,
              "summary": json_values, "aiTitle": json_values, "leafUuid": json_values})


def _good_line() -> bytes:
    return prompt("s", "a sentence about nothing in particular")


bad_lines = st.one_of(
    st.binary(max_size=300).map(lambda b: b.replace(b"\n", b" ") + b"\n"),
    st.integers(1, len(_good_line()) - 2).map(lambda k: _good_line()[:k] + b"\n"),
    st.integers(50, 3_000).map(nested),
    st.integers(50, 3_000).map(lambda d: nested(d, closed=False)),
    st.integers(10_000, 400_000).map(
        lambda n: b'{"type":"user","cwd":"/home/dev/code/app","message":{"content":"'
        + b"word " * (n // 5) + b'"}}\n'),
    st.binary(min_size=1, max_size=20).map(
        lambda junk: _good_line().replace(b"nothing", b"noth" + junk.replace(b"\n", b"")
                                          .replace(b'"', b"") + b"ing")),
    st.sampled_from([b'{"type":"user","message":{"content":"lone \\ud800 half"}}\n',
                     b'{"type":"assistant","message":{"content":[{"type":"text",'
                     b'"text":"\\udfff"}]},"cwd":"/home/dev/code/app"}\n',
                     b"[1, 2, 3]\n", b"null\n", b'"just a string"\n', b"\n", b"{}\n"]),
    record_like.map(lambda r: (json.dumps(r) + "\n").encode()),
)


@QUIET
@given(junk=st.lists(bad_lines, min_size=1, max_size=6))
def test_generated_bad_lines_never_stop_a_sync(junk):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "projects"
        folder = root / "-home-dev-code-app"
        folder.mkdir(parents=True)
        sid, other = "11111111-aaaa", "22222222-bbbb"
        (folder / f"{sid}.jsonl").write_bytes(
            prompt(sid, "firstmarker webhook") + b"".join(junk)
            + prompt(sid, "lastmarker webhook"))
        (folder / f"{other}.jsonl").write_bytes(prompt(other, "othermarker webhook"))
        conn = open_index(Path(tmp) / "sessions.db")
        try:
            report = sync(conn, root, policy=POLICY)
            assert report["files"] == 2 and report["unreadable"] == 0
            assert sid in found(conn, "firstmarker")
            assert sid in found(conn, "lastmarker")
            assert other in found(conn, "othermarker")
            assert sync(conn, root, policy=POLICY)["entries"] == 0  # nothing read twice
        finally:
            conn.close()


@QUIET
@given(data=st.binary(max_size=2_000))
def test_read_line_takes_any_bytes(data):
    obj, problem = read_line(data)
    assert (obj is None) == (problem in ("not_json", "not_an_object"))


def test_a_line_nested_1000_levels_deep_is_read_around(tmp_path):
    """Measured: RecursionError out of the record decoder; the sync aborted and every session
    search failed until the file was deleted."""
    t = Transcripts(tmp_path / "projects")
    s = t.session(CWD)
    s.prompt("before the deep line")
    s.flush()
    with s.path.open("ab") as fh:
        fh.write(nested(1_000))
        fh.write(nested(100_000, closed=False))
    s.prompt("after the deep line")
    s.flush()
    t.conversation(CWD, "another session entirely")
    conn = open_index(tmp_path / "sessions.db")
    report = sync(conn, t.root, policy=POLICY)
    assert report["bad"] == {"too_deep": 1, "not_json": 1}
    assert report["bad_lines"] == 1
    assert s.id in found(conn, "before") and s.id in found(conn, "after")
    assert found(conn, "entirely")
    conn.close()


def test_a_line_longer_than_the_limit_is_skipped_without_holding_it(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "MAX_LINE", 4096)
    t = Transcripts(tmp_path / "projects")
    s = t.session(CWD)
    s.prompt("before the long line")
    s.flush()
    with s.path.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"content":"' + b"x" * 50_000 + b'"}}\n')
        fh.write(b'{"type":"user","message":{"content":"' + b"y" * 9_000)  # still written
    conn = open_index(tmp_path / "sessions.db")
    report = sync(conn, t.root, policy=POLICY)
    assert report["bad"] == {"too_long": 1} and s.id in found(conn, "before")
    with s.path.open("ab") as fh:  # the writer finishes its line, then goes on
        fh.write(b'"}}\n')
    s.prompt("after the long line")
    s.flush()
    again = sync(conn, t.root, policy=POLICY)
    assert again["bad"] == {"too_long": 1} and s.id in found(conn, "after")
    conn.close()


def test_lone_surrogate_escapes_are_stored_as_replacement_characters(tmp_path):
    t = Transcripts(tmp_path / "projects")
    s = t.session(CWD)
    s.flush()
    s.path.write_bytes(b'{"type":"user","sessionId":"' + s.id.encode() + b'","cwd":"'
                       + CWD.encode() + b'","message":{"content":"halfway \\ud83d there"}}\n')
    conn = open_index(tmp_path / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    assert conn.execute("SELECT text FROM entries").fetchone()[0] == "halfway \ufffd there"
    conn.close()


# --------------------------------------------------------------------------- private folders


def test_a_session_that_moves_into_a_private_folder_is_not_indexed(tmp_path):
    work = tmp_path / "work"
    (work / "client").mkdir(parents=True)
    (work / "client" / ".solograph-private").touch()
    t = Transcripts(tmp_path / "projects")
    s = t.session(str(work / "public"))
    s.prompt("public words first")
    s.flush()
    conn = open_index(tmp_path / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    assert s.id in found(conn, "public")
    s.cwd = str(work / "client" / "src")  # `cd` into the private folder, mid-session
    s.prompt("confidential merger plans")
    s.flush()
    report = sync(conn, t.root, policy=POLICY)
    assert report["private"] == 1 and report["purged"] == 1
    assert not found(conn, "public") and not found(conn, "merger")
    assert sync(conn, t.root, policy=POLICY)["entries"] == 0  # and it is not read again
    conn.close()


def test_a_marker_in_a_folder_the_session_visited_later_purges_it(tmp_path):
    work = tmp_path / "work"
    (work / "client").mkdir(parents=True)
    t = Transcripts(tmp_path / "projects")
    s = t.session(str(work / "public"))
    s.prompt("public words first")
    s.cwd = str(work / "client")
    s.prompt("talk about the client")
    s.flush()
    conn = open_index(tmp_path / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    assert s.id in found(conn, "client")
    (work / "client" / ".solograph-private").touch()
    assert sync(conn, t.root, policy=POLICY)["purged"] == 1
    assert not found(conn, "public") and not found(conn, "client")
    (work / "client" / ".solograph-private").unlink()  # unmarked: read again
    sync(conn, t.root, policy=POLICY)
    assert s.id in found(conn, "client")
    conn.close()


def _disk_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists())


def test_purged_words_leave_the_files_bytes(tmp_path):
    work = tmp_path / "work"
    (work / "client").mkdir(parents=True)
    t = Transcripts(tmp_path / "projects")
    for i in range(30):  # enough rows that the purged ones share pages with kept ones
        t.conversation(str(work / "public"), f"ordinary conversation number {i}")
    secret = t.conversation(str(work / "client"), "qqxyzzyplugh quarterly figures",
                            "qqxyzzyplugh noted")
    db = tmp_path / "sessions.db"
    conn = open_index(db)
    sync(conn, t.root, policy=POLICY)
    assert secret.id in found(conn, "qqxyzzyplugh")
    assert b"qqxyzzyplugh" in _disk_bytes(db)
    (work / "client" / ".solograph-private").touch()
    assert sync(conn, t.root, policy=POLICY)["purged"] == 1
    assert b"qqxyzzyplugh" not in _disk_bytes(db)
    assert found(conn, "ordinary")  # the rest is still there
    conn.close()


# --------------------------------------------------------------------------- unreadable

# Tests run as root, which opens any file, so the wrong-uid case is reproduced for real: the
# search runs in a child process that drops to an unprivileged uid (os.setuid) against
# transcripts owned by root with Claude Code's mode 0600. The child first runs one search as
# root on an empty folder, so every module is imported before the interpreter's own folder
# (under /root) becomes unreadable to it. Run as another user, chmod alone makes the case.
_CHILD = """
import json, os, sys
from pathlib import Path
from solograph import reads
from solograph.config import Settings
home, projects, warm = (Path(a) for a in sys.argv[1:4])
reads.session_search(Settings(home=warm, claude_projects=warm), "webhook")
import solograph.sessions.ingest  # the reader, which a sync imports once a file changed
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
print(json.dumps(reads.session_search(Settings(home=home, claude_projects=projects), "webhook")))
"""


def test_unreadable_transcripts_make_the_answer_incomplete():
    """Measured: a wrong SOLOGRAPH_UID made session search silently empty, complete: true."""
    base = Path(tempfile.mkdtemp(prefix="solograph-uid-"))
    try:
        _unreadable(base)
    finally:
        for p in base.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(base)


def _unreadable(base: Path) -> None:
    base.chmod(0o755)
    t = Transcripts(base / "projects")
    t.conversation("/home/dev/code/app", "the webhook retry")
    closed = t.conversation("/home/dev/code/other", "another webhook").path.parent
    for f in t.root.rglob("*.jsonl"):
        f.chmod(0o600 if os.geteuid() == 0 else 0)
    closed.chmod(0o700 if os.geteuid() == 0 else 0)  # one folder closed, one file closed
    home, warm = base / "home", base / "warm"
    for folder in (home, warm):
        folder.mkdir()
        folder.chmod(0o777)
    out = subprocess.run([sys.executable, "-c", _CHILD, str(home), str(t.root), str(warm)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    fresh = answer["freshness"]
    assert fresh["unreadable"] == 2 and fresh["complete"] is False
    assert "could not be read" in answer["note"]
    assert answer["count"] == 0
    # Readable again: the same search finds both, complete.
    closed.chmod(0o755)
    for f in t.root.rglob("*.jsonl"):
        f.chmod(0o644)
    again = reads.session_search(Settings(home=base / "home2", claude_projects=t.root),
                                 "webhook")
    assert again["count"] == 2 and again["freshness"]["complete"] is True
