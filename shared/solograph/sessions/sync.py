"""Keeping the index in step with the transcripts folder; runs before every search.

The folder is laid out as Claude Code writes it:

    <root>/<encoded cwd>/<session>.jsonl                         a main transcript
    <root>/<encoded cwd>/<session>/subagents/agent-<id>.jsonl    its Task sub-agents
    <root>/<encoded cwd>/agent-<id>.jsonl                        sub-agents, older versions

Folder names are never decoded (the encoding is lossy): a record's own `cwd` and `sessionId`
say where and which session it belongs to, so a sub-agent file joins its parent session.

A sync lists only the folders that changed and stats each live transcript (sessions/folders.py:
what a folder's mtime shows and what it does not); when nothing changed it writes nothing and
takes no lock. A transcripts folder that is missing
altogether (not mounted, a typo in the setting) changes nothing: it is not read as "every
transcript was deleted".

A search syncs under a deadline (`time.monotonic()`): files are read newest first, whole (each
file's transactions and offsets are its own), and once the deadline passes the files left are
counted as `pending` for the next sync. Explicit syncs pass no deadline and read everything.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from solograph.errors import NotIndexed
from solograph.index import Handle, Synced
from solograph.sessions import folders, upkeep
from solograph.sessions.policy import Policy, default_policy
from solograph.sessions.report import Report
from solograph.sessions.steady import unchanged
from solograph.store import transaction
from solograph.text.plural import plural

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

Stat = tuple[str, int, int, int]  # kind, size, mtime_ns, inode


def sync(conn: sqlite3.Connection, root: Path | None, *, policy: Policy | None = None,
         deadline: float | None = None, quick: bool = False,
         watched: dict[str, int] | None = None) -> dict:
    """Read what changed under `root` into the index; returns counts of what was done.

    With `deadline` (a `time.monotonic()` value) the changed files are read most recently
    modified first, at least one, and reading stops between files once it has passed;
    `pending` counts the changed files left unread. `quick` (a read's sync): stat the live
    transcripts sessions/cold.py picks, and those a watcher named (`watched`), not all;
    `unchecked` counts the others and `checked_ns` says since when all were stat'ed."""
    report = Report()
    if root is None or not root.is_dir():
        return {**report.to_dict(), "transcripts": str(root) if root else None,
                "missing": True}
    policy = (policy or default_policy()).fresh()
    listing = folders.look(conn, root, quick=quick, watched=watched)
    if not quick:
        from solograph.sessions import cold

        cold.all_checked(conn)
    disk, denied = listing.files, listing.denied
    for rel in denied:
        report.note_unreadable(rel)
    report.files = len(disk)
    known = listing.known
    reopened = _privacy(conn, policy, report)
    looked = disk.keys() if listing.checked is None else listing.checked & disk.keys()
    changed = sorted({rel for rel in looked if _changed(known.get(rel), disk[rel])}
                     | (reopened & disk.keys()))
    if deadline is not None:  # newest first: a search sees the latest conversations soonest
        changed.sort(key=lambda rel: (-disk[rel][2], rel))
    sessions: dict[str, int] = {}
    if changed:  # the reader (records, JSON, secrets) only when there is something to read
        from solograph.sessions.ingest import sync_file
    for done, rel in enumerate(changed):
        if done and deadline is not None and time.monotonic() >= deadline:
            report.pending = len(changed) - done
            for left in changed[done:]:  # not in the index yet: list their folders again
                listing.distrust(left)
            break
        unreadable = report.unreadable
        sync_file(conn, root, rel, disk[rel][0], policy=policy, sessions=sessions,
                  report=report)
        if report.unreadable != unreadable:
            listing.distrust(rel)
    if report.purged or report.private:
        upkeep.scrub(conn)
    # A file in a folder we may not list is not gone: it is unreadable, and counted so.
    hidden = tuple(d.rstrip("/") + "/" for d in denied)
    gone = [rel for rel in sorted(known.keys() - disk.keys()) if known[rel][3] == "live"
            and not (hidden and (rel.startswith(hidden) or "." in denied))]
    if gone:
        with transaction(conn):
            for rel in gone:
                report.deleted += conn.execute(
                    "UPDATE files SET status = 'deleted' WHERE path = ? AND status = 'live'",
                    (rel,)).rowcount
    folders.keep(conn, listing)
    return {**report.to_dict(), "transcripts": str(root), "missing": False,
            "unchecked": listing.unchecked, "checked_ns": listing.checked_ns}


def _changed(row: tuple[int, int, int, str] | None, st: Stat) -> bool:
    """Whether a file must be read: `row` is what the index holds of it (size, mtime_ns,
    inode, status)."""
    if row is None or row[3] == "deleted":
        return True
    if row[3] != "live":
        return False  # temp and private files are judged by their folder, not their bytes
    return row[:3] != st[1:]


def _privacy(conn: sqlite3.Connection, policy: Policy, report: Report) -> set[str]:
    """Purge sessions whose folder is now private; return the files of sessions whose folder
    no longer is, reset to be read again."""
    private = [cwd for cwd in unchanged(conn, "cwds", lambda: [r[0] for r in conn.execute(
        "SELECT cwd FROM sessions WHERE cwd != '' UNION SELECT c.cwd FROM cwds c "
        "JOIN files f ON f.id = c.file_id WHERE f.status = 'live'")]) if policy.is_private(cwd)]
    # Every folder a session worked in counts, not only the one it started in.
    purge = list(dict.fromkeys((r[0], cwd) for cwd in private for r in conn.execute(
        "SELECT session_id FROM sessions WHERE cwd = ? UNION SELECT f.session_id FROM cwds c "
        "JOIN files f ON f.id = c.file_id WHERE c.cwd = ? AND f.session_id != ''",
        (cwd, cwd)).fetchall()))
    reopen = [(r[0], r[1]) for r in unchanged(conn, "private", lambda: conn.execute(
        "SELECT id, path, cwd FROM files WHERE status = 'private'").fetchall())
        if not policy.is_private(r[2])]
    if not purge and not reopen:
        return set()
    from solograph.sessions.ingest import reset_file

    if purge:  # what was read leaves the file's pages, not only its rows
        conn.execute("PRAGMA secure_delete = ON")
    with transaction(conn):
        for session_id, cwd in purge:
            if upkeep.purge_session(conn, session_id, cwd):
                report.purged += 1
        for file_id, _ in reopen:
            reset_file(conn, file_id, report)
        upkeep.refresh(conn, report.touched)
        report.touched.clear()
    return {path for _, path in reopen}


def sync_all(conn: sqlite3.Connection, settings: Settings, *, deadline: float | None = None,
             agents: tuple[str, ...] | None = None, policy: Policy | None = None,
             quick: bool = False, watched: dict[str, int] | None = None) -> dict[str, dict]:
    """Every agent the settings turn on, Claude Code first: {agent: its sync report}.
    `quick`, `watched`: Claude Code's disk check as `sync` takes them."""
    from solograph.sessions.agents import enabled, load

    out: dict[str, dict] = {}
    policy = (policy or default_policy()).fresh()
    if "claude" in settings.agents:
        out["claude"] = sync(conn, settings.claude_projects, policy=policy, deadline=deadline,
                             quick=quick, watched=watched)
    others = enabled(settings, agents)
    if not others:
        return out
    from solograph.sessions.others import missing, sync_agent

    if "claude" not in out or out["claude"]["missing"]:
        report = Report()  # a folder that became private, for the agents below
        _privacy(conn, policy, report)
        if report.purged:
            upkeep.scrub(conn)
    sessions: dict[str, int] = {}
    for name, ref in others:
        path = settings.agent_path(name)
        if path is None or not path.exists():
            out[name] = missing(name, path)
            continue
        agent = load(ref)
        found = sync_agent(conn, agent, agent.location(settings), policy=policy,
                           deadline=deadline, sessions=sessions)
        if found["purged"] or found["private"]:
            upkeep.scrub(conn)
        out[name] = found
    return out


def sync_for_read(handle: Handle, deadline: float) -> Synced:
    """The sync before a read, within its budget, of every agent turned on. Folders that are
    not there are an error only while the index holds nothing (an index of archived sessions
    still answers)."""
    conn = handle.conn
    root = handle.settings.claude_projects
    watched = None
    from solograph import readers

    if readers.keeping() and root is not None and "claude" in handle.settings.agents:
        from solograph import watching

        watched = watching.changes(str(root))
    reports = sync_all(conn, handle.settings, deadline=deadline, quick=True, watched=watched)
    if watched and not reports["claude"]["pending"]:
        watching.settle(str(root), watched)
    # An agent counts once it has a folder holding sessions (aider's registry always exists).
    if all(r["missing"] or (name != "claude" and not r["files"])
           for name, r in reports.items()) and \
            not conn.execute("SELECT 1 FROM sessions LIMIT 1").fetchone():
        claude = reports.get("claude", {}).get("transcripts")
        raise NotIndexed(f"no sessions indexed, and the transcripts folder {claude} "
                         "does not exist" if claude else "no sessions indexed, and no agent's "
                         "sessions folder exists",
                         hint="set CLAUDE_PROJECTS_PATH to Claude Code's projects folder "
                              "(default ~/.claude/projects), or the other agents' folders "
                              "(README: Settings)")
    return Synced(pending=sum(r["pending"] for r in reports.values()),
                  unreadable=sum(r["unreadable"] for r in reports.values()),
                  agents=per_agent(conn, reports))


def per_agent(conn: sqlite3.Connection, reports: dict[str, dict]) -> dict:
    """Freshness of each agent read: what its sync left, and the newest message it holds."""
    from solograph.freshness import iso

    newest = dict(unchanged(conn, "newest", lambda: conn.execute(
        "SELECT agent, MAX(last_at) FROM sessions WHERE last_at != '' GROUP BY agent"
    ).fetchall()))
    out = {name: {"pending": r["pending"], "unreadable": r["unreadable"],
                  "present": not r["missing"], "as_of": iso(newest.get(name))}
           for name, r in reports.items()}
    for name, r in reports.items():  # a disk check that stat'ed some transcripts, not all
        if r.get("unchecked"):
            out[name].update(unchecked=r["unchecked"], checked_as_of=iso(r["checked_ns"] or None))
    return out


def _merged(reports: dict[str, dict]) -> dict:
    """One report of every agent's sync: Claude Code's fields as they were, counts summed."""
    claude = reports.get("claude") or {**Report().to_dict(), "transcripts": None,
                                       "missing": True}
    out = dict(claude)
    for name, r in reports.items():
        if name == "claude":
            continue
        for key, value in r.items():
            if isinstance(value, int) and not isinstance(value, bool) and key in out:
                out[key] += value
        for reason, n in r["bad"].items():
            out["bad"] = {**out["bad"], reason: out["bad"].get(reason, 0) + n}
        out["unreadable_paths"] = out["unreadable_paths"] + r["unreadable_paths"]
    return out


def _agent_counts(conn: sqlite3.Connection, reports: dict[str, dict]) -> dict:
    counts = dict(conn.execute("SELECT agent, COUNT(*) FROM sessions GROUP BY agent").fetchall())
    return {name: {"present": not r["missing"], "sessions": counts.get(name, 0),
                   "new": r["new"], "grown": r["grown"], "deleted": r["deleted"],
                   "bad": r["bad"], "pending": r["pending"]}
            for name, r in reports.items()}


def folder_access(settings: Settings) -> dict:
    """What /health shows of the transcripts folder without syncing: the listing and an
    access(2) check per file, the same files a sync would count as `unreadable` (a folder it may
    not list, a transcript it may not open: a wrong SOLOGRAPH_UID)."""
    root = settings.claude_projects
    if root is None or not root.is_dir():
        return {"path": str(root) if root else None, "present": False, "files": 0,
                "unreadable": 0}
    denied: list[str] = []
    files = closed = 0
    # No stat: the listing and one access(2) per file (measured on 10,000 transcripts: 10 ms,
    # against 43 ms through `discover`, which stats each file for the sync).
    from solograph.sessions.agents.claude import walk

    for _rel, entry, _kind in walk(root, denied):
        files += 1
        closed += not os.access(entry.path, os.R_OK)
    return {"path": str(root), "present": True, "files": files,
            "unreadable": len(denied) + closed}


def sync_sessions(settings: Settings, *, policy: Policy | None = None) -> dict:
    """The write job: read new and grown transcripts into the index; report what was done and
    what the index holds."""
    from solograph.sessions.store import open_index

    conn = open_index(settings.sessions_db)
    try:
        reports = sync_all(conn, settings, policy=policy)
        report = _merged(reports)
        from solograph.sessions.search import LIVE

        total, archived, messages = conn.execute(
            f"SELECT COUNT(*), COALESCE(SUM(NOT {LIVE}), 0), COALESCE(SUM(messages), 0) "
            "FROM sessions s").fetchone()
        from solograph.sessions.answers import skipped

        report.update(sessions=total, archived=archived, messages=messages,
                      skipped=skipped(conn), agents=_agent_counts(conn, reports))
        temp = report["skipped"].get("temp", 0)
        report["summary"] = (
            f"{plural(total, 'session')} ({archived} archived), {plural(messages, 'message')}; "
            f"this sync: {plural(report['new'], 'new file')}, {report['grown']} grown, "
            f"{report['reread']} re-read, "
            f"{report['deleted']} deleted, {report['entries']} messages added"
            + (f", {report['purged']} purged (private)" if report["purged"] else "")
            + (f", {report['bad_lines']} bad lines skipped" if report["bad_lines"] else "")
            + (f"; {report['unreadable']} files or folders unreadable (permissions: run as "
               f"their owner)" if report["unreadable"] else "")
            + (f"; {plural(temp, 'batch run')} from temporary folders left out"
               if temp else "")
            + (f"; transcripts folder {report['transcripts']} not found"
               if report["missing"] and report["transcripts"] else "")
            + "".join(f"; {name}: {plural(a['sessions'], 'session')}"
                      for name, a in report["agents"].items() if name != "claude"
                      and a["present"]))
        return report
    finally:
        conn.close()
