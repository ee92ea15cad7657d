"""Claude Code transcript lines, read from a byte offset and parsed into records.

A transcript is JSONL, one record per line, discriminated by `type`. Only `user` and
`assistant` records hold conversation; `summary`, `custom-title` and `ai-title` hold titles;
everything else (progress, file-history-snapshot, queue-operation, system, attachment, ...) is
bookkeeping and is skipped, most of it without being decoded. Lines that are not JSON objects,
or not valid UTF-8, are counted and skipped: a transcript is written by another program while
we read it, and a parser that crashes on one line loses the whole session.

What a conversation record contributes:
- a typed prompt (user, `message.content` a string or text blocks), with the lines Claude Code
  writes itself told apart: `isMeta` caveats and skill bodies are dropped, `[Request
  interrupted by user…]` is dropped, `<command-name>` wrappers keep only the command and its
  arguments, `<local-command-stdout>` output is dropped, `isCompactSummary` is kept as
  `compact` and `<task-notification>`s as `notice` (neither is the user's words), as are the
  instruction and the summary of the sub-agent that compacts a conversation;
- an assistant reply: its text and thinking, and for each tool call the tool's name and its key
  arguments (paths, commands, patterns, URLs, queries), never the bulk it wrote;
- a tool result: only the id it answers (for pairing), never its content.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from solograph import bounded_json
from solograph.sessions.entries import without_images
from solograph.text.secrets import redact_cut

MAX_TEXT = 100_000  # characters kept of one record's text (a pasted log can be megabytes)
MAX_ARG = 2_000  # characters kept of one tool argument
# Bytes of one line read at most. A longer line (a pasted dump, a runaway writer) is skipped
# as `too_long` without ever being held in memory whole: 64 MB is ten times the largest
# record Claude Code writes (an image pasted as base64).
MAX_LINE = 64 << 20
TOO_LONG = b""  # what whole_lines yields for such a line: a real line always ends in \n

# Arguments that say what a tool call was about; anything else (file contents, old/new
# strings of an edit, timeouts, flags) is bulk or noise.
KEY_ARGS = ("file_path", "path", "notebook_path", "command", "description", "pattern", "glob",
            "url", "query", "prompt", "skill", "args", "subagent_type", "plan", "task_id",
            "name", "title", "subject")
# Tools whose every short string argument is its content (MCP servers: journal notes, ...).
_MCP_PREFIX = "mcp__"

# Compact JSON as Claude Code writes it; spaced JSON (other writers) is always decoded.
_WANTED = re.compile(rb'"type":"(?:user|assistant|summary|custom-title|ai-title)"|"type": ')
# A user line answering a tool call, as Claude Code writes it: its content opens with a
# tool_result block. Such lines are half of a transcript's bytes and hold nothing indexed.
_TOOL_RESULT = re.compile(
    rb'"role":"user","content":\[\{"(?:tool_use_id":"[^"\\]*","type|type)":"tool_result"')
_HEAD = 2048  # bytes of a line where the message begins, after the envelope fields
# The `agentId` of the sub-agent Claude Code runs to compact a conversation
# (`subagents/agent-acompact-<id>.jsonl`, seen in 2.1.39 transcripts).
COMPACTING = "acompact"

_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
# Wrappers Claude Code writes into the user's turn; none of them is something the user typed.
_MACHINE_TAGS = ("local-command-stdout", "local-command-stderr", "local-command-caveat",
                 "bash-stdout", "bash-stderr", "system-reminder", "user-prompt-submit-hook")
_NOTICE_TAGS = ("task-notification", "bash-input", "command-message")
_LEADING_TAG = re.compile(r"\s*<([a-z][a-z0-9-]*)>")
INTERRUPTED = "[Request interrupted by user"
# Where a pasted image was: Claude Code's placeholder, not words anyone will search for.


@dataclass(slots=True)
class Record:
    """One parsed line. `type` is the record's own type; `kind` (user/assistant only) says what
    its text is: prompt, command, notice, compact or reply, or "" when it holds nothing to
    index (a tool result, a meta line, an interruption)."""

    type: str
    uuid: str = ""
    session_id: str = ""
    cwd: str = ""
    at: str = ""
    kind: str = ""
    text: str = ""
    tools: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    sidechain: bool = False
    title: str = ""  # summary / customTitle / aiTitle
    leaf_uuid: str = ""
    tool_uses: list[str] = field(default_factory=list)
    tool_results: list[str] = field(default_factory=list)


def whole_lines(fh: BinaryIO, offset: int, *,
                max_line: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(offset just past the line, line) for every complete line from `offset` on; TOO_LONG
    in place of a line longer than `max_line` bytes.

    A last line without its newline is being written: it is not yielded, and the caller's
    offset stays before it, so the next read picks it up whole. Memory is one line (at most
    `max_line` bytes) at a time.
    """
    max_line = MAX_LINE if max_line is None else max_line
    fh.seek(offset)
    while True:
        line = fh.readline(max_line + 1)
        if not line.endswith(b"\n"):
            if len(line) <= max_line:
                return  # the end, or a last line still being written
            size = len(line)
            while not line.endswith(b"\n"):  # the rest of the long line, piece by piece
                line = fh.readline(max_line)
                if not line:
                    return
                size += len(line)
            offset += size
            yield offset, TOO_LONG
            continue
        offset += len(line)
        yield offset, line


def wanted(line: bytes) -> bool:
    """Whether a line may hold something the index keeps; False only for lines that certainly
    do not, which are most of them: progress and bookkeeping lines, and tool results. A text
    block anywhere in a line (which would show as `"type":"text"` outside a JSON string) keeps
    it, so a tool result never hides a prompt written beside it."""
    if _WANTED.search(line) is None:
        return False
    return _TOOL_RESULT.search(line, 0, _HEAD) is None or b'"type":"text"' in line


def decode(line: bytes) -> dict | None:
    """The JSON object on a line, or None when it is not one (bad JSON, a bare value, a
    half-decodable line)."""
    return read_line(line)[0]


def read_line(line: bytes) -> tuple[dict | None, str]:
    """(the JSON object on a line or None, what was wrong with it or ""). None comes with
    `not_json` or `not_an_object`; an object can come with `invalid_utf8` (bad bytes replaced)
    or `too_deep` (values nested past bounded_json.MAX_DEPTH replaced by null)."""
    problem = ""
    try:  # lone surrogates are cleaned in the fields kept (_str, _flatten), not in the line
        obj, cut = bounded_json.loads(line, whole=False)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError alike
        try:
            obj, cut = bounded_json.loads(line.decode("utf-8", "replace"), whole=False)
        except ValueError:
            return None, "not_json"
        problem = "invalid_utf8"
    if not isinstance(obj, dict):
        return None, "not_an_object"
    return obj, "too_deep" if cut else problem


def parse(obj: dict) -> Record | None:
    """The record a decoded line holds, or None for a type the index does not keep."""
    kind = obj.get("type")
    if kind in ("user", "assistant"):
        return _conversation(obj, kind)
    if kind == "summary":
        return Record("summary", title=_str(obj.get("summary")),
                      leaf_uuid=_str(obj.get("leafUuid")))
    if kind == "custom-title":
        return Record("custom-title", session_id=_str(obj.get("sessionId")),
                      title=_str(obj.get("customTitle")))
    if kind == "ai-title":
        return Record("ai-title", session_id=_str(obj.get("sessionId")),
                      title=_str(obj.get("aiTitle")))
    return None


def _str(value: object) -> str:
    """A field's text; a lone surrogate (an unpaired `\\ud83d` escape) would be refused by
    the store, so it becomes U+FFFD."""
    return bounded_json.text(value) if isinstance(value, str) else ""


def _conversation(obj: dict, role: str) -> Record:
    rec = Record(role, uuid=_str(obj.get("uuid")), session_id=_str(obj.get("sessionId")),
                 cwd=_str(obj.get("cwd")), at=_str(obj.get("timestamp")),
                 sidechain=obj.get("isSidechain") is True)
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if role == "assistant":
        _reply(rec, content)
    else:
        _user(rec, content, meta=obj.get("isMeta") is True,
              compact=obj.get("isCompactSummary") is True)
    if rec.kind and _str(obj.get("agentId")).startswith(COMPACTING):
        # The sub-agent that writes a compaction summary: its prompt is Claude Code's
        # instruction, its reply the summary the main transcript then holds as `compact`.
        rec.kind = "compact" if rec.kind == "reply" else "notice"
    rec.text = bounded_json.text(redact_cut(rec.text, MAX_TEXT))  # redacted, then cut
    return rec


def _user(rec: Record, content: object, *, meta: bool, compact: bool) -> None:
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                texts.append(_str(block.get("text")))
            elif block.get("type") == "tool_result":
                rec.tool_results.append(_str(block.get("tool_use_id")))
    if meta:
        return
    kinds_texts = [classify(t) for t in texts]
    kept = [(k, t) for k, t in kinds_texts if k]
    if not kept:
        return
    if compact:
        rec.kind = "compact"
    else:
        order = ("prompt", "command", "notice")
        rec.kind = min((k for k, _ in kept), key=order.index)
    rec.text = "\n\n".join(t for _, t in kept)


def classify(text: str) -> tuple[str, str]:
    """(kind, text to keep) of one piece of user text; kind "" means drop it."""
    stripped = text.strip()
    if not stripped or stripped.startswith(INTERRUPTED):
        return "", ""
    if "<command-name>" in stripped:
        name = _COMMAND_NAME.search(stripped)
        args = _COMMAND_ARGS.search(stripped)
        kept = " ".join(m.group(1).strip() for m in (name, args) if m and m.group(1).strip())
        return ("command", kept) if kept else ("", "")
    tag = _LEADING_TAG.match(stripped)
    if tag:
        if tag.group(1) in _MACHINE_TAGS:
            return "", ""
        if tag.group(1) in _NOTICE_TAGS:
            return "notice", stripped
    if "[Image #" in stripped:
        stripped = without_images(stripped)
        if not stripped:
            return "", ""
    return "prompt", stripped


def _reply(rec: Record, content: object) -> None:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(_str(block.get("text")))
        elif kind == "thinking":
            texts.append(_str(block.get("thinking")))
        elif kind == "tool_use":
            name = _str(block.get("name")) or "tool"
            rec.tool_uses.append(_str(block.get("id")))
            rec.tools.append((name, key_args(name, block.get("input"))))
    rec.text = "\n\n".join(t.strip() for t in texts if t.strip())
    if rec.text or rec.tools:
        rec.kind = "reply"


def key_args(name: str, raw: object) -> dict[str, str]:
    """The arguments of a tool call worth searching, as strings, each redacted and cut to
    MAX_ARG."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, str] = {}
    for key, value in raw.items():
        if key in KEY_ARGS or name.startswith(_MCP_PREFIX):
            text = _flatten(value)
        elif key == "todos":  # TodoWrite: the plan, in the agent's words
            text = _flatten([t.get("content") for t in value if isinstance(t, dict)]
                            if isinstance(value, list) else "")
        elif key == "questions":  # AskUserQuestion
            text = _flatten([q.get("question") for q in value if isinstance(q, dict)]
                            if isinstance(value, list) else "")
        else:
            continue
        if text:
            out[bounded_json.text(key)] = redact_cut(text, MAX_ARG)
    return out


def _flatten(value: object) -> str:
    if isinstance(value, str):
        return bounded_json.text(value.strip())
    if isinstance(value, list):
        return "\n".join(s for s in (_flatten(v) for v in value) if s)
    return ""
