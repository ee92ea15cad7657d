"""Cursor's agent (the editor's agent and `cursor-agent`): `~/.cursor/projects/<project>/
agent-transcripts/<chat id>.jsonl`, or `<chat id>/<chat id>.jsonl` with its sub-agents in
`<chat id>/subagents/<id>.jsonl` (SOLOGRAPH_CURSOR_PATH moves `~/.cursor`).

The specification is Cursor's documentation of the agent CLI (docs.cursor.com `cli/reference/
parameters`: `--resume [chatId]`) and the transcripts as the agent writes them: one JSON object
a line, `{role: user|assistant, message: {content: [blocks]}}`, blocks of `type` `text`,
`thinking` or `tool_use` (`name`, `input`; a user line of `tool_result` blocks only answers a
call and holds nothing kept), and bookkeeping lines with a `type` of their own
(`turn_ended`); the public transcript readers agree (jazzyalex/agent-sessions
`Resources/Fixtures/stage0/agents/cursor/`). A line that is neither is counted
(`unknown_type`) and skipped.

The records carry no time, no session id and no folder: the session is the chat id in the file
name, its time the file's mtime, its folder the project folder's name, which is the working
folder with `/` written as `-` (lossy: `my-app` and `my/app` look alike), so it is decoded by
looking for the folder that exists on this machine; a name no folder matches leaves the
session's folder unknown. A user prompt wrapped in `<user_query>` keeps what it wraps.
Resume: `cursor-agent --resume <chat id>`, from the folder it ran in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import iso_ms, json_lines, message, text, tool

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings

NAME = "cursor"
TITLE = "Cursor agent"
RESUME = "cursor-agent --resume {id}"
APPENDABLE = True
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)
_BOOKKEEPING = ("turn_ended", "turn_started", "summary")


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    for project in listing(str(location / "projects"), denied, "projects"):
        if not project.is_dir(follow_symlinks=False):
            continue
        rel = f"projects/{project.name}/agent-transcripts"
        for entry in listing(f"{project.path}/agent-transcripts", denied, rel):
            if entry.is_dir(follow_symlinks=False):
                main = file_unit(f"{NAME}:{rel}/{entry.name}/{entry.name}.jsonl",
                                 f"{entry.path}/{entry.name}.jsonl", "main")
                if main is not None:
                    yield main
                for sub in listing(f"{entry.path}/subagents", denied,
                                   f"{rel}/{entry.name}/subagents"):
                    if sub.name.endswith(".jsonl"):
                        unit = file_unit(f"{NAME}:{rel}/{entry.name}/subagents/{sub.name}",
                                         sub.path, "subagent")
                        if unit is not None:
                            yield unit
            elif entry.name.endswith(".jsonl"):
                unit = file_unit(f"{NAME}:{rel}/{entry.name}", entry.path, "main")
                if unit is not None:
                    yield unit


def where(unit: Unit) -> tuple[str, str, bool]:
    """(session id, working folder, sub-agent) of a unit, from its path."""
    parts = unit.key.split(":", 1)[1].split("/")
    project = parts[1] if len(parts) > 1 else ""
    tail = parts[3:]
    if len(tail) >= 3 and tail[1] == "subagents":
        return tail[0], decode(project), True
    return tail[-1].removesuffix(".jsonl") if tail else "", decode(project), False


def records(unit: Unit | None, fh: BinaryIO, offset: int) -> Iterator[tuple[int, object, str]]:
    session_id, cwd, sidechain = where(unit) if unit is not None else ("", "", False)
    at = iso_ms(unit.mtime_ns // 1_000_000) if unit is not None else ""
    for end, obj, problem in json_lines(fh, offset):
        if obj is None:
            yield end, None, problem
            continue
        role = obj.get("role")
        if role not in ("user", "assistant"):
            known = obj.get("type") in _BOOKKEEPING
            yield end, None, problem if known else "unknown_type"
            continue
        body = obj.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        texts, tools = [], []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                texts.append(text(block.get("text")))
            elif block.get("type") == "thinking":
                texts.append(text(block.get("thinking")))
            elif block.get("type") == "tool_use":
                tools.append(tool(block.get("name"), block.get("input")))
        said = "\n\n".join(t for t in texts if t.strip())
        if role == "user":
            query = _QUERY.search(said)
            said = query.group(1) if query else said
        yield end, message(role, said, session_id=session_id, cwd=cwd, at=at, tools=tools,
                           sidechain=sidechain), problem


_DECODED: dict[str, str] = {}


def decode(name: str) -> str:
    """The existing folder a project folder's name stands for, or "" (`Users-me-my-app` is
    /Users/me/my-app when that exists, else /Users/me/my/app when that does)."""
    if name in _DECODED:
        return _DECODED[name]
    pieces = [p for p in name.split("-")]
    found = ""
    if 0 < len(pieces) <= 40 and all(pieces):
        found = _walk("", pieces, 0, [0])
    if len(_DECODED) > 1000:
        _DECODED.clear()
    _DECODED[name] = found
    return found


def _walk(prefix: str, pieces: list[str], i: int, budget: list[int]) -> str:
    """Depth first: the next folder of the path is pieces[i:j] joined by `-` (or `.`)."""
    if i == len(pieces):
        return prefix
    for j in range(i + 1, len(pieces) + 1):
        for joiner in ("-", "."):
            budget[0] += 1
            if budget[0] > 2000:  # a pathological name: unknown rather than slow
                return ""
            candidate = f"{prefix}/{joiner.join(pieces[i:j])}"
            if os.path.isdir(candidate):
                found = _walk(candidate, pieces, j, budget)
                if found:
                    return found
            if j == i + 1:
                break  # one piece: both joiners give the same name
    return ""
