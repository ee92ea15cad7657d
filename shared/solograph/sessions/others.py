"""The sync of every agent other than Claude Code (sessions/agents/): the same guarantees as
sync.py gives Claude Code's transcripts, over each reader's units.

- A unit whose signature (size, mtime_ns, inode) is the one the index holds is not opened.
- A changed one is read by ingest: a grown JSONL from its offset, a rewritten unit whole.
- A unit that is gone is kept, marked deleted (the agent removed it; this index is then the
  only copy). An agent folder that is missing altogether changes nothing: an unmounted folder
  is never read as "every session was deleted", nor is a folder we may not list.
- Under a search's deadline the changed units are read newest first and the rest counted as
  `pending`, per agent, as Claude Code's are.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from solograph.sessions.policy import Policy
from solograph.sessions.report import Report
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from types import ModuleType


def sync_agent(conn: sqlite3.Connection, agent: ModuleType, location: Path | None, *,
               policy: Policy, deadline: float | None = None,
               sessions: dict[str, int] | None = None) -> dict:
    """Read what changed of one agent's sessions; the counts of what was done."""
    report = Report()
    name = agent.NAME
    if location is None or not location.exists():
        return missing(name, location)
    denied: list[str] = []
    disk = {u.key: u for u in agent.units(location, denied)}
    for rel in denied:
        report.note_unreadable(f"{name}:{rel}")
    report.files = len(disk)
    known = {r[0]: r[1:] for r in conn.execute(
        "SELECT path, size, mtime_ns, inode, status FROM files WHERE agent = ?", (name,))}
    changed = [key for key, unit in disk.items() if _changed(known.get(key), unit.signature)]
    if deadline is not None:  # newest first: a search sees the latest conversations soonest
        changed.sort(key=lambda key: (-disk[key].mtime_ns, key))
    else:
        changed.sort()
    sessions = {} if sessions is None else sessions
    if changed:
        from solograph.sessions.ingest import sync_unit
    for done, key in enumerate(changed):
        if done and deadline is not None and time.monotonic() >= deadline:
            report.pending = len(changed) - done
            break
        sync_unit(conn, agent, disk[key], policy=policy, sessions=sessions, report=report)
    if not denied:  # a unit in a folder we may not list is not gone: it is unreadable
        gone = [key for key, row in known.items() if key not in disk and row[3] == "live"]
        if gone:
            with transaction(conn):
                for key in gone:
                    report.deleted += conn.execute(
                        "UPDATE files SET status = 'deleted' WHERE path = ? AND "
                        "status = 'live'", (key,)).rowcount
    return {**report.to_dict(), "agent": name, "location": str(location), "missing": False}


def missing(name: str, location: Path | None) -> dict:
    """The report of an agent whose folder is not there: nothing read, nothing deleted."""
    return {**Report().to_dict(), "agent": name,
            "location": str(location) if location else None, "missing": True}


def _changed(row: tuple | None, sig: tuple[int, int, int]) -> bool:
    if row is None or row[3] == "deleted":
        return True
    if row[3] != "live":
        return False  # temp and private units are judged by their folder, not their bytes
    return tuple(row[:3]) != sig
