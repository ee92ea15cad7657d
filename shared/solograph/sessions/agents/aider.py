"""aider: `.aider.chat.history.md` in the root of each checkout it ran in; the checkouts read
are the portfolio registry's (`solograph registry`), so nothing else of the disk is searched.

The specification is aider's own code, Aider-AI/aider `aider/io.py` (`InputOutput`:
`chat_history_file` defaults to `.aider.chat.history.md`; `user_input` writes what was typed
with each line prefixed `#### `; `tool_output` and `tool_error` write aider's own output as a
`> ` blockquote; `ai_output` writes the model's answer as plain markdown; every run starts
with `# aider chat started at <YYYY-MM-DD HH:MM:SS>`), and `aider/args.py`
(`--restore-chat-history`). One file holds many runs: each header starts a session, named by
the file and the header's time; its messages carry that time (aider writes no other) and the
checkout as their folder. The file only grows, so a grown one is read from its offset; a
block is taken whole, the last one once the file ends in a newline (aider appends each
answer in one write). aider's own `> ` output (commands, applied edits, commits) is not the
conversation and is left out.
Resume: aider has no session ids; `aider --restore-chat-history` in the checkout reloads the
history file.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Iterator

from solograph.sessions.agents import Unit, file_unit
from solograph.sessions.agents.common import message

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings

NAME = "aider"
TITLE = "aider"
RESUME = "aider --restore-chat-history"
APPENDABLE = True
HISTORY = ".aider.chat.history.md"
_HEADER = re.compile(rb"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
MAX_BLOCK = 4 << 20  # bytes of one block kept at most (a pasted dump)


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)  # the portfolio registry


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    try:
        conn = sqlite3.connect(f"file:{location}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = conn.execute("SELECT path FROM projects WHERE removed = 0 "
                                "ORDER BY path LIMIT 100000").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:  # no registry yet, or it is being migrated: nothing to read now
        return
    for (checkout,) in rows:
        path = os.path.join(checkout, HISTORY)
        unit = file_unit(f"{NAME}:{path}", path, "main")
        if unit is not None:
            yield unit


def session_of(path: str, started: str) -> str:
    digest = hashlib.blake2b(path.encode("utf-8", "surrogatepass"), digest_size=5).hexdigest()
    return f"aider-{digest}-{started.replace('-', '').replace(':', '').replace(' ', 'T')}"


class _Block:
    """The run being read (its header's time) and the block of one speaker being gathered."""

    def __init__(self, started: str) -> None:
        self.started = started
        self.kind = ""  # user | assistant | output, "" before the first line of a run
        self.size = 0  # bytes kept of the block, at most MAX_BLOCK
        self.lines: list[bytes] = []


def records(unit: Unit | None, fh: BinaryIO, offset: int) -> Iterator[tuple[int, object, str]]:
    if unit is None:
        return
    cwd = os.path.dirname(unit.path)
    state = _Block(_header_before(fh, offset))
    block = state.lines
    fh.seek(offset)
    pos = offset

    def flush(end: int) -> tuple[int, object, str]:
        kind, started = state.kind, state.started
        said = b"".join(block).decode("utf-8", "replace")
        block.clear()
        state.size = 0
        if kind == "user":
            said = "\n".join(line[5:] if line.startswith("#### ") else line.lstrip("#")
                             for line in said.splitlines())
        if kind not in ("user", "assistant") or not said.strip():
            return end, None, ""
        return end, message(kind, said, session_id=session_of(unit.path, started or "0"),
                            cwd=cwd, at=started.replace(" ", "T")), ""

    for line in iter(fh.readline, b""):
        if not line.endswith(b"\n"):
            break  # being written: read whole next time
        head = _HEADER.match(line)
        if head:
            if block:
                yield flush(pos)
            state.kind, state.started = "", head.group(1).decode()
        elif line.strip():
            kind = "user" if line.startswith(b"####") else \
                "output" if line.startswith(b">") else "assistant"
            if kind != state.kind:
                if block:
                    yield flush(pos)
                state.kind = kind
        if not head and state.kind and state.size < MAX_BLOCK:
            block.append(line)
            state.size += len(line)
        pos += len(line)
    if block:
        yield flush(pos)
    elif pos > offset:
        yield pos, None, ""


def _header_before(fh: BinaryIO, offset: int) -> str:
    """The time of the run that the bytes at `offset` belong to: the last header before it."""
    if offset <= 0:
        return ""
    fh.seek(0)
    found = ""
    read = 0
    for line in iter(fh.readline, b""):
        read += len(line)
        if read > offset:
            break
        head = _HEADER.match(line)
        if head:
            found = head.group(1).decode()
    return found
