"""The scan's last step: apply one project's plan and what was read for it, in one short
transaction, whole or not at all (a crash leaves the project as it was before).

Applying is idempotent: a file or manifest the store already holds at the size and mtime that
was read is left alone (another scan of the same files wrote it first), so a batch read twice,
or two scans of one project, never write a file twice.
"""

from __future__ import annotations

import sqlite3
import time

from solograph.portfolio import LAST_SCAN, impact
from solograph.store import set_meta, transaction

# File statuses counted as skipped: nothing, or only what came before the limit, was read.
SKIPPED = ("binary", "huge", "unreadable", "too_slow", "too_deep", "outside")
OPTIMIZE_AFTER = 1000  # definitions changed by a scan before the full-text index is merged


def write_project(conn: sqlite3.Connection, plan: dict, results: list[dict]) -> dict:
    """Apply `plan` (see `portfolio.plan`) and its batches' results; returns the counts of
    what was written: {"parsed", "unchanged", "deleted", "symbols", "changed", "skipped",
    "parsed_in_part", "manifests", "manifest_errors", "packages"}."""
    project_id = plan["project"]["id"]
    files = [f for r in results for f in r["files"]]
    manifests = [m for r in results for m in r["manifests"]]
    out = {"parsed": 0, "unchanged": 0, "deleted": 0, "symbols": 0, "changed": 0,
           "parsed_in_part": 0, "manifests": 0, "manifest_errors": 0, "packages": 0}
    skipped = dict.fromkeys(SKIPPED, 0)
    with transaction(conn):
        if conn.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is None:
            return {**out, "skipped": skipped}  # removed from the registry since the plan
        gone = _delete(conn, "files", project_id, plan["gone"])
        _delete(conn, "manifests", project_id, plan["gone_manifests"])
        for result in files:
            written = _write_file(conn, project_id, result)
            if written is None:
                out["unchanged"] += 1
                continue
            out["parsed"] += 1
            out["symbols"] += written
            if result["status"] in skipped:
                skipped[result["status"]] += 1
            elif result["status"] == "syntax_error":
                out["parsed_in_part"] += 1
        for result in manifests:
            if _write_manifest(conn, project_id, result):
                out["manifests"] += 1
                out["manifest_errors"] += result["error"] is not None
                out["packages"] += len(result["packages"])
        conn.execute("UPDATE projects SET scanned_at = ? WHERE id = ?", (time.time(), project_id))
        if plan.get("listing") is not None:  # None: planned from the stored list, kept as is
            conn.execute("UPDATE projects SET listing = ? WHERE id = ?",
                         (plan["listing"], project_id))
    out["deleted"] = gone
    out["changed"] = out["symbols"] + gone
    return {**out, "skipped": skipped}


def finish_scan(conn: sqlite3.Connection, *, changed: int) -> None:
    """After every project: merge the full-text index when much changed, count the changes
    towards the next refresh of the word counts and impact lists (portfolio.impact), note
    when the scan ended, and reset the WAL."""
    if changed > OPTIMIZE_AFTER:
        with transaction(conn):
            conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('optimize')")
    with transaction(conn):
        if changed:
            impact.note_changes(conn, changed=changed)
        set_meta(conn, LAST_SCAN, str(time.time()))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _delete(conn: sqlite3.Connection, table: str, project_id: int, paths: list[str]) -> int:
    cur = conn.executemany(f"DELETE FROM {table} WHERE project_id = ? AND path = ?",
                           [(project_id, p) for p in paths])
    return max(cur.rowcount, 0)


def _write_file(conn: sqlite3.Connection, project_id: int, r: dict) -> int | None:
    """The file and its definitions; None when the store holds it as read already."""
    row = conn.execute("SELECT id, size, mtime_ns FROM files WHERE project_id = ? AND path = ?",
                       (project_id, r["path"])).fetchone()
    if row:
        if (row[1], row[2]) == (r["size"], r["mtime_ns"]):
            return None
        file_id = row[0]
        conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        conn.execute("UPDATE files SET language = ?, lines = ?, size = ?, mtime_ns = ?, "
                     "status = ? WHERE id = ?",
                     (r["language"], r["lines"], r["size"], r["mtime_ns"], r["status"], file_id))
    else:
        file_id = conn.execute(
            "INSERT INTO files (project_id, path, language, lines, size, mtime_ns, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (project_id, r["path"], r["language"], r["lines"], r["size"], r["mtime_ns"],
             r["status"])).lastrowid
    conn.executemany(
        "INSERT INTO symbols (file_id, project_id, name, kind, line, scope, name_key, words, "
        "scope_words) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, project_id, *s) for s in r["symbols"]])
    return len(r["symbols"])


def _write_manifest(conn: sqlite3.Connection, project_id: int, m: dict) -> bool:
    row = conn.execute("SELECT size, mtime_ns FROM manifests WHERE project_id = ? AND path = ?",
                       (project_id, m["path"])).fetchone()
    if row and (row[0], row[1]) == (m["size"], m["mtime_ns"]):
        return False
    conn.execute("DELETE FROM manifests WHERE project_id = ? AND path = ?",
                 (project_id, m["path"]))
    manifest_id = conn.execute(
        "INSERT INTO manifests (project_id, path, manager, size, mtime_ns, error) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (project_id, m["path"], m["manager"], m["size"], m["mtime_ns"], m["error"])).lastrowid
    conn.executemany(
        "INSERT INTO packages (manifest_id, project_id, manager, name, spec, dev) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(manifest_id, project_id, *p) for p in m["packages"]])
    return True
