"""Keeping the stored sessions right: counts and titles, purges, and re-redaction.

- `refresh` recomputes what a session shows (message count, dates, title) after its rows
  changed, and drops a session left with nothing.
- `purge_session` removes a session whose folder became private; its files are remembered as
  private so they are not read again (until the marker goes); `scrub` then makes the removed
  text leave the file's bytes.
- `ensure_clean` runs on open: when the stored text was redacted by older rules (or by none),
  every stored text is redacted again, the index rebuilt from the clean text, and the file
  vacuumed and its WAL truncated so that no page on disk still holds what was removed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from solograph.sessions import titles
from solograph.sessions.chunks import chunk_text, drop_chunks, fts_delete, fts_insert
from solograph.store import get_meta, reclean, set_meta, transaction
from solograph.text.secrets import RULES_VERSION, redact

_BATCH = 5_000
_FIRST_CWD = ("SELECT f.cwd FROM entries e JOIN files f ON f.id = e.file_id "
              "WHERE e.session = ? AND f.kind = 'main' AND f.cwd != ''")


def refresh(conn: sqlite3.Connection, keys: Iterable[int]) -> None:
    for key in keys:
        row = conn.execute("SELECT session_id, custom_title, ai_title FROM sessions "
                           "WHERE id = ?", (key,)).fetchone()
        if row is None:
            continue
        count = conn.execute("SELECT COALESCE(SUM(entries), 0) FROM chunks WHERE session = ?",
                             (key,)).fetchone()[0]
        if count == 0 and not row["custom_title"] and not row["ai_title"]:
            drop_chunks(conn, "session = ?", (key,))  # empty ones, index rows included
            conn.execute("DELETE FROM sessions WHERE id = ?", (key,))
            continue
        first = conn.execute("SELECT MIN(at) FROM entries WHERE session = ? AND at != ''",
                             (key,)).fetchone()[0] or ""
        last = conn.execute("SELECT MAX(at) FROM entries WHERE session = ?",
                            (key,)).fetchone()[0] or ""
        title = titles.choose(custom=row["custom_title"], ai=row["ai_title"],
                              summary=_summary(conn, key, row["session_id"]),
                              prompts=_prompts(conn, key))
        conn.execute("UPDATE sessions SET messages = ?, first_at = ?, last_at = ?, title = ? "
                     "WHERE id = ?", (count, first, last, title, key))
        # Where the session started: the first folder of the main transcript holding its
        # earliest message, which is the folder `claude --resume` finds it from. A sub-agent's
        # file (read first when it is newer) carries the folder the session had moved to.
        # Dated messages first, then undated ones, each in its own query: one ORDER BY
        # `at = ''` cannot walk the (session, at) index and sorted every entry of the session
        # (30 ms on each resync of a 400 MB transcript).
        conn.execute(
            f"UPDATE sessions SET cwd = COALESCE(({_FIRST_CWD} AND e.at != '' "
            f"ORDER BY e.at, e.seq LIMIT 1), ({_FIRST_CWD} AND e.at = '' "
            "ORDER BY e.seq LIMIT 1), cwd) WHERE id = ?", (key, key, key))


def _summary(conn: sqlite3.Connection, key: int, session_id: str) -> str:
    """The newest summary whose leaf is one of this session's messages, else the newest one
    in the session's own files whose leaf is in no session (old files title other sessions)."""
    row = conn.execute(
        "SELECT summary FROM summaries s WHERE EXISTS (SELECT 1 FROM entries e "
        "WHERE e.uuid = s.leaf_uuid AND e.session = ?) ORDER BY file_id DESC, seq DESC LIMIT 1",
        (key,)).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT s.summary FROM summaries s JOIN files f ON f.id = s.file_id "
            "WHERE f.session_id = ? AND NOT EXISTS (SELECT 1 FROM entries e "
            "WHERE e.uuid = s.leaf_uuid) ORDER BY s.file_id DESC, s.seq DESC LIMIT 1",
            (session_id,)).fetchone()
    return row[0] if row else ""


def _prompts(conn: sqlite3.Connection, key: int) -> list[str]:
    """The first prompts in order: the main conversation's, else the sub-agents'."""
    for sidechain in (0, 1):
        rows = conn.execute(
            "SELECT text FROM entries WHERE session = ? AND kind = 'prompt' AND "
            "sidechain = ? ORDER BY at, file_id, seq LIMIT 20", (key, sidechain)).fetchall()
        if rows:
            return [r[0] for r in rows]
    return []


def purge_session(conn: sqlite3.Connection, session_id: str, cwd: str = "") -> bool:
    """Remove a session and everything read for it; True when there was one. Its files are
    marked private (with the folder that made them so) and not read while it stays private."""
    files = [r[0] for r in conn.execute("SELECT id FROM files WHERE session_id = ?",
                                        (session_id,))]
    for file_id in files:
        conn.execute("DELETE FROM summaries WHERE file_id = ?", (file_id,))
        # The folder that made it private, so the file is read again once that one is not.
        conn.execute("UPDATE files SET status = 'private', "
                     "cwd = CASE WHEN ? = '' THEN cwd ELSE ? END WHERE id = ?",
                     (cwd, cwd, file_id))
    row = conn.execute("SELECT id FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row is None:
        return False
    drop_chunks(conn, "session = ?", (row[0],))
    conn.execute("DELETE FROM sessions WHERE id = ?", (row[0],))
    return True


ZEROED = "free_space_zeroed"  # meta: every write to this file ran under secure_delete


def scrub(conn: sqlite3.Connection) -> None:
    """After a purge: merge the index into one segment, so the purged terms leave its pages
    (a contentless FTS5 delete only adds a tombstone), and checkpoint the WAL into the file and
    truncate it, so no frame still holds them. The purge itself ran with secure_delete on, which
    zeroes the freed cells and pages; the old versions of rows that were updated were zeroed
    as they were written (`FAST`, set on open), except in a file written before that, which
    is vacuumed once. Outside a transaction."""
    conn.execute("PRAGMA secure_delete = ON")
    try:
        with transaction(conn):
            conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
        if get_meta(conn, ZEROED) is None:
            conn.execute("VACUUM")
            with transaction(conn):
                set_meta(conn, ZEROED, "1")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.execute("PRAGMA secure_delete = FAST")


# --------------------------------------------------------------------------- re-redaction


def ensure_clean(conn: sqlite3.Connection) -> int:
    """Redact every stored text again when the index predates the current rules; returns the
    number of rows that changed (0 when the index was already clean). Leaves the connection
    zeroing what it deletes or rewrites (secure_delete FAST: no extra I/O), so a purge later
    leaves no old copy of a row in a page's free space."""
    changed = reclean(conn, _reredact, version=RULES_VERSION)
    conn.execute("PRAGMA secure_delete = FAST")
    return changed


def _reredact(conn: sqlite3.Connection) -> int:
    from solograph.sessions.entries import entry_words, tools_json

    changed = 0
    dirty: set[int] = set()  # chunks whose index row was deleted and must be written again
    last = 0
    while True:
        rows = conn.execute("SELECT id, chunk, text, tools FROM entries WHERE id > ? "
                            "ORDER BY id LIMIT ?", (last, _BATCH)).fetchall()
        if not rows:
            break
        last = rows[-1]["id"]
        for row in rows:
            text = redact(row["text"])
            tools = [(name, {k: redact(v) for k, v in args.items()})
                     for name, args in (json.loads(row["tools"]) if row["tools"] else [])]
            packed = tools_json(tools)
            if text == row["text"] and packed == row["tools"]:
                continue
            if row["chunk"] not in dirty:
                fts_delete(conn, row["chunk"], chunk_text(conn, row["chunk"]))
                dirty.add(row["chunk"])
            conn.execute("UPDATE entries SET text = ?, tools = ?, words = ? WHERE id = ?",
                         (text, packed, entry_words(text, tools), row["id"]))
            changed += 1
    for chunk in dirty:
        fts_insert(conn, chunk, chunk_text(conn, chunk))
    for table, key, columns in (("summaries", "id", ("summary",)),
                                ("sessions", "id", ("cwd", "title", "custom_title", "ai_title")),
                                ("files", "id", ("cwd",))):
        for row in conn.execute(f"SELECT {key}, {', '.join(columns)} FROM {table}").fetchall():
            clean = [redact(row[c]) for c in columns]
            if clean != [row[c] for c in columns]:
                sets = ", ".join(f"{c} = ?" for c in columns)
                conn.execute(f"UPDATE {table} SET {sets} WHERE {key} = ?", (*clean, row[key]))
                changed += 1
    # Merge every index segment into one, so the deleted rows' terms leave the file too.
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
    return changed
