"""Bounded property tests of every agent's parser: whatever a file holds (records of the
agent's shapes with wrong types in them, junk lines, invalid UTF-8, half-written last lines),
the reader yields offsets that only grow and stay inside the file, records or None, and never
raises; a file read in two steps reads as it does in one."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph.sessions.agents import aider, codex, copilot, cursor, file_unit, gemini, opencode
from solograph.sessions.records import Record

BOUNDED = settings(max_examples=40, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
KEYS = ("type", "payload", "role", "message", "content", "data", "id", "text", "timestamp",
        "cwd", "sessionId", "session_id", "context", "toolRequests", "name", "arguments",
        "$set", "$rewindTo", "messages", "parts", "thoughts", "toolCalls", "input", "summary")
TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "message", "user",
         "assistant", "gemini", "user.message", "assistant.message", "session.start",
         "text", "tool_use", "function_call", "reasoning", "user_message", "input_text",
         "output_text", "tool", "hologram")
leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**13), st.sampled_from(TYPES),
                   st.text(max_size=30), st.sampled_from(("/home/dev/app", "/tmp/x", "")))
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)), max_leaves=25)
records_st = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)
lines = st.lists(st.one_of(records_st.map(lambda r: json.dumps(r).encode()),
                           st.binary(max_size=40).filter(lambda b: b"\n" not in b),
                           st.sampled_from((b"#### a prompt", b"> output", b"an answer",
                                            b"# aider chat started at 2024-05-01 10:00:00",
                                            b"\xff\xfe not utf-8", b"{\"type\":"))),
                 max_size=12)


def write(folder: Path, name: str, body: list[bytes], tail: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in body) + tail)
    return path


def consume(agent, key: str, path: Path, offset: int = 0) -> list[tuple[int, object, str]]:
    unit = file_unit(key, str(path), "main")
    size = path.stat().st_size
    out = []
    with open(path, "rb") as fh:
        last = offset
        for end, rec, problem in agent.records(unit, fh, offset):
            assert isinstance(problem, str)
            assert rec is None or isinstance(rec, Record)
            if rec is not None:
                assert rec.type in ("user", "assistant", "custom-title", "ai-title")
                assert isinstance(rec.text, str) and len(rec.text) <= 110_000
            if agent.APPENDABLE:
                assert last <= end <= size
                last = end
            out.append((end, rec, problem))
    return out


APPENDABLE = ((codex, "codex:sessions/rollout-x.jsonl"), (copilot, "copilot:session-state/s.jsonl"),
              (cursor, "cursor:projects/p/agent-transcripts/c.jsonl"),
              (aider, "aider:/x/.aider.chat.history.md"))


@BOUNDED
@given(body=lines, tail=st.binary(max_size=10).filter(lambda b: b"\n" not in b))
def test_appendable_readers_never_fail(body, tail):
    with tempfile.TemporaryDirectory() as tmp:
        for agent, key in APPENDABLE:
            consume(agent, key, write(Path(tmp), key.split(":")[0] + ".log", body, tail))


@BOUNDED
@given(body=lines, cut=st.integers(0, 12))
def test_a_file_read_in_two_steps_reads_as_in_one(body, cut):
    def said(found):
        return [(r.type, r.kind, r.text) for _, r, _ in found if r is not None]

    with tempfile.TemporaryDirectory() as tmp:
        for agent, key in APPENDABLE[1:]:  # Codex drops a prompt's twin across the cut
            path = write(Path(tmp), key.split(":")[0] + ".log", body, b"")
            whole = consume(agent, key, path)
            first = [x for x in whole if x[0] <= sum(len(b) + 1 for b in body[:cut])]
            offset = first[-1][0] if first else 0
            rest = consume(agent, key, path, offset)
            assert said([x for x in whole if x[0] <= offset]) + said(rest) == said(whole)


@BOUNDED
@given(body=lines, whole=records_st)
def test_gemini_logs_and_files_never_fail(body, whole):
    with tempfile.TemporaryDirectory() as tmp:
        chats = Path(tmp) / "tmp" / "p" / "chats"
        log = write(chats, "session-1.jsonl", body, b"")
        consume(gemini, "gemini:tmp/p/chats/session-1.jsonl", log)
        one = chats / "session-2.json"
        one.write_text(json.dumps({**whole, "messages": [whole, whole]}))
        consume(gemini, "gemini:tmp/p/chats/session-2.json", one)


@BOUNDED
@given(session=records_st, messages=st.lists(records_st, max_size=4),
       parts=st.lists(records_st, max_size=4))
def test_opencode_file_storage_never_fails(session, messages, parts):
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "storage"
        path = store / "session" / "proj" / "ses_1.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({**session, "id": "ses_1"}))
        for i, message in enumerate(messages):
            folder = store / "message" / "ses_1"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"msg_{i}.json").write_text(json.dumps({**message, "id": f"m{i}"}))
            for j, part in enumerate(parts):
                where = store / "part" / f"m{i}"
                where.mkdir(parents=True, exist_ok=True)
                (where / f"p{j}.json").write_text(json.dumps(part))
        consume(opencode, "opencode:storage/session/proj/ses_1.json", path)
