"""Every coding agent whose sessions the index reads: one module each, one line in AGENTS.

A reader module is the whole of what the index knows about one agent. It has:

    NAME        the agent's name in every answer and filter ("codex")
    TITLE       how people call it ("Codex CLI")
    RESUME      the agent's own command that resumes a session, `{id}` its id; run from the
                session's folder ("codex resume {id}"); "" when the agent has none
    APPENDABLE  True when a unit only grows (JSONL, markdown): a grown one is read from the
                byte offset where the last read stopped; False when the agent rewrites it (a
                whole JSON file, a store of many files, SQLite rows): a changed unit is read
                again whole
    location(settings) -> Path | None
                where its sessions live (following the agent's own environment variable, e.g.
                CODEX_HOME, as Settings resolved it), None when the agent is turned off
    units(location, denied) -> Iterator[Unit]
                every session file (or store row) there, with the signature that tells a
                change (size, mtime_ns, inode); folders it may not list go to `denied`
    records(unit, fh, offset) -> Iterator[(end, record, problem)]
                the unit read from `offset` (`fh` its open file, or None for a unit that is no
                single file): for each record, the offset just past it, the normalised
                `records.Record` (role `type` user/assistant, `kind`, `text`, `tools`, `at`,
                `cwd`, `session_id`, `sidechain` for a sub-agent joined to its parent, or a
                title) or None, and what was wrong with it ("" when nothing; with None it was
                skipped and is counted: `not_json`, `unknown_type`, ...)

The index does the rest for every agent alike (ingest.py): offsets and re-reads, archive after
deletion, temp and private folders by the session's working folder, redaction (each reader
hands text through `records.clean`, which redacts before it cuts), counting bad records.
Claude Code is one of them; its disk check keeps its own folder cache (sessions/folders.py).
"""

from __future__ import annotations

import importlib
import os

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from types import ModuleType

    from solograph.config import Settings

# One line per agent. A new agent is a module beside these and its line here.
AGENTS = (
    "solograph.sessions.agents.claude",
    "solograph.sessions.agents.codex",
    "solograph.sessions.agents.gemini",
    "solograph.sessions.agents.cursor",
    "solograph.sessions.agents.copilot",
    "solograph.sessions.agents.opencode",
    "solograph.sessions.agents.aider",
)
# The names, without importing a reader (the answers' `agent` filter names them).
NAMES = tuple(ref.rsplit(".", 1)[1] for ref in AGENTS)  # config.AGENT_NAMES, tested equal


class Unit:
    """One session file (or one session of a store) as the disk check found it."""

    __slots__ = ("key", "path", "kind", "size", "mtime_ns", "inode")

    def __init__(self, key: str, path: str, kind: str, size: int, mtime_ns: int,
                 inode: int) -> None:
        self.key = key  # files.path: unique across agents ("codex:sessions/2025/...")
        self.path = path  # what the reader opens
        self.kind = kind  # main | subagent
        self.size, self.mtime_ns, self.inode = size, mtime_ns, inode

    @property
    def signature(self) -> tuple[int, int, int]:
        return self.size, self.mtime_ns, self.inode


def load(ref: str) -> ModuleType:
    return importlib.import_module(ref)


def by_name(name: str, agents: tuple[str, ...] | None = None) -> ModuleType | None:
    for ref in AGENTS if agents is None else agents:
        if ref.rsplit(".", 1)[1] == name:
            return load(ref)
    return None


def resume_command(agent: str, session_id: str, cwd: str) -> str | None:
    """The agent's own command for the session, from the folder it ran in."""
    module = by_name(agent or "claude")
    template = getattr(module, "RESUME", "") if module else ""
    if not template:
        return None
    command = template.format(id=session_id)
    if not cwd:
        return command
    return "cd '" + cwd.replace("'", "'\\''") + "' && " + command


def file_unit(key: str, path: str, kind: str) -> Unit | None:
    """A Unit for a regular file, or None when it is gone or not a file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    import stat

    if not stat.S_ISREG(st.st_mode):
        return None
    return Unit(key, path, kind, st.st_size, st.st_mtime_ns, st.st_ino)


def listing(path: str, denied: list[str], rel: str) -> list[os.DirEntry]:
    """A folder's entries; a folder we may not list goes to `denied`, a missing one is empty."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except PermissionError:
        denied.append(rel or ".")
        return []
    except (FileNotFoundError, NotADirectoryError):
        return []


def enabled(settings: Settings, agents: tuple[str, ...] | None = None
            ) -> list[tuple[str, str]]:
    """(name, module) of each agent the settings turn on (SOLOGRAPH_AGENTS) that has a folder,
    Claude Code's excluded: its sync is the index's own (sessions/sync.py). No reader is
    imported here: an agent whose folder is missing costs a stat, not an import."""
    out = []
    for ref in AGENTS if agents is None else agents:
        name = ref.rsplit(".", 1)[1]
        if name != "claude" and settings.agent_path(name) is not None:
            out.append((name, ref))
    return out
