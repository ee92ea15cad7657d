"""When a rescan may skip `git ls-files`: the checkout's file list is the one the store holds
while nothing that could change it moved.

What could: git's own state (`.git/HEAD`, `index`, `packed-refs`, `info/exclude`, the refs
folders: a checkout, a commit, a `git add`, a new branch), every folder on the way to a listed
file (a file added, removed or renamed moves its folder's ctime; a new folder moves its
parent's), and every ignore file listed (an edit in place moves only the file). After each
listing by git the stats of those paths are kept as one digest; the next scan stats them again
(about a tenth of the files' count) and, when the digest is the same, plans from the stored
list, stat'ing each file as before (an edit in place moves no folder). A path that changed
within RACY_NS of its stat could change again unseen: then no digest is kept, and the next scan
lists with git. A checkout whose `.git` is not a folder (a worktree, a submodule) always does.

Not seen without git: a new file in a folder that holds no listed file (only ignored or
nothing), or a change of the global excludes file; the next listing by git picks them up (any
commit, checkout or file added beside a listed one).
"""

from __future__ import annotations

import hashlib
import json
import os
import time

from solograph.racy import RACY_NS

GIT_FILES = (".git", ".git/HEAD", ".git/index", ".git/packed-refs", ".git/info/exclude",
             ".git/refs", ".git/refs/heads")
IGNORE_FILES = (".gitignore",)


def watched(listing: list[str]) -> list[str]:
    """The paths whose stats stand for `listing` (relative to the checkout, '' its root)."""
    out = {"", *GIT_FILES}
    for rel in listing:
        parts = rel.split("/")
        if parts[-1] in IGNORE_FILES:
            out.add(rel)
        for i in range(1, len(parts)):
            out.add("/".join(parts[:i]))
    return sorted(out)


def digest(root: str, paths: list[str]) -> str | None:
    """One digest of the paths' stats, or None when one changed too recently to trust."""
    limit = time.time_ns() - RACY_NS
    h = hashlib.blake2b(digest_size=16)
    for rel in paths:
        try:
            st = os.lstat(os.path.join(root, rel) if rel else root)
        except OSError:
            h.update(f"{rel}\0-\n".encode("utf-8", "surrogateescape"))
            continue
        if st.st_ctime_ns > limit or st.st_mtime_ns > limit:
            return None
        h.update(f"{rel}\0{st.st_ctime_ns}:{st.st_mtime_ns}:{st.st_size}:{st.st_ino}\n"
                 .encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def unchanged(root: str, kept: str) -> bool:
    """Whether the stored `kept` (see `keep`) still holds for the checkout at `root`."""
    if not kept or not os.path.isdir(os.path.join(root, ".git")):
        return False
    try:
        data = json.loads(kept)
        return digest(root, data["paths"]) == data["digest"]
    except (ValueError, KeyError, TypeError):
        return False


def keep(root: str, listing: list[str]) -> str:
    """What to store after a listing by git: '' when it cannot be trusted next time."""
    if not os.path.isdir(os.path.join(root, ".git")):
        return ""
    paths = watched(listing)
    found = digest(root, paths)
    return json.dumps({"paths": paths, "digest": found}) if found else ""
