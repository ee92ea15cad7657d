"""The files of a KB, by stat only: what a sync compares with the index before reading.

Hidden files and folders (`.git`, `.obsidian`, `.solo`), `exclude:` rules, what the KB's
`.gitignore` and `.indexignore` files ignore (gitignore syntax, in any folder: kb/ignore.py)
and folders marked private (`.solograph-private`, `.metadata_never_index`) are never entered.
A symbolic link is followed (once) only when its target is inside the KB: one leaving it
(`wiki/netrc.md -> ~/.netrc`, a folder linked to `/`) is never read, only counted in
`outside`.
"""

from __future__ import annotations

import os
from pathlib import Path

from solograph.config import PRIVATE_MARKERS
from solograph.frozen import Record, factory
from solograph.kb.ignore import IGNORE_FILES, Rules, ignored, rules_of
from solograph.kb.layout import Layout
from solograph.kb.resolve import MARKDOWN


class Listing(Record):
    pages: dict[str, tuple[int, int]] = factory(default_factory=dict)  # markdown: (size, mtime)
    assets: set[str] = factory(default_factory=set)  # every other file
    huge: list[str] = factory(default_factory=list)  # markdown over the size limit
    outside: list[str] = factory(default_factory=list)  # links whose target leaves the KB
    unreadable: list[str] = factory(default_factory=list)  # folders and files we may not open
    # Each folder walked (and those above `under`): (ctime_ns, inode, ignore files' stats,
    # entries denied); kb/check.py keeps them so a read can trust the ones that did not move.
    folders: dict[str, tuple[int, int, str, int]] = factory(default_factory=dict)


def walk(root: Path, layout: Layout, *, under: str = "", max_bytes: int = 1_000_000) -> Listing:
    """Every file under root/`under` (a KB-relative folder, '' for all)."""
    out = Listing()
    boundary = os.path.realpath(root)
    start = root / under if under else root
    if under and not _inside(os.path.realpath(start), boundary):
        out.outside.append(under)
        return out
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Path, str, list[Rules]]] = [(start, under, _above(root, under, out))]
    while stack:
        folder, rel, levels = stack.pop()
        stamp = (-1, -1)
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            stamp = (st.st_ctime_ns, st.st_ino)
            with os.scandir(folder) as entries:
                items = list(entries)
        except PermissionError:
            out.unreadable.append(rel or ".")
            out.folders[rel] = (*stamp, "", 1)
            continue
        except OSError:
            continue
        names = {e.name for e in items}
        denied = len(out.unreadable)
        out.folders[rel] = (*stamp, rules_stamp(str(folder), names), 0)
        if any(m in names for m in PRIVATE_MARKERS):
            continue
        own = rules_of(str(folder), rel, names)
        if own is not None:
            levels = [*levels, own]
        for entry in items:
            name = entry.name
            if name.startswith("."):
                continue
            path = f"{rel}/{name}" if rel else name
            if layout.exclude and layout.excluded(path):
                continue
            try:
                if entry.is_symlink() and not _inside(os.path.realpath(entry.path), boundary):
                    out.outside.append(path)
                    continue
                if entry.is_dir():
                    if not (levels and ignored(levels, path, True)):
                        stack.append((Path(entry.path), path, levels))
                    continue
                if not entry.is_file():
                    continue
                if levels and ignored(levels, path, False):
                    continue
                if not name.lower().endswith(MARKDOWN):
                    out.assets.add(path)
                    continue
                est = entry.stat()
            except PermissionError:
                out.unreadable.append(path)
                continue
            except OSError:
                continue
            if est.st_size > max_bytes:
                out.huge.append(path)
                continue
            out.pages[path] = (est.st_size, est.st_mtime_ns)
        if len(out.unreadable) > denied:
            out.folders[rel] = (*out.folders[rel][:3], len(out.unreadable) - denied)
    return out


def rules_stamp(folder: str, names: set[str]) -> str:
    """The stats of a folder's ignore files: editing one in place moves no folder's ctime."""
    parts = []
    for name in IGNORE_FILES:
        if name in names:
            try:
                st = os.stat(os.path.join(folder, name))
            except FileNotFoundError:
                continue
            except OSError:
                parts.append(f"{name}:?")
                continue
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)


def _above(root: Path, under: str, out: Listing | None = None) -> list[Rules]:
    """The ignore rules of the folders above `under` (a walk of one folder still honours the
    KB root's .gitignore)."""
    levels: list[Rules] = []
    if not under:
        return levels
    parts = under.split("/")
    for i in range(len(parts)):
        rel = "/".join(parts[:i])
        folder = root / rel if rel else root
        try:
            names = set(os.listdir(folder))
        except OSError:
            continue
        if out is not None:  # not listed whole here: only its ignore files count
            out.folders[rel] = (-1, -1, rules_stamp(str(folder), names), 0)
        own = rules_of(str(folder), rel, names)
        if own is not None:
            levels.append(own)
    return levels


def _inside(path: str, boundary: str) -> bool:
    return path == boundary or path.startswith(boundary.rstrip(os.sep) + os.sep)
