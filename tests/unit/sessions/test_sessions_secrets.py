"""Secrets never reach the session index's file, its WAL included; an index written before a
rule existed is cleaned on open."""

from __future__ import annotations

from pathlib import Path

from solograph.config import PRIVATE_MARKERS
from solograph.sessions import ingest, records
from solograph.sessions.policy import Policy
from solograph.sessions.search import search
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from solograph.sessions.upkeep import ensure_clean
from solograph.store import RULES_KEY, stored_rules
from solograph.text.secrets import RULES_VERSION, redact
from tests.support.transcripts import Transcripts

POLICY = Policy(temp_roots=("/nowhere-temp",), markers=PRIVATE_MARKERS)
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ANTHROPIC = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBaQ"
AWS = "AKIA" + "IOSFODNN7EXAMPL3"
SECRETS = (GITHUB, ANTHROPIC, AWS)


def on_disk(db: Path) -> bytes:
    """Every byte of the store: the database, its WAL and its shared-memory index."""
    return b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"))
                    if p.exists())


def leaked(db: Path) -> list[str]:
    data = on_disk(db)
    return [s for s in SECRETS if s.encode() in data or s[8:].encode() in data]


def write_secrets(t: Transcripts):
    s = t.session("/home/dev/app")
    s.prompt(f"deploy with token {GITHUB} to the staging cluster")
    reply = s.reply("Exporting the key.", tools=[
        ("Bash", {"command": f"export ANTHROPIC_API_KEY={ANTHROPIC} && ./deploy.sh"})])
    s.tool_result(reply["message"]["content"][-1]["id"],
                  f"aws_access_key_id = {AWS}\nDeployed to staging.")
    s.raw({"type": "custom-title", "customTitle": f"deploy {GITHUB}", "sessionId": s.id})
    s.flush()
    return s


def test_the_fixture_secrets_are_secrets():
    for secret in SECRETS:
        assert redact(f"key {secret} end") != f"key {secret} end", secret


def test_secrets_in_prompts_tool_calls_and_output_never_reach_the_file(tmp_path):
    t = Transcripts(tmp_path / "projects")
    s = write_secrets(t)
    db = tmp_path / "sessions.db"
    conn = open_index(db)
    sync(conn, t.root, policy=POLICY)
    assert Path(f"{db}-wal").exists()  # checked while the WAL still holds the writes
    assert leaked(db) == []
    hit = search(conn, "staging cluster")[1][0]
    assert hit["session"] == s.id and "[REDACTED]" in hit["snippet"]
    assert "[REDACTED]" in hit["title"]
    conn.close()
    assert leaked(db) == []


def test_an_index_written_before_the_rules_is_cleaned_on_open(tmp_path, monkeypatch):
    t = Transcripts(tmp_path / "projects")
    write_secrets(t)
    db = tmp_path / "sessions.db"
    with monkeypatch.context() as m:
        m.setattr(ingest, "redact", lambda text: text)  # as if no rule existed yet
        m.setattr(records, "redact_cut", lambda text, limit: text[:limit])
        conn = open_index(db)
        sync(conn, t.root, policy=POLICY)
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (RULES_VERSION - 1, RULES_KEY))
        assert conn.execute("SELECT doc FROM chunks_vocab WHERE term = 'ghp'").fetchone()
        conn.close()
    assert leaked(db) != []
    conn = open_index(db)
    assert stored_rules(conn) == RULES_VERSION
    assert leaked(db) == []
    assert conn.execute("SELECT doc FROM chunks_vocab WHERE term = 'ghp'").fetchone() is None
    assert search(conn, "staging")[1][0]["snippet"].count("[REDACTED]") == 1
    assert ensure_clean(conn) == 0  # once only
    assert sync(conn, t.root, policy=POLICY)["entries"] == 0
    conn.close()
    assert leaked(db) == []


def test_a_new_index_records_the_rules_version(tmp_path):
    conn = open_index(tmp_path / "s.db")
    assert stored_rules(conn) == RULES_VERSION
    conn.close()


def test_a_token_across_the_cut_keeps_no_head(tmp_path):
    # A message's text and a tool call's arguments are cut to a limit; a token straddling the
    # limit must go whole, never keep its first characters.
    t = Transcripts(tmp_path / "projects")
    s = t.session("/home/dev/app")
    s.prompt("w" * (records.MAX_TEXT - 20) + " " + GITHUB + " and more words")
    s.reply("Running it.", tools=[("Bash", {"command": "x" * (records.MAX_ARG - 15) + " "
                                            + GITHUB})])
    s.flush()
    db = tmp_path / "sessions.db"
    conn = open_index(db)
    assert sync(conn, t.root, policy=POLICY)["entries"] == 2
    assert conn.execute("SELECT doc FROM chunks_vocab WHERE term = 'ghp'").fetchone() is None
    conn.close()
    assert GITHUB[:8].encode() not in on_disk(db)
