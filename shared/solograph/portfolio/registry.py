"""The registry: which git checkouts are projects.

`refresh` walks the scan paths, finds every checkout (a folder holding `.git`, a directory for
a clone, a file for a worktree or submodule), nested ones included, each once, and adds the new
ones. A scan reads only the registry, so a project removed on purpose stays out: `remove` keeps
its row, marked removed, and `refresh` never adds it back.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import time
from pathlib import Path

from solograph.config import PRIVATE_MARKERS, is_private
from solograph.errors import UnknownProject
from solograph.frozen import Frozen
from solograph.store import transaction

# Folders that hold other people's code or build output: never walked for checkouts or files.
SKIP_DIRS = frozenset({
    "node_modules", "target", "build", "dist", ".venv", "venv", "env", "__pycache__",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "vendor", "Pods",
    "Carthage", ".build", "DerivedData", ".next", ".nuxt", ".gradle", ".terraform",
    "bower_components", "site-packages", ".cache", ".idea", ".svn", ".hg", ".git",
})
MAX_DEPTH = 8


class Project(Frozen):
    id: int
    name: str
    path: Path
    removed: bool
    scanned_at: float | None


class RefreshReport:
    def __init__(self) -> None:
        self.added: list[str] = []
        self.known = 0
        self.missing: list[str] = []
        self.purged: list[str] = []
        self.warnings: list[str] = []  # scan paths that are not there or hold no checkout

    def to_dict(self) -> dict:
        return {"added": self.added, "known": self.known, "missing": self.missing,
                "purged": self.purged, "warnings": self.warnings}


def discover(scan_paths: tuple[Path, ...] | list[Path], *,
             max_depth: int = MAX_DEPTH) -> list[Path]:
    """Every git checkout under `scan_paths`, resolved, each once, in a stable order."""
    found: dict[str, Path] = {}
    for root in scan_paths:
        root = Path(root).expanduser()
        if not root.is_dir():
            continue
        _walk(root.resolve(), 0, max_depth, found)
    return sorted(found.values())


def _walk(folder: Path, depth: int, max_depth: int, found: dict[str, Path]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    names = {e.name for e in entries}
    if any(m in names for m in PRIVATE_MARKERS):
        return
    if ".git" in names:
        found.setdefault(os.path.realpath(folder), Path(os.path.realpath(folder)))
    if depth >= max_depth:
        return
    for entry in entries:
        if entry.name in SKIP_DIRS:
            continue
        # Hidden folders are tool state, except worktree folders (`.worktrees/feature`).
        if entry.name.startswith(".") and "worktree" not in entry.name:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(Path(entry.path), depth + 1, max_depth, found)
        except OSError:
            continue


def list_projects(conn: sqlite3.Connection, *, include_removed: bool = False) -> list[Project]:
    sql = "SELECT id, name, path, removed, scanned_at FROM projects"
    if not include_removed:
        sql += " WHERE removed = 0"
    return [_project(r) for r in conn.execute(sql + " ORDER BY name")]


def _project(row: sqlite3.Row) -> Project:
    return Project(row["id"], row["name"], Path(row["path"]), bool(row["removed"]),
                   row["scanned_at"])


def get_project(conn: sqlite3.Connection, name: str) -> Project:
    """A project by its name, or by its checkout's path (`-p ~/projects/app`)."""
    row = conn.execute("SELECT id, name, path, removed, scanned_at FROM projects "
                       "WHERE name = ?", (name,)).fetchone()
    if row is None and ("/" in name or name.startswith(("~", "."))):
        where = str(Path(name).expanduser().resolve())
        row = conn.execute("SELECT id, name, path, removed, scanned_at FROM projects "
                           "WHERE path = ?", (where,)).fetchone()
        if row is None:
            hint = (f"register it with `solograph registry --add {shlex.quote(where)}`"
                    if Path(where).is_dir() else f"there is no folder {where}")
            raise UnknownProject(f"no registered project at {name!r}", hint=hint)
    if row is not None and row["removed"]:
        raise UnknownProject(
            f"project {name!r} was taken out of the registry (`registry --remove`)",
            hint=f"bring it back with `solograph registry --add {shlex.quote(row['path'])}`")
    if row is None:
        raise UnknownProject(
            f"project {name!r} is not in the registry",
            hint=_suggest(conn, name) or "run `solograph registry` to list and add projects")
    return _project(row)


def _suggest(conn: sqlite3.Connection, name: str) -> str:
    import difflib

    names = [r[0] for r in conn.execute("SELECT name FROM projects WHERE removed = 0")]
    close = [n for n in names if name.lower() in n.lower() or n.lower() in name.lower()]
    close += [n for n in difflib.get_close_matches(name, names, n=3, cutoff=0.6)
              if n not in close]  # a typo: one letter wrong, missing or swapped
    return f"did you mean: {', '.join(sorted(close)[:5])}?" if close else ""


def resolve_scope(conn: sqlite3.Connection, names: list[str] | tuple[str, ...]) -> list[Project]:
    """The registered projects named, failing on the first name the registry lacks."""
    return [get_project(conn, n) for n in names]


def refresh(conn: sqlite3.Connection, scan_paths: tuple[Path, ...] | list[Path]) -> RefreshReport:
    """Add checkouts that appeared; purge projects that became private; report missing ones."""
    report = RefreshReport()
    checkouts = discover(scan_paths)
    report.warnings = path_warnings(scan_paths, checkouts)
    with transaction(conn):
        rows = conn.execute("SELECT id, name, path, removed FROM projects").fetchall()
        by_path = {r["path"]: r for r in rows}
        names = {r["name"] for r in rows}
        for row in rows:
            path = Path(row["path"])
            if row["removed"]:
                continue
            if not path.exists():
                report.missing.append(row["name"])
            elif is_private(path):
                conn.execute("DELETE FROM projects WHERE id = ?", (row["id"],))
                report.purged.append(row["name"])
            else:
                report.known += 1
        for checkout in checkouts:
            if str(checkout) in by_path:
                continue
            name = _unique_name(checkout, names)
            names.add(name)
            conn.execute("INSERT INTO projects (name, path, added_at) VALUES (?, ?, ?)",
                         (name, str(checkout), time.time()))
            report.added.append(name)
    return report


def path_warnings(scan_paths: tuple[Path, ...] | list[Path],
                  checkouts: list[Path]) -> list[str]:
    """A scan path that is not there, or holds no checkout, as a warning with the fix: it
    would otherwise be a silent zero."""
    out = []
    for root in scan_paths:
        root = Path(root).expanduser()
        if not root.is_dir():
            out.append(f"scan path {root} does not exist: set CODEGRAPH_SCAN_PATH to the "
                       "folders that hold your checkouts (comma-separated)")
            continue
        inside = str(root.resolve()).rstrip(os.sep) + os.sep
        if not any(str(c) == str(root.resolve()) or str(c).startswith(inside)
                   for c in checkouts):
            out.append(f"scan path {root} holds no git checkout (no folder with .git within "
                       f"{MAX_DEPTH} levels): point CODEGRAPH_SCAN_PATH at your checkouts, "
                       "or add one with `solograph registry --add PATH`")
    return out


def _unique_name(path: Path, taken: set[str]) -> str:
    candidates = [path.name, f"{path.parent.name}-{path.name}"]
    for c in candidates:
        if c and c not in taken:
            return c
    n = 2
    while f"{path.name}-{n}" in taken:
        n += 1
    return f"{path.name}-{n}"


def add(conn: sqlite3.Connection, path: Path) -> str:
    """Register one checkout by path (re-adding a removed one brings it back)."""
    path = Path(os.path.realpath(path.expanduser()))
    if not (path / ".git").exists():
        raise UnknownProject(f"{path} is not a git checkout (no .git)")
    with transaction(conn):
        row = conn.execute("SELECT name FROM projects WHERE path = ?", (str(path),)).fetchone()
        if row:
            conn.execute("UPDATE projects SET removed = 0 WHERE path = ?", (str(path),))
            return row["name"]
        names = {r[0] for r in conn.execute("SELECT name FROM projects")}
        name = _unique_name(path, names)
        conn.execute("INSERT INTO projects (name, path, added_at) VALUES (?, ?, ?)",
                     (name, str(path), time.time()))
        return name


def remove(conn: sqlite3.Connection, name: str) -> None:
    """Take a project out on purpose: its index goes, and `refresh` will not add it back."""
    project = get_project(conn, name)
    with transaction(conn):
        conn.execute("DELETE FROM files WHERE project_id = ?", (project.id,))
        conn.execute("DELETE FROM manifests WHERE project_id = ?", (project.id,))
        conn.execute("UPDATE projects SET removed = 1, scanned_at = NULL WHERE id = ?",
                     (project.id,))
