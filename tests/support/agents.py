"""The other agents' fixtures (../shared/corpora/agents/) laid out as each agent writes them on
a user's machine, under a home folder of the test's own.

Most fixtures record their working folder under /tmp, which the index leaves out as a batch
run: the copy moves every `/tmp/` path to `work`, a folder of the test that exists.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from solograph.config import Settings

GEMINI_PROJECT = "gem"


def _copy(src: Path, dst: Path, work: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    data = src.read_bytes()
    data = data.replace(b'"/tmp"', f'"{work}"'.encode()).replace(b"/tmp/", f"{work}/".encode())
    dst.write_bytes(data)


def encode_cursor(path: Path) -> str:
    """Cursor's project folder name for a working folder."""
    return str(path).strip("/").replace("/", "-").replace(".", "-")


WORK_FOLDERS = ("repo", "large", "project", "drift", "gem", "cur")


def lay_out(corpus: Path, home: Path, work: Path, *, make: bool = True) -> dict[str, Path]:
    """Copy each agent's fixtures where the agent keeps them; returns {agent: its folder}.
    `make`: create the working folders (a private marker needs one; Cursor's folder name is
    decoded by the folder that exists)."""
    src = corpus / "agents" / "agent-sessions"
    for name in WORK_FOLDERS if make else ():
        (work / name).mkdir(parents=True, exist_ok=True)
    codex = home / ".codex"
    _copy(src / "codex/large.jsonl", codex / "sessions/2025/12/18/rollout-2025-12-18T10-00-00-"
          "019b2ea4-aaaa-bbbb-cccc-58208e1f0000.jsonl", work)
    _copy(src / "codex/small.jsonl", codex / "archived_sessions/rollout-2026-08-03T10-48-56-"
          "019fc8be-3658-7ca3-9e29-000000000000.jsonl", work)
    gemini = home / ".gemini"
    chats = gemini / "tmp" / GEMINI_PROJECT / "chats"
    _copy(src / "gemini/small.json", chats / "session-2026-01-16T18-34-3739ef95.json", work)
    _copy(src / "gemini/large.json", chats / "session-2025-12-16T23-47-large.json", work)
    _copy(src / "gemini/jsonl_v040.jsonl", chats / "session-2026-04-29T21-39-jsonl.jsonl", work)
    (gemini / "projects.json").write_text(
        json.dumps({"projects": {str(work / "gem"): GEMINI_PROJECT}}), encoding="utf-8")
    cursor = home / ".cursor"
    transcripts = cursor / "projects" / encode_cursor(work / "cur") / "agent-transcripts"
    _copy(src / "cursor/small.jsonl", transcripts / "c-small.jsonl", work)
    _copy(src / "cursor/large.jsonl", transcripts / "c-large/c-large.jsonl", work)
    _copy(src / "cursor/subagent/parent.jsonl", transcripts / "c-parent/c-parent.jsonl", work)
    _copy(src / "cursor/subagent/subagents/child.jsonl",
          transcripts / "c-parent/subagents/child.jsonl", work)
    copilot = home / ".copilot"
    _copy(src / "copilot/small.jsonl", copilot / "session-state/copilot_stage0_small.jsonl",
          work)
    _copy(src / "copilot/large.jsonl", copilot / "session-state/copilot_stage0_large.jsonl",
          work)
    for events in (src / "copilot/subdir_v1").glob("*/events.jsonl"):
        _copy(events, copilot / "session-state" / events.parent.name / "events.jsonl", work)
    opencode = home / ".local/share/opencode"
    for store in ("storage_v2", "storage_legacy"):
        for f in (src / "opencode" / store).rglob("*.json"):
            _copy(f, opencode / "storage" / f.relative_to(src / "opencode" / store), work)
    return {"codex": codex, "gemini": gemini, "cursor": cursor, "copilot": copilot,
            "opencode": opencode}


def aider_checkouts(corpus: Path, work: Path) -> list[Path]:
    """One checkout per aider history, each with its `.aider.chat.history.md`."""
    out = []
    for history in sorted((corpus / "agents" / "aider").glob("*.aider.chat.history.md")):
        checkout = work / "checkouts" / history.name.removesuffix(".aider.chat.history.md")
        checkout.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(history, checkout / ".aider.chat.history.md")
        out.append(checkout)
    return out


def register(portfolio_db: Path, checkouts: list[Path]) -> None:
    """The checkouts in the portfolio registry, as `solograph registry` adds them."""
    import time

    from solograph.store import connect_writer, transaction

    conn = connect_writer(portfolio_db, "portfolio")
    try:
        with transaction(conn):
            for path in checkouts:
                conn.execute("INSERT OR IGNORE INTO projects (name, path, added_at) "
                             "VALUES (?, ?, ?)", (path.name, str(path), time.time()))
    finally:
        conn.close()


def settings_for(home: Path, folders: dict[str, Path], *, solo: Path,
                 claude: Path | None = None, **kw) -> Settings:
    """Settings reading these agents' folders (and aider through `solo`'s registry)."""
    paths = tuple(folders.items()) + (("aider", solo / "portfolio.db"),)
    return Settings(home=solo, claude_projects=claude, agent_paths=paths, **kw)
