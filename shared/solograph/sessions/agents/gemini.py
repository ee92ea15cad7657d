"""Gemini CLI: `~/.gemini/tmp/<project>/chats/session-<time>-<id>.json` (older: one JSON object,
rewritten whole) and `.jsonl` (newer: a log), sub-agents under `chats/<parent id>/<id>.jsonl`
(GEMINI_CLI_HOME moves the home folder `~/.gemini` is in).

The specification is Gemini CLI's own code, google-gemini/gemini-cli
`packages/core/src/services/chatRecordingService.ts` (a `ConversationRecord`: `sessionId`,
`projectHash`, `startTime`, `lastUpdated`, `summary`, `messages`; a message `{id, timestamp,
type: user|gemini|info|error|warning, content, displayContent, thoughts, toolCalls}`), and
`packages/core/src/config/storage.ts` (the project's temp folder, and the projects registry
`~/.gemini/projects.json` that maps a working folder to its short name). The JSONL log is
replayed as the CLI replays it: the first line is the record's metadata; a line with an `id`
is a message, written again in full whenever it changes (the last copy wins, in its first
place); `{"$set": {...}}` updates the metadata (`$set.messages` replaces every message);
`{"$rewindTo": id}` removes that message and everything after it. So a file is read whole
whenever it changed, and what a rewind removed leaves the index too.

The working folder is the metadata's `directories` when it names one, else the folder the
projects registry maps to the project's name, else `.project_root` in the project's folder;
an old hash-named folder with none of them leaves it unknown. Message types other than the
ones above, and lines that are none of the three, are counted (`unknown_type`) and skipped.
Resume: `gemini --resume <session id>`, from the project's folder (`gemini --help`).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import (
    json_lines,
    load_json,
    message,
    text,
    title,
    tool,
)

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings
    from solograph.sessions.records import Record

NAME = "gemini"
TITLE = "Gemini CLI"
RESUME = "gemini --resume {id}"
APPENDABLE = False  # a log of upserts and rewinds: read again whole when it changed
_SAID = ("user", "gemini", "model")
_QUIET = ("info", "error", "warning")


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    for project in listing(str(location / "tmp"), denied, "tmp"):
        if not project.is_dir(follow_symlinks=False):
            continue
        rel = f"tmp/{project.name}/chats"
        for entry in listing(f"{project.path}/chats", denied, rel):
            if entry.is_dir(follow_symlinks=False):
                for sub in listing(entry.path, denied, f"{rel}/{entry.name}"):
                    if sub.name.endswith((".json", ".jsonl")):
                        unit = file_unit(f"{NAME}:{rel}/{entry.name}/{sub.name}", sub.path,
                                         "subagent")
                        if unit is not None:
                            yield unit
            elif entry.name.endswith((".json", ".jsonl")):
                unit = file_unit(f"{NAME}:{rel}/{entry.name}", entry.path, "main")
                if unit is not None:
                    yield unit


def records(unit: Unit | None, fh: BinaryIO | None,
            offset: int) -> Iterator[tuple[int, object, str]]:
    if unit is None:
        return
    if unit.path.endswith(".jsonl"):
        meta, messages, problems = yield from _replay(unit.path)
    else:
        whole, problem = load_json(unit.path)
        if not isinstance(whole, dict):
            yield 0, None, problem or "not_an_object"
            return
        if problem:  # read in part (bad bytes replaced, too deep values dropped)
            yield 0, None, problem
        meta = whole
        raw = whole.get("messages")
        messages = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
    parts = unit.key.split(":", 1)[1].split("/")
    parent = parts[3] if unit.kind == "subagent" and len(parts) > 4 else ""
    session_id = parent or text(meta.get("sessionId")) or \
        os.path.basename(unit.path).rsplit(".", 1)[0]
    cwd = _folder(unit, meta)
    summary = title("ai-title", text(meta.get("summary")), session_id)
    if summary is not None and not parent:
        yield 0, summary, ""
    for msg in messages:
        kind = msg.get("type")
        if kind in _QUIET:
            yield 0, None, ""
            continue
        if kind not in _SAID:
            yield 0, None, "unknown_type"
            continue
        yield 0, _message(msg, session_id, cwd, bool(parent)), ""


def _replay(path: str) -> Generator[tuple[int, None, str], None,
                                   tuple[dict, list[dict], int]]:
    """Fold the log; yields the problems of its lines as it goes, returns what it holds."""
    meta: dict = {}
    order: dict[str, dict] = {}  # id -> the message's last copy, in first-seen order
    with open(path, "rb") as fh:
        for _end, obj, problem in json_lines(fh, 0):
            if obj is None:
                yield 0, None, problem
                continue
            if problem:
                yield 0, None, problem
            if "$rewindTo" in obj:
                target = text(obj.get("$rewindTo"))
                ids = list(order)
                cut = ids.index(target) if target in order else 0
                for key in ids[cut:]:
                    del order[key]
            elif "$set" in obj:
                patch = obj.get("$set")
                if isinstance(patch, dict):
                    meta.update(patch)
                    if isinstance(patch.get("messages"), list):
                        order = {text(m.get("id")): m for m in patch["messages"]
                                 if isinstance(m, dict) and text(m.get("id"))}
            elif isinstance(obj.get("id"), str) and obj.get("id"):
                order[obj["id"]] = obj
            elif "sessionId" in obj or "startTime" in obj:
                meta.update(obj)
            else:
                yield 0, None, "unknown_type"
    return meta, list(order.values()), 0


def _message(msg: dict, session_id: str, cwd: str, sidechain: bool) -> Record | None:
    role = "user" if msg.get("type") == "user" else "assistant"
    at = text(msg.get("timestamp"))
    uuid = text(msg.get("id"))
    if role == "user":
        shown = msg.get("displayContent")
        said = _parts(shown if shown else msg.get("content"))
        return message("user", said, uuid=uuid, session_id=session_id, cwd=cwd, at=at,
                       sidechain=sidechain)
    pieces = [_parts(msg.get("content")), _parts(msg.get("parts"))]
    thoughts = msg.get("thoughts")
    for t in thoughts if isinstance(thoughts, list) else []:
        if isinstance(t, dict):
            pieces.append(" ".join(x for x in (text(t.get("subject")),
                                               text(t.get("description"))) if x))
    calls = msg.get("toolCalls")
    tools = [tool(c.get("name"), c.get("args")) for c in calls if isinstance(c, dict)] \
        if isinstance(calls, list) else []
    return message("assistant", "\n\n".join(p for p in pieces if p.strip()), uuid=uuid,
                   session_id=session_id, cwd=cwd, at=at, tools=tools, sidechain=sidechain)


def _parts(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text(p.get("text")) if isinstance(p, dict) else text(p)
                         for p in value)
    return ""


_REGISTRY: dict[str, tuple[float, dict[str, str]]] = {}


def _folder(unit: Unit, meta: dict) -> str:
    dirs = meta.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) and dirs[0].startswith("/"):
        return text(dirs[0])
    chats = os.path.dirname(unit.path) if unit.kind == "main" else \
        os.path.dirname(os.path.dirname(unit.path))
    project = os.path.dirname(chats)
    home = os.path.dirname(os.path.dirname(project))  # <home>/tmp/<project>
    mapped = _projects(os.path.join(home, "projects.json")).get(os.path.basename(project))
    if mapped:
        return mapped
    try:
        with open(os.path.join(project, ".project_root"), encoding="utf-8") as fh:
            root = fh.read(4096).strip()
        return root if root.startswith("/") else ""
    except (OSError, UnicodeDecodeError):
        return ""


def _projects(path: str) -> dict[str, str]:
    """The projects registry, short name -> working folder (kept while its mtime holds)."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return {}
    kept = _REGISTRY.get(path)
    if kept and kept[0] == mtime:
        return kept[1]
    found, _ = load_json(path, 8 << 20)
    projects = found.get("projects") if isinstance(found, dict) else None
    out = {v: k for k, v in projects.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(projects, dict) else {}
    _REGISTRY[path] = (mtime, out)
    return out
