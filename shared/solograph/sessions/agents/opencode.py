"""OpenCode: `$XDG_DATA_HOME/opencode/` (default `~/.local/share/opencode`), in either of its
two stores:

- the file storage (before 1.2): `storage/session/<project id>/<session id>.json`,
  `storage/message/<session id>/<message id>.json`, and the message's parts in
  `storage/part/<message id>/<part id>.json` (older: flat `storage/part/<part id>.json`
  naming their `messageID`);
- since 1.2 one SQLite file, `opencode.db`, tables `session` (id, parent_id, directory, title,
  time_created, time_updated), `message` (id, session_id, time_created, time_updated, data)
  and `part` (id, message_id, session_id, time_created, time_updated, data), `data` the JSON
  of the record without its ids.

The specification is OpenCode's own code, sst/opencode (anomalyco/opencode)
`packages/opencode/src/session/session.sql.ts` (the tables), `packages/opencode/src/session/
message-v2.ts` (a message `{id, sessionID, role, time, path: {cwd}}`, a part `{type: text |
reasoning | tool | file | step-start | step-finish | patch | snapshot | agent | subtask ...}`;
a text part marked `synthetic` is OpenCode's own, not what was said) and
`packages/opencode/src/storage/storage.ts` (the file layout). One message is spread over many
parts: they are read in the order of their ids (OpenCode's ids grow with time), and joined.
A session whose `parentID` names another is a sub-agent's (the `task` tool): it joins its
parent.

Both stores are rewritten in place, so a session is read again whole whenever its signature
moved: for the files, the session file and its message folder (OpenCode touches the session's
`time.updated` on every message); for SQLite, the newest `time_updated` and the number of its
message and part rows. The database belongs to OpenCode, which may be writing it: it is opened
read-only by URI (`mode=ro`, never `immutable=1`, which would not see rows still in its
`-wal` file), nothing is ever written to it, and each read is one short query on a connection
closed at once, so no lock of ours outlives it. A part type this list does not know is counted
(`unknown_type`) and skipped. Resume: `opencode --session <id>` (`opencode --help`: `-s`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import iso_ms, load_json, message, text, title, tool

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO

    from solograph.config import Settings

NAME = "opencode"
TITLE = "OpenCode"
RESUME = "opencode --session {id}"
APPENDABLE = False
DB = "opencode.db"
_SAID = ("text", "reasoning")
_QUIET = ("file", "step-start", "step-finish", "patch", "snapshot", "agent", "subtask",
          "retry", "compaction")
MAX_ROWS = 200_000  # rows of one session read at most


def location(settings: Settings) -> Path | None:
    return settings.agent_path(NAME)


def units(location: Path, denied: list[str]) -> Iterator[Unit]:
    yield from _file_units(location, denied)
    if os.path.isfile(location / DB):
        yield from _db_units(str(location / DB), denied)


# ------------------------------------------------------------------ the file storage


def _file_units(location: Path, denied: list[str]) -> Iterator[Unit]:
    store = location / "storage"
    for project in listing(str(store / "session"), denied, "storage/session"):
        if not project.is_dir(follow_symlinks=False):
            continue
        for entry in listing(project.path, denied, f"storage/session/{project.name}"):
            if not entry.name.endswith(".json"):
                continue
            unit = file_unit(f"{NAME}:storage/session/{project.name}/{entry.name}", entry.path,
                             "main")
            if unit is None:
                continue
            # The messages of the session sit in a folder named by its id, which is in the
            # file (and, in OpenCode's own layout, its name).
            sid = entry.name.removesuffix(".json")
            for name in (sid, sid.removeprefix("ses_")):
                try:
                    st = os.stat(store / "message" / name)
                except OSError:
                    continue
                unit.size += st.st_size
                unit.mtime_ns = max(unit.mtime_ns, st.st_mtime_ns)
                break
            yield unit


def _file_records(unit: Unit) -> Iterator[tuple[int, object, str]]:
    session, problem = load_json(unit.path)
    if not isinstance(session, dict):
        yield 0, None, problem or "not_an_object"
        return
    store = os.path.dirname(os.path.dirname(os.path.dirname(unit.path)))
    sid = text(session.get("id")) or os.path.basename(unit.path).removesuffix(".json")
    messages = []
    folder = os.path.join(store, "message", sid)
    for entry in listing(folder, [], ""):
        if entry.name.endswith(".json"):
            found, bad = load_json(entry.path)
            if isinstance(found, dict):
                messages.append(found)
            else:
                yield 0, None, bad or "not_an_object"
    parts = _legacy_parts(os.path.join(store, "part"))
    for msg in messages:
        mid = text(msg.get("id"))
        own = []
        for entry in listing(os.path.join(store, "part", mid), [], "") if mid else []:
            if entry.name.endswith(".json"):
                found, bad = load_json(entry.path)
                if isinstance(found, dict):
                    own.append(found)
                else:
                    yield 0, None, bad or "not_an_object"
        msg["_parts"] = own or parts.get(mid, [])
    yield from _session(session, messages)


_LEGACY: dict[str, tuple[int, dict[str, list[dict]]]] = {}


def _legacy_parts(folder: str) -> dict[str, list[dict]]:
    """Flat `part/<part id>.json` files by the message they name (kept while the folder's
    mtime holds: one listing for every session of the store)."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return {}
    kept = _LEGACY.get(folder)
    if kept and kept[0] == mtime:
        return kept[1]
    out: dict[str, list[dict]] = {}
    for entry in listing(folder, [], ""):
        if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
            found, _ = load_json(entry.path)
            if isinstance(found, dict) and text(found.get("messageID")):
                out.setdefault(found["messageID"], []).append(found)
    _LEGACY.clear()
    _LEGACY[folder] = (mtime, out)
    return out


# ------------------------------------------------------------------ opencode.db


def connect(path: str) -> sqlite3.Connection:
    """OpenCode's database, read-only: `mode=ro` still reads the `-wal` file (rows OpenCode
    committed and has not checkpointed); `immutable=1` would not."""
    from urllib.parse import quote

    conn = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=1.0)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _db_units(path: str, denied: list[str]) -> Iterator[Unit]:
    try:
        conn = connect(path)
    except sqlite3.Error:
        denied.append(DB)
        return
    try:
        rows = conn.execute(
            "SELECT s.id, s.time_updated, "
            "COALESCE((SELECT MAX(time_updated) FROM message m WHERE m.session_id = s.id), 0), "
            "COALESCE((SELECT MAX(time_updated) FROM part p WHERE p.session_id = s.id), 0), "
            "(SELECT COUNT(*) FROM message m WHERE m.session_id = s.id) + "
            "(SELECT COUNT(*) FROM part p WHERE p.session_id = s.id) "
            "FROM session s ORDER BY s.id LIMIT 100000").fetchall()
    except sqlite3.Error:  # busy past the timeout, or a schema we do not know: next sync
        denied.append(DB)
        return
    finally:
        conn.close()
    for sid, *times, count in rows:
        newest = max(t for t in times if isinstance(t, int | float)) if any(
            isinstance(t, int | float) for t in times) else 0
        yield Unit(f"{NAME}:{DB}/{sid}", path, "main", int(count or 0),
                   int(newest) * 1_000_000, 0)


def _db_records(unit: Unit) -> Iterator[tuple[int, object, str]]:
    import json

    sid = unit.key.rsplit("/", 1)[1]
    conn = connect(unit.path)
    try:
        row = conn.execute("SELECT id, parent_id, directory, title, time_created, "
                           "time_updated FROM session WHERE id = ?", (sid,)).fetchone()
        messages = conn.execute("SELECT id, time_created, data FROM message WHERE "
                                "session_id = ? ORDER BY time_created, id LIMIT ?",
                                (sid, MAX_ROWS)).fetchall()
        parts = conn.execute("SELECT message_id, id, data FROM part WHERE session_id = ? "
                             "ORDER BY message_id, id LIMIT ?", (sid, MAX_ROWS)).fetchall()
    finally:
        conn.close()
    if row is None:
        return
    session = {"id": row[0], "parentID": row[1], "directory": row[2], "title": row[3],
               "time": {"created": row[4], "updated": row[5]}}
    by_message: dict[str, list[dict]] = {}
    for mid, pid, data in parts:
        try:
            part = json.loads(data)
        except (TypeError, ValueError):
            yield 0, None, "not_json"
            continue
        if isinstance(part, dict):
            by_message.setdefault(mid, []).append({**part, "id": pid})
    msgs = []
    for mid, created, data in messages:
        try:
            msg = json.loads(data)
        except (TypeError, ValueError):
            yield 0, None, "not_json"
            continue
        if isinstance(msg, dict):
            msg.setdefault("time", {"created": created})
            msgs.append({**msg, "id": mid, "_parts": by_message.get(mid, [])})
    yield from _session(session, msgs)


# ------------------------------------------------------------------ both


def records(unit: Unit | None, fh: BinaryIO | None,
            offset: int) -> Iterator[tuple[int, object, str]]:
    if unit is None:
        return
    if unit.key.startswith(f"{NAME}:{DB}/"):
        yield from _db_records(unit)
    else:
        yield from _file_records(unit)


def _session(session: dict, messages: list[dict]) -> Iterator[tuple[int, object, str]]:
    own = text(session.get("id"))
    parent = text(session.get("parentID"))
    sid = parent or own
    cwd = text(session.get("directory"))
    named = title("ai-title", text(session.get("title")), sid)
    if named is not None and not parent:
        yield 0, named, ""
    messages.sort(key=lambda m: (_created(m), text(m.get("id"))))
    for msg in messages:
        role = msg.get("role")
        if role not in ("user", "assistant"):
            yield 0, None, "unknown_type"
            continue
        path = msg.get("path")
        here = text(path.get("cwd")) if isinstance(path, dict) else ""
        texts, tools = [], []
        for part in sorted(msg.get("_parts") or [], key=lambda p: text(p.get("id"))):
            kind = part.get("type")
            if kind in _SAID:
                if not part.get("synthetic"):
                    texts.append(text(part.get("text")))
            elif kind == "tool":
                state = part.get("state")
                tools.append(tool(part.get("tool"),
                                  state.get("input") if isinstance(state, dict) else {}))
            elif kind not in _QUIET:
                yield 0, None, "unknown_type"
        if role == "user" and not any(t.strip() for t in texts):
            # Older stores kept a prompt without parts, in the message's summary.
            summary = msg.get("summary")
            if isinstance(summary, dict):
                texts.append(text(summary.get("body")) or text(summary.get("title")))
        yield 0, message(role, "\n\n".join(t for t in texts if t.strip()),
                         uuid=f"{own}/{text(msg.get('id'))}", session_id=sid,
                         cwd=cwd or here, at=iso_ms(_created(msg)), tools=tools,
                         sidechain=bool(parent)), ""


def _created(msg: dict) -> int:
    time = msg.get("time")
    value = time.get("created") if isinstance(time, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
