"""OpenCode's SQLite store (1.2 and later), built here from its documented schema
(sst/opencode `packages/opencode/src/session/session.sql.ts`), written the way OpenCode writes
it: WAL, with rows still in the `-wal` file while OpenCode runs."""

from __future__ import annotations

import json
import sqlite3

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.sessions import sync
from solograph.sessions.policy import Policy
from solograph.sessions.sync import sync_sessions

POLICY = Policy(temp_roots=("/nowhere-temp",), markers=(".solograph-private",))

SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id)
    ON DELETE CASCADE, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL,
    directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL,
    share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER,
    summary_files INTEGER, summary_diffs TEXT, cost REAL NOT NULL DEFAULT 0,
    revert TEXT, permission TEXT, agent TEXT, model TEXT,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    time_compacting INTEGER, time_archived INTEGER);
CREATE INDEX session_parent_idx ON session(parent_id);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id)
    ON DELETE CASCADE, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message(session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id)
    ON DELETE CASCADE, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part(message_id, id);
CREATE INDEX part_session_idx ON part(session_id);
"""
T0 = 1_760_000_000_000


class OpenCode:
    """The agent's side: one writer that keeps its WAL (no checkpoint), as OpenCode does."""

    def __init__(self, path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=0)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA wal_autocheckpoint = 0")
        self.conn.executescript(SCHEMA)
        self.conn.execute("INSERT INTO project VALUES ('p1', '/', ?, ?)", (T0, T0))
        self.clock = T0

    def tick(self) -> int:
        self.clock += 1000
        return self.clock

    def session(self, sid: str, directory: str, title: str, parent: str | None = None) -> None:
        now = self.tick()
        self.conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, "
                          "title, version, time_created, time_updated) VALUES "
                          "(?, 'p1', ?, ?, ?, ?, '1.2.0', ?, ?)",
                          (sid, parent, sid, directory, title, now, now))

    def message(self, sid: str, mid: str, role: str, *parts: dict) -> None:
        now = self.tick()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (
            mid, sid, now, now, json.dumps({"role": role, "time": {"created": now}})))
        for i, part in enumerate(parts):
            self.conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                              (f"{mid}-p{i:02d}", mid, sid, now, now, json.dumps(part)))
        self.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (now, sid))
        self.conn.execute("COMMIT")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(sync, "default_policy", lambda: POLICY)
    folder = tmp_path / "opencode"
    folder.mkdir()
    agent = OpenCode(folder / "opencode.db")
    work = tmp_path / "work"
    work.mkdir()
    agent.session("ses_a", str(work), "Fix the flaky quokka test")
    agent.message("ses_a", "msg_01", "user", {"type": "text", "text": "the quokka test flakes"})
    agent.message("ses_a", "msg_02", "assistant",
                  {"type": "reasoning", "text": "look at the fixture order"},
                  {"type": "tool", "tool": "bash", "state": {"input": {"command": "pytest -x"}}},
                  {"type": "text", "text": "the fixture shares a temp dir"},
                  {"type": "step-finish"})
    agent.session("ses_b", str(work), "sub-agent", parent="ses_a")
    agent.message("ses_b", "msg_03", "assistant", {"type": "text", "text": "wombat audit done"})
    settings = Settings(home=tmp_path / "solo", agent_paths=(("opencode", folder),))
    yield agent, settings, folder
    agent.conn.close()


def test_rows_still_in_the_wal_are_read_and_the_store_is_never_written(store):
    agent, settings, folder = store
    db, wal = folder / "opencode.db", folder / "opencode.db-wal"
    assert wal.stat().st_size > 0  # nothing checkpointed: the rows are in the WAL only
    before = (db.stat().st_size, db.stat().st_mtime_ns, wal.stat().st_size,
              wal.stat().st_mtime_ns)
    report = sync_sessions(settings)
    assert report["agents"]["opencode"]["sessions"] == 1  # the sub-agent joins its parent
    after = (db.stat().st_size, db.stat().st_mtime_ns, wal.stat().st_size,
             wal.stat().st_mtime_ns)
    assert after == before
    hit = reads.session_search(settings, "quokka flakes")["results"][0]
    assert (hit["agent"], hit["session"], hit["messages"]) == ("opencode", "ses_a", 3)
    assert hit["resume"].endswith("&& opencode --session ses_a")
    # One message over many parts, in order; the sub-agent's words are the session's too.
    assert reads.session_search(settings, "wombat audit")["results"][0]["session"] == "ses_a"
    read = reads.session_search(settings, "fixture", session="ses_a")
    texts = [m["text"] for m in read["messages"] if m["role"] == "assistant"]
    assert "look at the fixture order\n\nthe fixture shares a temp dir" in texts
    # And no lock of ours is left: the agent writes at once (its busy timeout is 0).
    agent.message("ses_a", "msg_04", "user", {"type": "text", "text": "now the pangolin"})


def test_a_changed_session_is_read_again_and_a_deleted_one_is_kept(store):
    agent, settings, folder = store
    sync_sessions(settings)
    agent.message("ses_a", "msg_04", "user", {"type": "text", "text": "now the pangolin"})
    again = sync_sessions(settings)
    assert again["reread"] == 1 and again["entries"] == 3  # that session (not its sub-agent)
    assert reads.session_search(settings, "pangolin")["count"] == 1
    assert sync_sessions(settings)["entries"] == 0  # nothing moved: nothing read
    agent.conn.execute("DELETE FROM part WHERE session_id = 'ses_a'")
    agent.conn.execute("DELETE FROM message WHERE session_id = 'ses_a'")
    agent.conn.execute("DELETE FROM session WHERE id = 'ses_a'")
    assert sync_sessions(settings)["deleted"] == 1
    hit = reads.session_search(settings, "pangolin")["results"][0]
    assert hit["archived"] is True and hit["resume"] is None


def test_a_bad_row_is_counted_and_read_around(store):
    agent, settings, folder = store
    now = agent.tick()
    agent.conn.execute("INSERT INTO part VALUES ('msg_02-p99', 'msg_02', 'ses_a', ?, ?, "
                       "'{not json')", (now, now))
    agent.conn.execute("INSERT INTO part VALUES ('msg_02-p98', 'msg_02', 'ses_a', ?, ?, ?)",
                       (now, now, json.dumps({"type": "hologram"})))
    report = sync_sessions(settings)
    assert report["bad"] == {"not_json": 1, "unknown_type": 1}
    assert reads.session_search(settings, "quokka flakes")["count"] == 1
