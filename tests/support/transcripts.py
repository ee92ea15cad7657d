"""Claude Code transcripts for tests: records shaped as Claude Code 2.1.x writes them.

    t = Transcripts(tmp_path / "projects")
    s = t.session("/home/dev/code/app")                # a main transcript in its folder
    s.prompt("fix the webhook retry")
    s.reply("Done.", tools=[("Bash", {"command": "pytest -k webhook"})])
    s.flush()                                          # write what was added (appends)
"""

from __future__ import annotations

import json
import re
import uuid as uuidlib
from pathlib import Path

_CLOCK = [0]


def _now() -> str:
    _CLOCK[0] += 1
    n = _CLOCK[0]
    return f"2026-03-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def encode(cwd: str) -> str:
    """Claude Code's folder name for a cwd (lossy: never decoded by the index)."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


class Session:
    def __init__(self, root: Path, cwd: str, session_id: str | None = None,
                 agent: str | None = None) -> None:
        self.id = session_id or str(uuidlib.uuid4())
        self.cwd = cwd
        self.agent = agent
        folder = root / encode(cwd)
        self.path = (folder / self.id / "subagents" / f"agent-{agent}.jsonl" if agent
                     else folder / f"{self.id}.jsonl")
        self.pending: list[dict] = []
        self.last_uuid: str | None = None

    def _envelope(self, kind: str, **fields) -> dict:
        uid = fields.pop("uuid", None) or str(uuidlib.uuid4())
        record = {"parentUuid": self.last_uuid, "isSidechain": self.agent is not None,
                  "userType": "external", "cwd": self.cwd, "sessionId": self.id,
                  "version": "2.1.39", "gitBranch": "main", "type": kind, "uuid": uid,
                  "timestamp": fields.pop("at", None) or _now(), **fields}
        if self.agent:
            record["agentId"] = self.agent
        self.last_uuid = uid
        self.pending.append(record)
        return record

    def prompt(self, text: str | list, **fields) -> dict:
        return self._envelope("user", message={"role": "user", "content": text}, **fields)

    def reply(self, text: str = "", *, tools: list[tuple[str, dict]] = (),
              thinking: str = "", **fields) -> dict:
        content: list[dict] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
        if text:
            content.append({"type": "text", "text": text})
        for name, args in tools:
            content.append({"type": "tool_use", "id": f"toolu_{uuidlib.uuid4().hex[:20]}",
                            "name": name, "input": args})
        return self._envelope("assistant", message={
            "id": f"msg_{uuidlib.uuid4().hex[:20]}", "role": "assistant", "model": "claude",
            "content": content, "stop_reason": "end_turn"}, requestId="req_1", **fields)

    def tool_result(self, tool_use_id: str, output: str) -> dict:
        return self._envelope("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use_id, "content": output}]},
            toolUseResult={"stdout": output, "stderr": ""})

    def raw(self, record: dict) -> None:
        self.pending.append(record)

    def progress(self) -> dict:
        return self._envelope("progress", data={"type": "hook_progress", "hookEvent": "x"})

    def flush(self) -> bytes:
        """Append the pending records to the file; returns the bytes written."""
        data = b"".join(line(r) for r in self.pending)
        self.pending.clear()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("ab") as fh:
            fh.write(data)
        return data


class Transcripts:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def session(self, cwd: str = "/home/dev/code/app", session_id: str | None = None) -> Session:
        return Session(self.root, cwd, session_id)

    def subagent(self, parent: Session, agent: str = "a1b2c3d") -> Session:
        return Session(self.root, parent.cwd, parent.id, agent=agent)

    def conversation(self, cwd: str, *messages: str, session_id: str | None = None) -> Session:
        """A session of alternating prompts and replies, written."""
        s = self.session(cwd, session_id)
        for i, text in enumerate(messages):
            s.prompt(text) if i % 2 == 0 else s.reply(text)
        s.flush()
        return s
