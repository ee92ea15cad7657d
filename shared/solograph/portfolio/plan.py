"""The scan's first step: what changed in each project since the store last saw it.

A plan is made where the store is (it reads `portfolio.db`, read-only) and holds only plain
data: the files and manifests to read with the size and mtime seen now, and the paths that left
the checkout. The reading step (`portfolio.read`) can then run anywhere the files are, and the
writing step (`portfolio.write`) applies what it read where the store is. The stat recorded is
the planner's, so a reader on another host that mounts the same files never makes the next
plan read them again.

Big projects are cut into batches, so their files are read by several workers at once.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from solograph.portfolio import listing
from solograph.portfolio.definitions import language_for_path
from solograph.portfolio.files import list_files
from solograph.portfolio.manifests import manifest_kind
from solograph.portfolio.registry import Project

LISTING_THREADS = 8
# A batch ends past either bound: small files travel many to a task, big ones few.
BATCH_FILES = 250
BATCH_BYTES = 2_000_000

# One entry of a plan's "read": [path, language, size, mtime_ns, outside]; an `outside` file is
# a symbolic link out of the checkout, listed with status `outside` and never read.
FileEntry = list
# [path, manager, size, mtime_ns]
ManifestEntry = list


def plan_projects(conn: sqlite3.Connection, projects: list[Project]) -> list[dict]:
    """One plan per project whose checkout is there, in the order given. A checkout where
    nothing that could change its file list moved is planned from the list the store holds,
    without git (portfolio/listing.py)."""
    present = [p for p in projects if p.path.is_dir()]
    kept = dict(conn.execute("SELECT id, listing FROM projects")) if present else {}

    def listing_of(project: Project) -> tuple[list[str] | None, str | None]:
        root = str(project.path)
        if listing.unchanged(root, kept.get(project.id, "")):
            return None, None
        files = list_files(project.path)
        return files, listing.keep(root, files)

    # Listing a checkout is mostly waiting on `git ls-files`: list them all side by side.
    with ThreadPoolExecutor(max_workers=LISTING_THREADS) as pool:
        listings = list(pool.map(listing_of, present))
    plans = []
    for project, (files, stamp) in zip(present, listings, strict=True):
        plan = plan_project(conn, project, files)
        # A manifest behind a link out of the checkout is counted, never stored: only a
        # listing finds it again.
        plan["listing"] = None if stamp is None else (stamp if not plan["outside"] else "")
        plans.append(plan)
    return plans


def plan_project(conn: sqlite3.Connection, project: Project, listing: list[str] | None) -> dict:
    """{"project": {id, name, path}, "read": [FileEntry], "manifests": [ManifestEntry],
    "gone": [path], "gone_manifests": [path], "files": n, "unchanged": n, "outside": n}.

    `files` counts the source files present, `unchanged` those not to read, `outside` the
    manifests behind a link out of the checkout (skipped). `listing` None: the paths the
    store holds (nothing that could change the list moved)."""
    root = str(project.path)
    known = _known(conn, "files", project.id)
    known_manifests = _known(conn, "manifests", project.id)
    kinds = None  # path -> (language, manager) as the store holds them
    if listing is None:
        kinds = {r[0]: (r[1], None) for r in conn.execute(
            "SELECT path, language FROM files WHERE project_id = ?", (project.id,))}
        for path, manager in conn.execute(
                "SELECT path, manager FROM manifests WHERE project_id = ?", (project.id,)):
            kinds[path] = (kinds.get(path, (None,))[0], manager)
        listing = list(kinds)
    plan: dict = {"project": {"id": project.id, "name": project.name, "path": str(root)},
                  "read": [], "manifests": [], "gone": [], "gone_manifests": [],
                  "files": 0, "unchanged": 0, "outside": 0}
    present: set[str] = set()
    present_manifests: set[str] = set()
    for rel in listing:
        if kinds is None:
            language, manager = language_for_path(rel), manifest_kind(rel)
        else:
            language, manager = kinds[rel]
        if language is None and manager is None:
            continue
        st = file_stat(root, rel)
        if st is None:
            continue
        if st is OUTSIDE:
            # Listed as a file with status `outside` (stats lists it), never read; a manifest
            # behind one is left out.
            if language is None:
                plan["outside"] += 1
                continue
            _note(plan, known, present, rel, language, 0, 0, outside=True)
            continue
        if language is not None:
            _note(plan, known, present, rel, language, st.st_size, st.st_mtime_ns)
        if manager is not None:
            present_manifests.add(rel)
            if known_manifests.get(rel) != (st.st_size, st.st_mtime_ns):
                plan["manifests"].append([rel, manager, st.st_size, st.st_mtime_ns])
    plan["gone"] = sorted(known.keys() - present)
    plan["gone_manifests"] = sorted(known_manifests.keys() - present_manifests)
    return plan


def batches(plan: dict, *, max_files: int = BATCH_FILES,
            max_bytes: int = BATCH_BYTES) -> list[dict]:
    """The plan's reads cut into batches: {"root", "files": [FileEntry], "manifests"}.

    Manifests travel with the first batch; a plan with nothing to read has no batch."""
    out: list[list[FileEntry]] = []
    current: list[FileEntry] = []
    size = 0
    for entry in plan["read"]:
        current.append(entry)
        size += entry[2]
        if len(current) >= max_files or size >= max_bytes:
            out.append(current)
            current, size = [], 0
    if current or (plan["manifests"] and not out):
        out.append(current)
    root = plan["project"]["path"]
    return [{"root": root, "files": files, "manifests": plan["manifests"] if i == 0 else []}
            for i, files in enumerate(out)]


def _known(conn: sqlite3.Connection, table: str, project_id: int) -> dict[str, tuple[int, int]]:
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        f"SELECT path, size, mtime_ns FROM {table} WHERE project_id = ?", (project_id,))}


def _note(plan: dict, known: dict[str, tuple[int, int]], present: set[str], rel: str,
          language: str, size: int, mtime_ns: int, *, outside: bool = False) -> None:
    present.add(rel)
    plan["files"] += 1
    if known.get(rel) == (size, mtime_ns):
        plan["unchanged"] += 1
    else:
        plan["read"].append([rel, language, size, mtime_ns, outside])


def file_stat(root: Path | str, rel: str) -> os.stat_result | None:
    """The file's own stat; for a symbolic link, its target's when the target is a file
    inside the checkout. A link leaving the checkout is never followed: OUTSIDE."""
    path = os.path.join(root, rel)  # a str, not a Path: pathlib costs more than the lstat
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            if not _inside(root, path):
                return OUTSIDE
            st = os.stat(path)
    except (OSError, RuntimeError):  # RuntimeError: a link loop
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _inside(root: Path | str, path: str) -> bool:
    real_root = os.path.realpath(root)
    target = os.path.realpath(path)
    return os.path.commonpath([real_root, target]) == real_root


# What file_stat returns for a link out of the checkout (a marker, compared by identity).
OUTSIDE = os.stat_result((0,) * 10)
