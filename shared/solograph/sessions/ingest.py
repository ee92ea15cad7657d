"""Reading one transcript file into the index, from the byte offset where the last read stopped.

What a changed file gets:
- new, or reappeared after being deleted: read from the start;
- grown (same inode, and the bytes before the saved offset still hash the same): read from the
  saved offset, whole lines only, so a half-written last line waits for the next sync;
- shrunk, replaced (another inode) or rewritten (the hashed bytes differ): its rows are dropped
  and it is read again from the start;
- gone: kept, marked deleted (Claude Code removes transcripts after 30 days; this index is then
  the only copy).

A file is streamed line by line and committed every BATCH_ENTRIES entries, so memory stays flat
on a transcript of hundreds of megabytes and other writers wait at most one batch. Each commit
stores the offset with the rows it covers: a crash loses nothing and duplicates nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from pathlib import Path, PurePosixPath

from solograph.sessions import upkeep
from solograph.sessions.chunks import ChunkWriter, drop_chunks
from solograph.sessions.entries import entry_words, tools_json
from solograph.sessions.policy import Policy
from solograph.sessions.report import Report
from solograph.text.secrets import redact

# Problems of a record that was still read (bad bytes replaced, values nested too deep dropped):
# noted, never counted as a bad line.
READ_IN_PART = ("invalid_utf8", "too_deep")
HEAD = 4096  # bytes hashed at the start of a file and just before its offset
BATCH_ENTRIES = 2_000
BATCH_BYTES = 32 << 20


def _hash(fh, start: int, end: int) -> str:
    # pread leaves the file position alone: the reader may be in the middle of iterating it.
    data = os.pread(fh.fileno(), max(0, end - start), start)
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _hashes(fh, offset: int) -> tuple[str, str]:
    return _hash(fh, 0, min(HEAD, offset)), _hash(fh, max(0, offset - HEAD), offset)


class _TakenOver(Exception):
    """Another process advanced this file while we waited for the write lock."""


def sync_file(conn: sqlite3.Connection, root: Path, rel: str, kind: str, *, policy: Policy,
              sessions: dict[str, int], report: Report) -> None:
    """Bring one Claude Code transcript's rows up to date with the file (its own
    transactions)."""
    from solograph.sessions.agents import Unit, claude

    _run(conn, claude, Unit(rel, str(root / rel), kind, 0, 0, 0), policy, sessions, report)


def sync_unit(conn: sqlite3.Connection, agent, unit, *, policy: Policy,
              sessions: dict[str, int], report: Report) -> None:
    """Bring one unit of any agent (sessions/agents/) up to date (its own transactions)."""
    _run(conn, agent, unit, policy, sessions, report)


def _run(conn: sqlite3.Connection, agent, unit, policy: Policy, sessions: dict[str, int],
         report: Report) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        with contextlib.suppress(_TakenOver):
            if agent.APPENDABLE:
                _sync_file(conn, agent, unit, policy, sessions, report)
            else:
                _sync_whole(conn, agent, unit, policy, sessions, report)
        upkeep.refresh(conn, report.touched)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    finally:
        report.touched.clear()
    conn.execute("COMMIT")


def _sync_file(conn: sqlite3.Connection, agent, unit, policy: Policy,
               sessions: dict[str, int], report: Report) -> None:
    rel, kind = unit.key, unit.kind
    row = conn.execute("SELECT * FROM files WHERE path = ?", (rel,)).fetchone()
    if _leads_out(unit):  # a link out of the folder (to /etc/passwd): never opened
        report.note_unreadable(rel)
        return
    try:
        fh = open(unit.path, "rb")  # noqa: SIM115 - closed below; the stat must be of this handle
    except FileNotFoundError:
        if row is not None and row["status"] != "deleted":
            conn.execute("UPDATE files SET status = 'deleted' WHERE id = ?", (row["id"],))
            report.deleted += 1
        return
    except OSError:  # unreadable for now (permissions, a folder named *.jsonl): next sync
        report.note_unreadable(rel)
        return
    with fh:
        st = os.fstat(fh.fileno())
        if row is None:
            row = _new_file(conn, agent, rel, kind, (st.st_size, st.st_mtime_ns, st.st_ino))
            report.new += 1
        else:
            action = _decide(row, st, fh)
            if action in ("none", "skip", "touch"):
                conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?",
                             (st.st_size, st.st_mtime_ns, row["id"]))
                return
            if action == "reread":
                reset_file(conn, row["id"], report)
                row = conn.execute("SELECT * FROM files WHERE id = ?", (row["id"],)).fetchone()
                report.reread += 1
            else:
                report.grown += 1
        sig = (st.st_size, st.st_mtime_ns, st.st_ino)
        _Reader(conn, row, sig, fh, rel, policy, sessions, report, agent=agent.NAME,
                records=agent.records(unit, fh, row["offset"])).run()


def _new_file(conn: sqlite3.Connection, agent, rel: str, kind: str,
              sig: tuple[int, int, int]) -> sqlite3.Row:
    file_id = conn.execute(
        "INSERT INTO files (path, kind, size, mtime_ns, inode, agent) VALUES (?, ?, ?, ?, ?, ?)",
        (rel, kind, *sig, agent.NAME)).lastrowid
    return conn.execute("SELECT * FROM files WHERE id = ?", (file_id,)).fetchone()


def _sync_whole(conn: sqlite3.Connection, agent, unit, policy: Policy,
                sessions: dict[str, int], report: Report) -> None:
    """A unit the agent rewrites (a whole JSON file, a session spread over many files or
    rows): read again whole whenever its signature moved. What it held before goes first, so
    a message the agent removed (a rewind) leaves the index too."""
    if _leads_out(unit):
        report.note_unreadable(unit.key)
        return
    row = conn.execute("SELECT * FROM files WHERE path = ?", (unit.key,)).fetchone()
    if row is None:
        row = _new_file(conn, agent, unit.key, unit.kind, unit.signature)
        report.new += 1
    elif row["status"] in ("temp", "private") or (
            row["status"] == "live"
            and (row["size"], row["mtime_ns"], row["inode"]) == unit.signature):
        return  # kept out by its folder, or unchanged
    else:
        reset_file(conn, row["id"], report)
        row = conn.execute("SELECT * FROM files WHERE id = ?", (row["id"],)).fetchone()
        report.reread += 1
    try:
        reader = _Reader(conn, row, unit.signature, None, unit.key, policy, sessions, report,
                         agent=agent.NAME, records=agent.records(unit, None, 0))
        reader.run()
    except (FileNotFoundError, PermissionError, sqlite3.OperationalError) as exc:
        # Gone between the listing and the read, not ours to open, or the agent's database
        # busy: what was read of it goes, and the next sync reads it again whole.
        reset_file(conn, row["id"], report)
        if not isinstance(exc, FileNotFoundError):
            report.note_unreadable(unit.key)


def _leads_out(unit) -> bool:
    """Whether the unit's file, its links (and its folders') followed, lies outside the folder
    it was found in (the path less the key's relative part; a key of another agent is
    prefixed "name:")."""
    rel = unit.key.split(":", 1)[1] if ":" in unit.key else unit.key
    if not unit.path.endswith(os.sep + rel):
        return False  # not a file under a folder by that name (a row of a store)
    top = os.path.realpath(unit.path[:-len(rel) - 1])
    return os.path.commonpath((top, os.path.realpath(unit.path))) != top


def _decide(row: sqlite3.Row, st: os.stat_result, fh) -> str:
    if row["status"] in ("temp", "private"):
        return "skip"
    if row["status"] == "deleted" or st.st_ino != row["inode"] or st.st_size < row["offset"]:
        return "reread"
    if st.st_size == row["size"] and st.st_mtime_ns == row["mtime_ns"]:
        return "none"
    if row["offset"] and _hashes(fh, row["offset"]) != (row["head_hash"], row["tail_hash"]):
        return "reread"
    return "touch" if st.st_size == row["offset"] else "tail"


def reset_file(conn: sqlite3.Connection, file_id: int, report: Report) -> None:
    """Drop every row read from a file, so it can be read again from the start."""
    report.touched.update(r[0] for r in conn.execute(
        "SELECT DISTINCT session FROM chunks WHERE file_id = ?", (file_id,)))
    drop_chunks(conn, "file_id = ?", (file_id,))
    conn.execute("DELETE FROM summaries WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM cwds WHERE file_id = ?", (file_id,))
    # size -1: the next sync sees a change and reads the file from the start.
    conn.execute("UPDATE files SET offset = 0, lines = 0, bad_lines = 0, entries = 0, "
                 "session_id = '', cwd = '', head_hash = '', tail_hash = '', status = 'live', "
                 "size = -1 WHERE id = ?", (file_id,))


class _Reader:
    def __init__(self, conn: sqlite3.Connection, row: sqlite3.Row, sig: tuple[int, int, int],
                 fh, rel: str, policy: Policy, sessions: dict[str, int], report: Report, *,
                 agent: str, records) -> None:
        self.conn, self.sig, self.fh, self.rel = conn, sig, fh, rel
        self.agent, self.records = agent, records
        self.policy, self.sessions, self.report = policy, sessions, report
        self.file_id: int = row["id"]
        self.offset: int = row["offset"]
        self.lines: int = row["lines"]
        self.bad: int = row["bad_lines"]
        self.count: int = row["entries"]
        self.session_id: str = row["session_id"]
        self.cwd: str = row["cwd"]
        self.fallback = PurePosixPath(rel).stem  # a file whose records carry no sessionId
        self.chunks = ChunkWriter(conn, self.file_id)
        # Leaves of old-style titles: a message arriving for one retitles the session.
        self.leaves = {r[0] for r in conn.execute("SELECT DISTINCT leaf_uuid FROM summaries")}
        self.placed: set[int] = set()  # sessions whose cwd this reader has filled in
        self.cwds: set[str] = {r[0] for r in conn.execute(  # the folders already judged
            "SELECT cwd FROM cwds WHERE file_id = ?", (self.file_id,))}
        self.batch_entries = 0
        self.subagent = row["kind"] == "subagent"
        self.batch_bytes = 0

    def run(self) -> None:
        for end, rec, problem in self.records:
            start = self.offset
            self.offset = max(end, start)
            self.lines += 1
            self.report.bytes += self.offset - start
            self.batch_bytes += self.offset - start
            if problem:
                self.report.note_bad(problem)
            if rec is None:
                if problem and problem not in READ_IN_PART:
                    self.bad += 1
                    self.report.bad_lines += 1
                continue
            if rec.type in ("user", "assistant"):
                if rec.cwd and rec.cwd not in self.cwds:
                    reason = self._judge(rec.cwd)
                    if reason:
                        self._skip(reason)
                        return
                if not self.session_id and rec.session_id:
                    self.session_id = rec.session_id
                if rec.sidechain and self.agent != "claude" and not self.subagent and \
                        not self.count:
                    # Another agent's sub-agent file, its first message a sub-agent's (its
                    # records name their parent session): not the file that says whether the
                    # session is still live. (Copilot's sub-agents speak inside the main one.)
                    self.subagent = True
                    self.conn.execute("UPDATE files SET kind = 'subagent' WHERE id = ?",
                                      (self.file_id,))
                if rec.kind:
                    self._entry(rec, rec.uuid or f"{self.rel}@{start}")
            elif rec.type == "summary" and rec.title:
                self._summary(rec.title, rec.leaf_uuid)
            elif rec.type in ("custom-title", "ai-title") and rec.title:
                column = "custom_title" if rec.type == "custom-title" else "ai_title"
                key = self._session(rec.session_id or self.session_id or self.fallback)
                self.conn.execute(f"UPDATE sessions SET {column} = ? WHERE id = ?",
                                  (redact(rec.title), key))
            if self.batch_entries >= BATCH_ENTRIES or self.batch_bytes >= BATCH_BYTES:
                self._commit()
        self._save()

    def _judge(self, cwd: str) -> str:
        """Why the file stays out now that one of its records works in `cwd`, or "". The first
        folder decides temp (a batch run starts there); every folder can make it private,
        since a session that moves into a private folder is as private as one started there."""
        first = not self.cwd
        reason = self.policy.skip_reason(cwd) if first else \
            ("private" if self.policy.is_private(cwd) else "")
        if first or reason:
            self.cwd = redact(cwd)
        if not reason:
            self.cwds.add(cwd)
            self.conn.execute("INSERT OR IGNORE INTO cwds (file_id, cwd) VALUES (?, ?)",
                              (self.file_id, redact(cwd)))
        return reason

    def _session(self, session_id: str) -> int:
        key = self.sessions.get(session_id)
        if key is None:
            self.conn.execute("INSERT INTO sessions (session_id, agent) VALUES (?, ?) "
                              "ON CONFLICT (session_id) DO NOTHING", (session_id, self.agent))
            key = self.conn.execute("SELECT id FROM sessions WHERE session_id = ?",
                                    (session_id,)).fetchone()[0]
            self.sessions[session_id] = key
        self.report.touched.add(key)
        return key

    def _entry(self, rec, uuid: str) -> None:
        text, tools = rec.text, rec.tools  # parse redacted them, before it cut them
        words = entry_words(text, tools)
        if not words and not tools:
            return
        key = self._session(rec.session_id or self.session_id or self.fallback)
        chunk = self.chunks.chunk_for(key, len(words))
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO entries (session, file_id, chunk, seq, uuid, role, kind, at, "
            "sidechain, text, tools, words) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, self.file_id, chunk, self.lines, uuid, rec.type,
             rec.kind, rec.at, int(rec.sidechain), text, tools_json(tools), words))
        if cur.rowcount <= 0:
            return  # the same message, copied into another file by a resume
        self.chunks.add(rec.kind, rec.sidechain, words)
        if rec.uuid in self.leaves:  # an old-style title written earlier for this message
            self.report.touched.update(r[0] for r in self.conn.execute(
                "SELECT s.id FROM summaries m JOIN files f ON f.id = m.file_id "
                "JOIN sessions s ON s.session_id = f.session_id WHERE m.leaf_uuid = ?",
                (rec.uuid,)))
        self.count += 1
        self.batch_entries += 1
        self.report.entries += 1
        if self.cwd and key not in self.placed:
            self.placed.add(key)
            self.conn.execute("UPDATE sessions SET cwd = ? WHERE id = ? AND cwd = ''",
                              (self.cwd, key))

    def _summary(self, title: str, leaf: str) -> None:
        self.leaves.add(leaf)
        self.conn.execute("INSERT INTO summaries (file_id, seq, leaf_uuid, summary) "
                          "VALUES (?, ?, ?, ?)", (self.file_id, self.lines, leaf, redact(title)))
        self.report.touched.update(r[0] for r in self.conn.execute(
            "SELECT session FROM entries WHERE uuid = ?", (leaf,)))

    def _skip(self, reason: str) -> None:
        """The file's session stays out: drop what was read and never read it again."""
        if reason == "private":  # what was read leaves the file's pages, not only its rows
            self.conn.execute("PRAGMA secure_delete = ON")  # scrub() sets it back
        self.chunks.flush()  # its index row must exist before reset_file deletes it
        reset_file(self.conn, self.file_id, self.report)
        self.conn.execute("UPDATE files SET status = ?, cwd = ?, session_id = ?, size = ?, "
                          "mtime_ns = ?, inode = ? WHERE id = ?",
                          (reason, self.cwd, self.session_id, *self.sig, self.file_id))
        if reason == "temp":
            self.report.temp += 1
        else:
            self.report.private += 1
            if self.session_id and upkeep.purge_session(self.conn, self.session_id, self.cwd):
                self.report.purged += 1
                self.sessions.pop(self.session_id, None)

    def _commit(self) -> None:
        self._save()
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN IMMEDIATE")
        offset = self.conn.execute("SELECT offset FROM files WHERE id = ?",
                                   (self.file_id,)).fetchone()
        if offset is None or offset[0] != self.offset:
            raise _TakenOver
        self.batch_entries = self.batch_bytes = 0

    def _save(self) -> None:
        self.chunks.flush()
        head, tail = _hashes(self.fh, self.offset) if self.fh is not None else ("", "")
        self.conn.execute(
            "UPDATE files SET offset = ?, lines = ?, bad_lines = ?, entries = ?, session_id = ?, "
            "cwd = ?, size = ?, mtime_ns = ?, inode = ?, head_hash = ?, tail_hash = ?, "
            "status = 'live' WHERE id = ?",
            (self.offset, self.lines, self.bad, self.count, self.session_id, self.cwd,
             *self.sig, head, tail, self.file_id))
