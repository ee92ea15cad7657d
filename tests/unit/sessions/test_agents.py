"""Every agent's sessions read from its fixtures (../shared/corpora/agents/), laid out as on a
user's machine: sessions, messages by role, working folders and times equal what the files
hold, counted here by a plain scan of the files; a grown file is read from its offset; a
deleted one stays searchable; a private folder stays out; a new agent is one module and one
line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import AGENT_NAMES, Settings
from solograph.sessions import agents, sync
from solograph.sessions.policy import Policy
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync_sessions
from tests.support.agents import aider_checkouts, lay_out, register, settings_for

# tmp_path is under /tmp, which the index leaves out as temporary: the tests' own rules.
POLICY = Policy(temp_roots=("/nowhere-temp",), markers=(".solograph-private",))


@pytest.fixture
def world(tmp_path, corpora, monkeypatch):
    monkeypatch.setattr(sync, "default_policy", lambda: POLICY)
    home, work, solo = tmp_path / "home", tmp_path / "work", tmp_path / "solo"
    folders = lay_out(corpora, home, work)
    register(solo / "portfolio.db", aider_checkouts(corpora, work))
    settings = settings_for(home, folders, solo=solo)
    report = sync_sessions(settings)
    return settings, work, report, corpora / "agents"


def stored(settings: Settings, agent: str) -> dict[str, dict]:
    conn = open_index(settings.sessions_db)
    try:
        out = {}
        for row in conn.execute("SELECT * FROM sessions WHERE agent = ?", (agent,)):
            roles = dict(conn.execute("SELECT role, COUNT(*) FROM entries WHERE session = ? "
                                      "GROUP BY role", (row["id"],)).fetchall())
            out[row["session_id"]] = {"cwd": row["cwd"], "first": row["first_at"],
                                      "last": row["last_at"], "user": roles.get("user", 0),
                                      "assistant": roles.get("assistant", 0)}
        return out
    finally:
        conn.close()


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def moved(cwd: str, work: Path) -> str:
    return str(work) + cwd[4:] if cwd.startswith("/tmp") else cwd


# ------------------------------------------------------------------ what each file holds


def test_codex_prompts_once_without_what_codex_injects(world):
    settings, work, report, src = world
    lines = jsonl(src / "agent-sessions/codex/large.jsonl")
    meta = lines[0]["payload"]
    typed = {x["payload"]["message"] for x in lines if x["type"] == "event_msg"
             and x["payload"]["type"] == "user_message"}
    messages = [x for x in lines if x["type"] == "response_item"
                and x["payload"]["type"] == "message"]
    said = [m for m in messages if m["payload"]["role"] == "user"
            and not m["payload"]["content"][0]["text"].startswith("<")]
    typed |= {m["payload"]["content"][0]["text"] for m in said}  # each prompt once
    replies = [m for m in messages if m["payload"]["role"] == "assistant"]
    times = sorted(x["timestamp"] for x in lines if x in said or x in replies
                   or (x["type"] == "event_msg" and x["payload"]["type"] == "user_message"))
    got = stored(settings, "codex")[meta["id"]]
    assert got == {"cwd": moved(meta["cwd"], work), "first": times[0], "last": times[-1],
                   "user": len(typed), "assistant": len(replies)}
    assert report["agents"]["codex"]["sessions"] == 2  # the archived rollout too
    assert report["bad"].get("unknown_type", 0) == 0


def test_gemini_json_and_jsonl(world):
    settings, work, report, src = world
    got = stored(settings, "gemini")
    for name in ("small.json", "large.json"):
        record = json.loads((src / "agent-sessions/gemini" / name).read_text())
        said = [m for m in record["messages"] if m["type"] in ("user", "gemini", "model")
                and (m.get("content") or m.get("parts") or m.get("toolCalls")
                     or m.get("thoughts"))]
        session = got[record["sessionId"]]
        assert session["user"] == sum(m["type"] == "user" for m in said), name
        assert session["assistant"] == sum(m["type"] != "user" for m in said), name
        assert session["first"] == min(m["timestamp"] for m in said)
        assert session["last"] == max(m["timestamp"] for m in said)
        assert session["cwd"] == str(work / "gem")  # from ~/.gemini/projects.json
    log = jsonl(src / "agent-sessions/gemini/jsonl_v040.jsonl")
    messages = {m["id"]: m for m in log if "id" in m}
    session = got[log[0]["sessionId"]]
    assert session["user"] == sum(m["type"] == "user" for m in messages.values())
    assert session["assistant"] == sum(m["type"] == "gemini" for m in messages.values())


def test_gemini_rewind_removes_what_follows(world):
    settings, work, report, src = world
    chats = next((Path(settings.agent_path("gemini")) / "tmp").iterdir()) / "chats"
    log = chats / "session-2026-04-29T21-39-jsonl.jsonl"
    with log.open("a") as fh:
        fh.write(json.dumps({"id": "g-user-2", "timestamp": "2026-04-29T21:40:00.000Z",
                             "type": "user", "content": "walk the quokka enclosure"}) + "\n")
    first = reads.session_search(settings, "quokka enclosure")
    assert first["count"] == 1, first
    with log.open("a") as fh:
        fh.write(json.dumps({"$rewindTo": "g-user-2"}) + "\n")
    assert reads.session_search(settings, "quokka enclosure")["count"] == 0
    kept = reads.session_search(settings, "hello list files", agent="gemini")["results"]
    assert "gemini_stage0_jsonl" in {h["session"] for h in kept}  # what came before stays


def test_cursor_copilot_opencode_aider(world):
    settings, work, report, src = world
    base = src / "agent-sessions"
    cursor = stored(settings, "cursor")
    for sid, files in (("c-small", ["cursor/small.jsonl"]), ("c-large", ["cursor/large.jsonl"]),
                       ("c-parent", ["cursor/subagent/parent.jsonl",
                                     "cursor/subagent/subagents/child.jsonl"])):
        lines = [x for f in files for x in jsonl(base / f) if x.get("role") and any(
            b.get("type") in ("text", "thinking", "tool_use") for b in x["message"]["content"])]
        assert cursor[sid]["user"] == sum(x["role"] == "user" for x in lines), sid
        assert cursor[sid]["assistant"] == sum(x["role"] == "assistant" for x in lines), sid
        assert cursor[sid]["cwd"] == str(work / "cur")  # the project folder's name, decoded
    copilot = stored(settings, "copilot")
    for f in ("copilot/small.jsonl", "copilot/large.jsonl",
              "copilot/subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl"):
        events = jsonl(base / f)
        start = events[0]["data"]
        users = [e for e in events if e["type"] == "user.message"]
        replies = [e for e in events if e["type"] in ("assistant.message",
                                                       "assistant.reasoning")
                   and (e["data"].get("content") or e["data"].get("toolRequests"))]
        got = copilot[start["sessionId"]]
        assert (got["user"], got["assistant"]) == (len(users), len(replies)), f
        assert got["cwd"] == moved(start.get("context", {}).get("cwd", ""), work), f
    opencode = stored(settings, "opencode")
    for store in ("storage_v2", "storage_legacy"):
        for session in (base / "opencode" / store / "session").rglob("*.json"):
            record = json.loads(session.read_text())
            roles = [json.loads(m.read_text())["role"]
                     for m in (base / "opencode" / store / "message" / record["id"]).iterdir()]
            got = opencode[record["id"]]
            assert (got["user"], got["assistant"]) == (roles.count("user"),
                                                       roles.count("assistant")), session
            assert got["cwd"] == moved(record["directory"], work)
    aider = stored(settings, "aider")
    assert len(aider) == 6
    for history in (src / "aider").glob("*.md"):
        text = history.read_text()
        prompts = len(re.findall(r"(?m)^####.*\n(?:####.*\n)*", text))
        name = history.name.removesuffix(".aider.chat.history.md")
        (got,) = [s for s in aider.values() if s["cwd"].endswith("/" + name)]
        assert got["user"] == prompts, name
        started = re.search(r"started at (\S+) (\S+)", text).groups()
        assert got["first"] == "T".join(started)


def test_every_hit_names_its_agent_and_resumes_with_the_agents_own_command(world):
    settings, work, report, src = world
    expected = {"codex": "codex resume {id}", "gemini": "gemini --resume {id}",
                "cursor": "cursor-agent --resume {id}", "copilot": "copilot --resume {id}",
                "opencode": "opencode --session {id}", "aider": "aider --restore-chat-history"}
    for agent, command in expected.items():
        answer = reads.session_search(settings, "files", agent=agent, limit=50)
        assert answer["count"] > 0, agent
        for hit in answer["results"]:
            assert hit["agent"] == agent
            own = command.format(id=hit["session"])
            assert hit["resume"] == (f"cd '{hit['cwd']}' && {own}" if hit["cwd"] else own), hit
        assert answer["freshness"]["agents"][agent]["present"] is True
        export = reads.session_export(settings, answer["results"][0]["session"])
        assert f"- agent: {agent}" in export["content"]
    mixed = reads.session_search(settings, "files", limit=50)
    assert {h["agent"] for h in mixed["results"]} >= set(expected)
    assert set(mixed["freshness"]["agents"]) == set(AGENT_NAMES)


# ------------------------------------------------------------------ the guarantees


def test_a_grown_rollout_is_read_from_its_offset(world):
    settings, work, report, src = world
    rollout = next(Path(settings.agent_path("codex")).rglob("rollout-2025-*.jsonl"))
    size = rollout.stat().st_size
    line = json.dumps({"timestamp": "2025-12-18T10:01:00.000Z", "type": "response_item",
                       "payload": {"type": "message", "role": "user", "content": [
                           {"type": "input_text", "text": "teach the pangolin to sort"}]}})
    with rollout.open("a") as fh:
        fh.write(line + "\n")
    again = sync_sessions(settings)
    assert again["grown"] == 1 and again["entries"] == 1
    assert again["bytes"] == len(line) + 1  # only what was appended was read
    conn = open_index(settings.sessions_db)
    assert conn.execute("SELECT offset FROM files WHERE path LIKE 'codex:sessions/%'"
                        ).fetchone()[0] == size + len(line) + 1
    conn.close()
    hit = reads.session_search(settings, "pangolin sort")["results"][0]
    assert hit["agent"] == "codex" and hit["session"] == "019b2ea4-aaaa-bbbb-cccc-58208e1f0000"
    assert sync_sessions(settings)["entries"] == 0  # unchanged: nothing read


def test_a_deleted_session_stays_searchable_for_every_agent(world):
    settings, work, report, src = world
    for agent in ("codex", "copilot", "opencode"):
        folder = Path(settings.agent_path(agent))
        for f in folder.rglob("*"):
            if f.is_file():  # the agent deleted its sessions
                f.unlink()
    gone = sync_sessions(settings)
    assert gone["deleted"] >= 3
    for agent in ("codex", "copilot", "opencode"):
        answer = reads.session_search(settings, "files", agent=agent)
        assert answer["count"] > 0, agent
        assert all(h["archived"] and h["resume"] is None for h in answer["results"]), agent


def test_a_missing_agent_folder_deletes_nothing(world):
    settings, work, report, src = world
    elsewhere = settings.with_(agent_paths=tuple((n, p.parent / "unmounted") if n == "codex"
                                                 else (n, p) for n, p in settings.agent_paths))
    assert sync_sessions(elsewhere)["deleted"] == 0
    assert reads.session_search(elsewhere, "Captured multiline", agent="codex")["count"] == 1


def test_a_private_folder_stays_out(world):
    settings, work, report, src = world
    assert reads.session_search(settings, "Captured multiline", agent="codex")["count"] == 1
    (work / "large" / ".solograph-private").touch()
    sync_sessions(settings)
    assert reads.session_search(settings, "Captured multiline", agent="codex")["count"] == 0
    assert set(stored(settings, "opencode")) == {"s_stage0_small", "s_stage0_drift"}
    conn = open_index(settings.sessions_db)
    assert conn.execute("SELECT COUNT(*) FROM entries e JOIN files f ON f.id = e.file_id "
                        "WHERE f.agent = 'codex' AND e.text LIKE '%Captured multiline%'"
                        ).fetchone()[0] == 0  # what was read leaves the index
    conn.close()


def test_temporary_folders_stay_out(tmp_path, corpora):
    home, solo = tmp_path / "home", tmp_path / "solo"
    folders = lay_out(corpora, home, Path("/tmp/batch"), make=False)
    report = sync_sessions(settings_for(home, folders, solo=solo))
    assert report["agents"]["codex"]["sessions"] == 0 and report["temp"] >= 2


def test_unknown_record_types_are_counted_and_skipped(world):
    settings, work, report, src = world
    rollout = next(Path(settings.agent_path("codex")).rglob("rollout-2025-*.jsonl"))
    with rollout.open("a") as fh:
        fh.write('{"timestamp":"2025-12-18T10:02:00Z","type":"hologram","payload":{}}\n')
        fh.write("not json at all\n")
    again = sync_sessions(settings)
    assert again["bad"] == {"unknown_type": 1, "not_json": 1}
    assert again["bad_lines"] == 2


def test_an_agent_turned_off_is_not_read(tmp_path, corpora, monkeypatch):
    monkeypatch.setattr(sync, "default_policy", lambda: POLICY)
    home, solo = tmp_path / "home", tmp_path / "solo"
    folders = lay_out(corpora, home, tmp_path / "work")
    on = settings_for(home, folders, solo=solo, agents=("claude", "gemini"))
    report = sync_sessions(on)
    assert set(report["agents"]) == {"claude", "gemini"}
    env = Settings.from_env({"HOME": str(home), "SOLOGRAPH_HOME": str(solo),
                             "SOLOGRAPH_AGENTS": "codex,aider", "SOLOGRAPH_AIDER_PATH": "off",
                             "CODEX_HOME": str(folders["codex"])})
    assert env.agent_path("codex") == folders["codex"] and env.agent_path("aider") is None
    assert env.agent_path("gemini") is None  # not in SOLOGRAPH_AGENTS


# ------------------------------------------------------------------ a new agent


def test_a_new_agent_is_one_module_and_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sync, "default_policy", lambda: POLICY)
    monkeypatch.setattr(agents, "AGENTS", (*agents.AGENTS, "tests.support.toy_agents.toy"))
    folder = tmp_path / "toy"
    folder.mkdir()
    (tmp_path / "proj").mkdir()
    log = folder / "t-1.log"
    log.write_text(f"@ {tmp_path / 'proj'}\n> how do quokkas sleep\nCurled up, by day.\n")
    settings = Settings(home=tmp_path / "solo", agents=(*AGENT_NAMES, "toy"),
                        agent_paths=(("toy", folder),))
    hit = reads.session_search(settings, "quokkas sleep")["results"][0]
    assert (hit["agent"], hit["session"], hit["messages"]) == ("toy", "t-1", 2)
    assert hit["resume"] == f"cd '{tmp_path / 'proj'}' && toy --resume t-1"
    with log.open("a") as fh:
        fh.write("> and wombats\n")
    assert reads.session_search(settings, "wombats")["results"][0]["messages"] == 3


GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ANTHROPIC = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBaQ"


def test_secrets_are_redacted_before_anything_is_stored(world):
    settings, work, report, src = world
    rollout = next(Path(settings.agent_path("codex")).rglob("rollout-2025-*.jsonl"))
    with rollout.open("a") as fh:
        for payload in ({"type": "message", "role": "user", "content": [
                            {"type": "input_text", "text": f"deploy with key {ANTHROPIC}"}]},
                        {"type": "function_call", "name": "shell", "arguments": json.dumps(
                            {"command": ["bash", "-lc", f"GITHUB_TOKEN={GITHUB} gh pr list"]})}):
            fh.write(json.dumps({"timestamp": "2025-12-18T10:03:00Z", "type": "response_item",
                                 "payload": payload}) + "\n")
    sync_sessions(settings)
    wal = Path(f"{settings.sessions_db}-wal")
    raw = settings.sessions_db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert ANTHROPIC.encode() not in raw and GITHUB.encode() not in raw
    hit = reads.session_search(settings, "deploy with key")["results"][0]
    assert "[REDACTED]" in hit["snippet"]


def test_a_grown_aider_history_joins_its_run(world):
    settings, work, report, src = world
    history = work / "checkouts" / "pong" / ".aider.chat.history.md"
    before = {k for k, v in stored(settings, "aider").items() if v["cwd"].endswith("/pong")}
    with history.open("a") as fh:
        fh.write("#### make the ball faster after each bounce  \n\nSure, multiply the speed.\n")
    again = sync_sessions(settings)
    assert again["grown"] == 1 and again["entries"] == 2
    hit = reads.session_search(settings, "ball faster bounce")["results"][0]
    assert hit["session"] in before  # the same run: its header is before the offset
    with history.open("a") as fh:
        fh.write("\n# aider chat started at 2024-05-02 09:00:00\n\n#### now add sound effects\n")
    sync_sessions(settings)
    hit = reads.session_search(settings, "sound effects")["results"][0]
    assert hit["session"] not in before and hit["first"] == "2024-05-02T09:00:00"
