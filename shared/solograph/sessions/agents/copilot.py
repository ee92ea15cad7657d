"""GitHub Copilot CLI: `$COPILOT_HOME/session-state/<session id>/events.jsonl` (COPILOT_HOME,
default `~/.copilot`), and the older flat `session-state/<session id>.jsonl`.

The specification is GitHub's own documentation, docs.github.com "Copilot CLI configuration
directory" (github/docs `content/copilot/reference/copilot-cli-reference/
cli-config-dir-reference.md`: `session-state/` holds the session history; COPILOT_HOME moves
the folder, github/copilot-cli issue 1954), and the events the CLI writes, one JSON object a
line `{type, data, id, timestamp, parentId}`:
- `session.start` (`data.sessionId`, `data.context.cwd`), `session.resume` (a new cwd);
- `user.message` (`data.content`: what was typed; `transformedContent` is the same with the
  CLI's additions, not kept), `assistant.message` (`data.content`, `data.toolRequests` with
  each tool's `name` and `arguments`), `assistant.reasoning` (`data.content`);
- bookkeeping: `session.*`, `assistant.turn_*`, `tool.execution_*` (results, not kept),
  `hook.*`, `system.*` (the CLI's own prompt), `subagent.*`, `abort`.
A message of a sub-agent names its parent task (`parentToolCallId`, `parentAgentTaskId`): it
joins the session as a sub-agent's. Another family of `type` is counted (`unknown_type`).
Resume: `copilot --resume <session id>` (`copilot --help`).
"""

from __future__ import annotations

from collections.abc import Iterator

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import json_lines, message, text, tool

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings

NAME = "copilot"
TITLE = "Copilot CLI"
RESUME = "copilot --resume {id}"
APPENDABLE = True
_FAMILIES = ("session.", "user.", "assistant.", "tool.", "hook.", "system.", "subagent.",
             "skill.", "permission.", "abort")


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    root = location / "session-state"
    for entry in listing(str(root), denied, "session-state"):
        if entry.is_dir(follow_symlinks=False):
            unit = file_unit(f"{NAME}:session-state/{entry.name}/events.jsonl",
                             f"{entry.path}/events.jsonl", "main")
        elif entry.name.endswith(".jsonl"):
            unit = file_unit(f"{NAME}:session-state/{entry.name}", entry.path, "main")
        else:
            continue
        if unit is not None:
            yield unit


def records(unit: Unit | None, fh: BinaryIO, offset: int) -> Iterator[tuple[int, object, str]]:
    # The folder (or the flat file) is named by the session's id, which session.start repeats.
    parts = unit.key.split("/") if unit is not None else []
    session_id = (parts[1].removesuffix(".jsonl") if len(parts) > 1 else "")
    cwd = ""
    for end, obj, problem in json_lines(fh, offset):
        if obj is None:
            yield end, None, problem
            continue
        kind = text(obj.get("type"))
        data = obj.get("data")
        if not kind.startswith(_FAMILIES):
            yield end, None, "unknown_type"
            continue
        if not isinstance(data, dict):
            yield end, None, problem
            continue
        if kind in ("session.start", "session.resume"):
            session_id = text(data.get("sessionId")) or session_id
            context = data.get("context")
            if isinstance(context, dict):
                cwd = text(context.get("cwd")) or cwd
            yield end, None, problem
            continue
        at = text(obj.get("timestamp"))
        sidechain = bool(data.get("parentToolCallId") or data.get("parentAgentTaskId"))
        rec = None
        if kind == "user.message":
            rec = message("user", text(data.get("content")), session_id=session_id,
                          cwd=cwd, at=at, sidechain=sidechain)
        elif kind in ("assistant.message", "assistant.reasoning"):
            requests = data.get("toolRequests")
            tools = [tool(r.get("name"), r.get("arguments")) for r in requests
                     if isinstance(r, dict)] if isinstance(requests, list) else []
            rec = message("assistant", text(data.get("content")),
                          session_id=session_id, cwd=cwd, at=at, tools=tools,
                          sidechain=sidechain)
        yield end, rec, problem
