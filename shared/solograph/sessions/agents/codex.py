"""OpenAI Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (CODEX_HOME,
default `~/.codex`), and `$CODEX_HOME/archived_sessions/` for the ones `codex` archived.

The specification is Codex's own code, openai/codex:
- `codex-rs/protocol/src/protocol.rs`: each line is a `RolloutLine` `{timestamp, type,
  payload}`, `type` one of `session_meta` (id, cwd, and for a sub-agent `source.subagent`
  with its `parent_thread_id`), `response_item` (a `ResponseItem`: `message` with `role` and
  `input_text`/`output_text` content, `reasoning`, `function_call`, `custom_tool_call`,
  `local_shell_call`, `web_search_call`, their outputs, ...), `event_msg` (an `EventMsg`),
  `turn_context` (the turn's cwd), `compacted`;
- `codex-rs/core/src/rollout/policy.rs`: which of them a rollout persists. A typed prompt is
  written twice, as a `response_item` message of role user and as an `event_msg`
  `user_message`; a reply likewise (`agent_message`). The response items are the
  conversation here; the events are echoes, read only to drop the second copy of a prompt;
- the user messages Codex writes itself (its AGENTS.md, `<environment_context>`,
  `<user_instructions>`, ...) are `response_item` messages of role user: dropped, as are
  `developer` messages;
- reasoning is mostly `encrypted_content`: only a plain `summary` is kept.
Resume: `codex resume <SESSION_ID>` (`codex-rs/cli/src/main.rs`, the `resume` subcommand).
A record type this list does not know is counted (`unknown_type`) and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import json_lines, message, text, title, tool

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings
    from solograph.sessions.records import Record

NAME = "codex"
TITLE = "Codex CLI"
RESUME = "codex resume {id}"
APPENDABLE = True
FOLDERS = ("sessions", "archived_sessions")
KNOWN = frozenset(("session_meta", "response_item", "event_msg", "turn_context", "compacted",
                   "world_state", "inter_agent_communication_metadata"))
# What Codex writes into the user's turn itself: never something the user typed.
_INJECTED = re.compile(r"\s*(?:<(?:environment_context|user_instructions|INSTRUCTIONS|"
                       r"user_shell_command|turn_aborted|subagent_notification|"
                       r"collaboration_mode|permissions instructions|skill)[ >]|"
                       r"# AGENTS\.md instructions|<image)")


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    for top in FOLDERS:
        yield from _rollouts(str(location / top), top, denied)


def _rollouts(path: str, rel: str, denied: list[str]) -> Iterator[Unit]:
    for entry in listing(path, denied, rel):
        sub = f"{rel}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            yield from _rollouts(entry.path, sub, denied)
        elif entry.name.startswith("rollout-") and entry.name.endswith(".jsonl"):
            unit = file_unit(f"{NAME}:{sub}", entry.path, "main")
            if unit is not None:
                yield unit


class _State:
    def __init__(self) -> None:
        self.session_id = ""
        self.cwd = ""
        self.sidechain = False
        self.echo = ""  # the last prompt seen, as an event or as a message: its twin is dropped


def records(unit: Unit | None, fh: BinaryIO, offset: int) -> Iterator[tuple[int, object, str]]:
    state = _State()
    for end, obj, problem in json_lines(fh, offset):
        if obj is None:
            yield end, None, problem
            continue
        kind = text(obj.get("type"))
        if kind not in KNOWN:
            yield end, None, "unknown_type"
            continue
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            yield end, None, problem or "not_an_object"
            continue
        at = text(obj.get("timestamp"))
        yield end, _record(state, kind, payload, at), problem


def _record(state: _State, kind: str, payload: dict, at: str) -> Record | None:
    if kind == "session_meta":
        source = payload.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        parent = text(payload.get("parent_thread_id")) or (
            text(sub.get("thread_spawn", {}).get("parent_thread_id"))
            if isinstance(sub, dict) and isinstance(sub.get("thread_spawn"), dict) else "")
        if not state.session_id:  # a resumed or forked rollout repeats others' metas after
            state.session_id = parent or text(payload.get("id"))
            state.sidechain = bool(parent)
        state.cwd = state.cwd or text(payload.get("cwd"))
        return None
    if kind == "turn_context":
        state.cwd = text(payload.get("cwd")) or state.cwd
        return None
    if kind == "event_msg":
        if payload.get("type") == "user_message":
            said = text(payload.get("message")).strip()
            if said and said == state.echo:
                state.echo = ""
                return None
            state.echo = said
            return _message(state, "user", said, at)
        if payload.get("type") == "thread_name_updated":
            return title("custom-title", text(payload.get("thread_name")), state.session_id)
        return None
    if kind != "response_item":
        return None
    item = payload.get("type")
    if item == "message":
        role = payload.get("role")
        said = _content(payload.get("content"))
        if role == "user":
            if not said or _INJECTED.match(said):
                return None
            if said.strip() == state.echo:  # the event said it first
                state.echo = ""
                return None
            state.echo = said.strip()
            return _message(state, "user", said, at)
        if role == "assistant":
            return _message(state, "assistant", said, at)
        return None  # developer and system messages are Codex's instructions
    if item == "reasoning":
        summary = payload.get("summary")
        parts = [text(s.get("text")) for s in summary if isinstance(s, dict)] \
            if isinstance(summary, list) else []
        return _message(state, "assistant", "\n".join(p for p in parts if p), at)
    if item in ("function_call", "custom_tool_call"):
        args = payload.get("arguments") if item == "function_call" else payload.get("input")
        return _message(state, "assistant", "", at, [tool(payload.get("name"), args)])
    if item == "local_shell_call":
        action = payload.get("action")
        return _message(state, "assistant", "", at, [tool(
            "shell", {"command": action.get("command")} if isinstance(action, dict) else {})])
    if item == "web_search_call":
        action = payload.get("action")
        return _message(state, "assistant", "", at, [tool(
            "web_search", {"query": action.get("query")} if isinstance(action, dict) else {})])
    return None  # outputs, snapshots, compaction markers: nothing the conversation said


def _content(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(text(b.get("text")) for b in content
                     if isinstance(b, dict) and b.get("type") in ("input_text", "output_text",
                                                                  "text"))


def _message(state: _State, role: str, said: str, at: str,
             tools: list | None = None) -> Record | None:
    return message(role, said, session_id=state.session_id, cwd=state.cwd, at=at, tools=tools,
                   sidechain=state.sidechain)
