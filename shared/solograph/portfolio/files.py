"""Which files of a checkout the scan reads.

Git decides what is ignored (`git ls-files --cached --others --exclude-standard`: every
.gitignore level, info/exclude and the global excludes), so we never re-implement gitignore.
When git is missing or the folder is not a valid repository we walk it instead. Either way
vendored and generated folders are dropped, nested checkouts belong to their own project, and
a folder holding a private marker stays out.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from solograph.config import PRIVATE_MARKERS
from solograph.portfolio.registry import SKIP_DIRS

GIT_TIMEOUT_S = 60


def list_files(root: Path) -> list[str]:
    """Paths relative to `root`, '/'-separated, of the files a scan may read."""
    listed = _git_ls_files(root)
    paths = listed if listed is not None else list(_walk(root))
    return drop_private(root, [p for p in paths if not _skipped(p)])


def _skipped(rel: str) -> bool:
    parts = rel.split("/")
    return any(part in SKIP_DIRS for part in parts[:-1])


def _git_ls_files(root: Path) -> list[str] | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        out = subprocess.run(
            ["git", "-c", "safe.directory=*", "-c", "core.quotepath=off", "ls-files", "-z",
             "--cached", "--others", "--exclude-standard"],
            cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    # Untracked nested checkouts come out as "dir/": they are projects of their own.
    seen: dict[str, None] = {}
    for raw in out.stdout.split(b"\0"):
        if raw and not raw.endswith(b"/"):
            seen.setdefault(raw.decode("utf-8", "surrogateescape"), None)
    return list(seen)


def _walk(root: Path) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        if any(m in files for m in PRIVATE_MARKERS):
            dirs[:] = []
            continue
        here = Path(folder)
        dirs[:] = [d for d in dirs
                   if d not in SKIP_DIRS and not d.startswith(".")
                   and not (here / d / ".git").exists()]
        rel_folder = os.path.relpath(folder, root)
        for name in files:
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            yield rel.replace(os.sep, "/")


def private_dirs(root: Path, paths: list[str]) -> set[str]:
    """Relative folders (and '' for the root) that hold a private marker."""
    marked: set[str] = set()
    folders = {""}
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    for folder in folders:
        base = root / folder if folder else root
        if any((base / m).exists() for m in PRIVATE_MARKERS):
            marked.add(folder)
    return marked


def drop_private(root: Path, paths: list[str]) -> list[str]:
    marked = private_dirs(root, paths)
    if not marked:
        return paths
    if "" in marked:
        return []

    def inside(p: str) -> bool:
        return any(p.startswith(m + "/") for m in marked)

    return [p for p in paths if not inside(p)]
