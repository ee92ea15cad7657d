"""What every reader of another agent's files shares: JSONL lines from an offset, records made
with their text redacted before it is cut, tool calls reduced to their key arguments.

The parser, JSON and redaction modules are imported by the functions that use them: a sync
that finds nothing changed imports none of them (tests/unit/cli/test_startup_imports.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import BinaryIO

    from solograph.sessions.records import Record

Line = tuple[int, object, str]  # (end offset, record or None, problem)
_ISO = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
_ABSOLUTE = re.compile(r"/|[A-Za-z]:[\\/]")


def json_lines(fh: BinaryIO, offset: int) -> Iterator[tuple[int, dict | None, str]]:
    """(end offset, the JSON object or None, problem) for every whole line from `offset`;
    blank lines are skipped, a half-written last line waits for the next read."""
    from solograph.sessions.records import read_line, whole_lines

    for end, line in whole_lines(fh, offset):
        if not line:
            yield end, None, "too_long"
            continue
        if not line.strip():
            yield end, None, ""
            continue
        obj, problem = read_line(line)
        yield end, obj, problem


def text(value: object) -> str:
    """A field's text, or "" when it is not a string (lone surrogates made U+FFFD)."""
    from solograph import bounded_json

    return bounded_json.text(value) if isinstance(value, str) else ""


def clean(raw: str) -> str:
    """Redacted first, then cut: a secret is never half kept by the cut."""
    from solograph import bounded_json
    from solograph.sessions.records import MAX_TEXT
    from solograph.text.secrets import redact_cut

    return bounded_json.text(redact_cut(raw.strip(), MAX_TEXT))


def tool(name: object, args: object) -> tuple[str, dict[str, str]]:
    """A tool call as the index keeps it: its name and its key arguments (records.KEY_ARGS),
    redacted and cut. Arguments given as a JSON string are decoded first."""
    from solograph import bounded_json
    from solograph.sessions.records import key_args

    if isinstance(args, str):
        try:
            decoded, _ = bounded_json.loads(args, whole=False)
        except ValueError:
            decoded = {"input": args[:2000]}
        args = decoded if isinstance(decoded, dict) else {"input": args[:2000]}
    label = text(name) or "tool"
    return label, key_args(label, args)


def message(role: str, raw: str, *, uuid: str = "", session_id: str = "", cwd: str = "",
            at: str = "", tools: list | None = None, sidechain: bool = False,
            kind: str = "") -> Record | None:
    """A conversation record, or None when it holds neither words nor a tool call."""
    from solograph.sessions.records import Record

    body = clean(raw) if raw else ""
    tools = tools or []
    if not body and not tools:
        return None
    # A time that is not one, or a folder that is no absolute path, is not kept: it would
    # sort as the newest message, or be judged as a folder of this machine.
    at = at if _ISO.match(at) else ""
    cwd = cwd if _ABSOLUTE.match(cwd) else ""
    return Record(role, uuid=uuid, session_id=session_id, cwd=cwd, at=at,
                  kind=kind or ("prompt" if role == "user" else "reply"), text=body,
                  tools=tools, sidechain=sidechain)


def title(kind: str, raw: str, session_id: str = "") -> Record | None:
    """A title record: `custom-title` (the user named it) or `ai-title` (the agent did)."""
    from solograph.sessions.records import Record

    value = text(raw).strip()
    return Record(kind, session_id=session_id, title=value[:500]) if value else None


def iso_ms(value: object) -> str:
    """Epoch milliseconds as ISO-8601 UTC (OpenCode's times); "" when not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return ""
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(value / 1000, UTC).isoformat(timespec="milliseconds") \
            .replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return ""


def load_json(path: str, max_bytes: int = 64 << 20) -> tuple[object, str]:
    """(the decoded file or None, problem): a whole JSON file read at most `max_bytes`."""
    from solograph import bounded_json

    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None, "too_long"
    try:
        obj, cut = bounded_json.loads(data, whole=False)
    except ValueError:
        try:
            obj, cut = bounded_json.loads(data.decode("utf-8", "replace"), whole=False)
        except ValueError:
            return None, "not_json"
        return obj, "invalid_utf8"
    return obj, "too_deep" if cut else ""


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
