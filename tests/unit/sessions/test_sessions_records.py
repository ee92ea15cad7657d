"""The transcript parser, on the real corpus (SCHEMA.md's counts are ground truth) and on the
lines Claude Code writes itself."""

from __future__ import annotations

import functools
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from solograph.sessions.entries import tool_text
from solograph.sessions.records import (
    classify,
    decode,
    key_args,
    parse,
    wanted,
    whole_lines,
)


def _lines(path: Path):
    with path.open("rb") as fh:
        yield from (line for _, line in whole_lines(fh, 0))


@pytest.fixture
def parsed(corpora):
    return _parse_corpus(corpora)


@functools.cache
def _parse_corpus(corpora: Path) -> dict:
    root = corpora / "transcripts" / "claude-projects"
    files = sorted(root.rglob("*.jsonl"))
    out = {"files": files, "lines": 0, "errors": 0, "types": Counter(), "uses": [],
           "results": [], "main_sessions": set(), "all_sessions": set(), "filtered_out": 0,
           "results_skipped": 0}
    for path in files:
        for line in _lines(path):
            out["lines"] += 1
            obj = decode(line)
            if obj is None:
                out["errors"] += 1
                continue
            out["types"][obj.get("type")] += 1
            rec = parse(obj)
            kept = rec is not None and (rec.kind or rec.type not in ("user", "assistant"))
            if kept and not wanted(line):
                out["filtered_out"] += 1
            if rec is not None and rec.tool_results and not rec.kind and not wanted(line):
                out["results_skipped"] += 1
            if rec is None or rec.type not in ("user", "assistant"):
                continue
            out["uses"] += rec.tool_uses
            out["results"] += rec.tool_results
            if rec.session_id:
                out["all_sessions"].add(rec.session_id)
                if "/subagents/" not in str(path):
                    out["main_sessions"].add(rec.session_id)
    return out


def test_corpus_files_lines_and_no_json_errors(parsed):
    assert len(parsed["files"]) == 25
    assert parsed["lines"] == 10_943
    assert parsed["errors"] == 0
    assert parsed["types"]["user"] + parsed["types"]["assistant"] == 3_756


def test_every_tool_use_is_paired_with_exactly_one_tool_result(parsed):
    assert len(parsed["uses"]) == 1_387
    results = Counter(parsed["results"])
    assert set(results) == set(parsed["uses"])
    assert set(results.values()) == {1}


def test_session_ids_come_from_the_records(parsed):
    main = [p for p in parsed["files"] if "/subagents/" not in str(p)]
    assert len(main) == 13
    assert len(parsed["main_sessions"]) == 12
    assert len(parsed["all_sessions"]) == 13
    assert "6c2214d7-b87e-4432-8e41-22ba294ea584" in parsed["all_sessions"] - parsed[
        "main_sessions"]


def test_the_fast_filter_never_drops_a_kept_record(parsed):
    assert parsed["filtered_out"] == 0
    assert parsed["results_skipped"] > 1_000  # most tool results are never decoded


def test_a_tool_result_beside_a_text_block_is_decoded():
    head = b'{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1",'
    only = head + b'"type":"tool_result","content":"x \\"type\\":\\"text\\""}]}}\n'
    both = head + b'"type":"tool_result","content":"x"},{"type":"text","text":"hi"}]}}\n'
    assert not wanted(only)
    assert wanted(both) and parse(decode(both)).text == "hi"


def test_synthetic_edge_cases_do_not_crash(corpora):
    path = corpora / "transcripts" / "synthetic" / "ccl__edge_cases.jsonl"
    bad = 0
    for line in _lines(path):
        obj = decode(line)
        if obj is None:
            bad += 1
        else:
            parse(obj)
    assert bad == 3


def test_bad_lines_invalid_utf8_and_half_lines():
    good = json.dumps({"type": "user", "uuid": "u1", "sessionId": "s",
                       "message": {"content": "caf\u00e9 ok"}}).encode() + b"\n"
    broken_utf8 = b'{"type": "user", "uuid": "u2", "message": {"content": "caf\xe9"}}\n'
    data = b"not json\n" + b"[1, 2]\n" + b"42\n" + good + broken_utf8 + b'{"type": "us'
    fh = io.BytesIO(data)
    seen = list(whole_lines(fh, 0))
    assert len(seen) == 5  # the half line at the end waits
    assert seen[-1][0] == len(data) - len(b'{"type": "us')
    objs = [decode(line) for _, line in seen]
    assert objs[:3] == [None, None, None]
    assert parse(objs[3]).text == "caf\u00e9 ok"
    assert parse(objs[4]).text == "caf\ufffd"  # undecodable bytes replaced, line kept
    assert list(whole_lines(io.BytesIO(data), seen[2][0]))[0][1] == good


@pytest.mark.parametrize(("text", "kind", "kept"), [
    ("fix the webhook retry", "prompt", "fix the webhook retry"),
    ("[Request interrupted by user]", "", ""),
    ("[Request interrupted by user for tool use]", "", ""),
    ("<command-message>compact</command-message>\n<command-name>/compact</command-name>\n"
     "<command-args>and continue</command-args>", "command", "/compact and continue"),
    ("<command-name>/mcp</command-name>\n<command-args></command-args>", "command", "/mcp"),
    ("<local-command-stdout>Reconnected</local-command-stdout>", "", ""),
    ("<task-notification>\n<task-id>b1</task-id></task-notification>", "notice",
     "<task-notification>\n<task-id>b1</task-id></task-notification>"),
    ("   ", "", ""),
])
def test_user_text_is_classified(text, kind, kept):
    assert classify(text) == (kind, kept)


def _user(content, **flags):
    return parse({"type": "user", "uuid": "u", "sessionId": "s", "cwd": "/w",
                  "timestamp": "t", "message": {"role": "user", "content": content}, **flags})


def test_meta_compact_and_tool_result_lines():
    assert _user("Caveat: generated", isMeta=True).kind == ""
    compact = _user("This session is being continued...", isCompactSummary=True)
    assert compact.kind == "compact"
    result = _user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "SECRET bulk"}])
    assert result.kind == "" and result.text == "" and result.tool_results == ["toolu_1"]


def test_assistant_text_thinking_and_tool_key_args():
    rec = parse({"type": "assistant", "uuid": "a", "sessionId": "s", "message": {"content": [
        {"type": "thinking", "thinking": "weigh the retry"},
        {"type": "text", "text": "Running tests."},
        {"type": "tool_use", "id": "toolu_9", "name": "Bash",
         "input": {"command": "pytest -k webhook", "timeout": 30000}},
        {"type": "tool_use", "id": "toolu_8", "name": "Edit",
         "input": {"file_path": "/w/app.py", "old_string": "BULK", "new_string": "BULK2"}},
    ]}})
    assert rec.kind == "reply" and rec.tool_uses == ["toolu_9", "toolu_8"]
    assert rec.text == "weigh the retry\n\nRunning tests."
    assert rec.tools == [("Bash", {"command": "pytest -k webhook"}),
                         ("Edit", {"file_path": "/w/app.py"})]
    assert "BULK" not in tool_text(rec.tools)


def test_key_args_of_todos_questions_and_mcp_tools():
    assert key_args("TodoWrite", {"todos": [{"content": "Add retry", "status": "x"}]}) == {
        "todos": "Add retry"}
    assert key_args("AskUserQuestion", {"questions": [{"question": "Which db?"}]}) == {
        "questions": "Which db?"}
    assert key_args("mcp__journal__process_thoughts", {"feelings": "calm", "n": 3}) == {
        "feelings": "calm"}
    assert key_args("Bash", "not a dict") == {}


def test_titles_records():
    assert parse({"type": "custom-title", "customTitle": "Mine", "sessionId": "s"}).title == "Mine"
    assert parse({"type": "ai-title", "aiTitle": "AI", "sessionId": "s"}).title == "AI"
    summary = parse({"type": "summary", "summary": "Old", "leafUuid": "l"})
    assert (summary.title, summary.leaf_uuid) == ("Old", "l")
    assert parse({"type": "progress"}) is None


def test_the_compacting_sub_agent_writes_a_notice_and_a_summary_not_a_conversation():
    """Claude Code compacts through a sub-agent (`agent-acompact-<id>.jsonl`): its prompt is
    Claude Code's instruction, its reply the summary; neither is the user's or the agent's
    conversation (the meaning lane embeds neither)."""
    envelope = {"sessionId": "s", "isSidechain": True, "agentId": "acompact-fffbd0"}
    asked = parse({**envelope, "type": "user", "uuid": "u", "message": {
        "role": "user", "content": "Your task is to create a detailed summary of the "
                                   "conversation so far"}})
    summary = parse({**envelope, "type": "assistant", "uuid": "a", "message": {
        "content": [{"type": "text", "text": "<analysis>The user asked for retries</analysis>"}]}})
    assert (asked.kind, summary.kind) == ("notice", "compact")
    assert "retries" in summary.text
    other = parse({**envelope, "agentId": "a1b2c3", "type": "user", "uuid": "v",
                   "message": {"role": "user", "content": "find the webhook handler"}})
    assert other.kind == "prompt"  # any other sub-agent's prompt is a prompt
