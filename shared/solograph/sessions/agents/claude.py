"""Claude Code: `~/.claude/projects/<encoded cwd>/<session>.jsonl` (CLAUDE_PROJECTS_PATH), its
Task sub-agents under `<session>/subagents/agent-<id>.jsonl` (older: `agent-<id>.jsonl` beside
it). JSONL, one record per line, discriminated by `type` (records.py says which are kept).

Its disk check and sync are the index's own (sessions/sync.py, sessions/folders.py: a folder
cache measured on 10,000 transcripts); `records` is what ingest reads each file through.
Resume: `claude --resume <id>` from the folder the session started in (Claude Code finds a
session from there; `claude --help`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings
    from solograph.sessions.agents import Unit

NAME = "claude"
TITLE = "Claude Code"
RESUME = "claude --resume {id}"
APPENDABLE = True


def location(settings: Settings) -> Path | None:
    return settings.claude_projects if NAME in settings.agents else None


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    from solograph.sessions.agents import Unit

    for rel, entry, kind in walk(location, denied):
        st = entry.stat()
        yield Unit(rel, entry.path, kind, st.st_size, st.st_mtime_ns, st.st_ino)


def records(unit: Unit | None, fh: BinaryIO, offset: int) -> Iterator[tuple[int, object, str]]:
    from solograph.sessions.records import TOO_LONG, parse, read_line, wanted, whole_lines

    for end, line in whole_lines(fh, offset):
        if line == TOO_LONG:
            yield end, None, "too_long"
            continue
        if not wanted(line):  # bookkeeping and tool results: most lines, never decoded
            yield end, None, ""
            continue
        obj, problem = read_line(line)
        yield end, (parse(obj) if obj is not None else None), problem


def walk(root: Path, denied: list[str]) -> Iterator[tuple[str, os.DirEntry, str]]:
    """(path relative to `root`, its directory entry, main or subagent) of every transcript."""
    from solograph.sessions.agents import listing

    for project in listing(str(root), denied, ""):
        if not project.is_dir():
            continue
        for entry in listing(project.path, denied, project.name):
            name = entry.name
            if name.endswith(".jsonl") and entry.is_file():
                yield (f"{project.name}/{name}", entry,
                       "subagent" if name.startswith("agent-") else "main")
            elif entry.is_dir():
                rel = f"{project.name}/{name}/subagents"
                for agent in listing(os.path.join(entry.path, "subagents"), denied, rel):
                    if agent.name.endswith(".jsonl") and agent.is_file():
                        yield f"{rel}/{agent.name}", agent, "subagent"
