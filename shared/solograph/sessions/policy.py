"""Which sessions stay out of the index: batch runs and private folders.

A session started from a temporary folder (`claude -p` in /tmp, macOS's /var/folders, an
agent's scratchpad) is a batch run, not a conversation anyone will look for. A session whose
working folder is inside one holding a private marker (`.solograph-private`, or Spotlight's
`.metadata_never_index`) is never indexed, and is purged when the marker appears later.

Folder answers are cached for one sync (`fresh()`), so checking every session's folder before
every search costs one stat for each distinct folder: a marker made or removed moves its
folder's mtime, so a folder whose mtime and inode are those it had when its markers were
looked for (and not changed within RACY_NS of that look: solograph/racy.py) holds the
markers it held.
"""

from __future__ import annotations

import os
import time

from solograph.config import PRIVATE_MARKERS
from solograph.racy import racy

TEMP_ROOTS = ("/tmp", "/private/tmp", "/var/tmp", "/var/folders", "/private/var/folders",
              "/dev/shm")
TEMP_PARTS = ("scratchpad",)  # a folder of this name anywhere in the path


class Policy:
    """The rules: temp roots and folder names, private markers."""

    def __init__(self, *, temp_roots: tuple[str, ...], markers: tuple[str, ...],
                 temp_parts: tuple[str, ...] = ()) -> None:
        self.temp_roots = temp_roots
        self.temp_parts = temp_parts
        self.markers = markers
        self._private: dict[str, bool] = {}  # folder -> holds a marker
        self._cwds: dict[str, bool] = {}  # cwd -> inside a marked folder

    def fresh(self) -> Policy:
        """The same rules with an empty cache: folders are judged again on each sync."""
        return Policy(temp_roots=self.temp_roots, markers=self.markers,
                      temp_parts=self.temp_parts)

    def skip_reason(self, cwd: str) -> str:
        if not cwd:
            return ""
        if self.is_temp(cwd):
            return "temp"
        return "private" if self.is_private(cwd) else ""

    def is_temp(self, cwd: str) -> bool:
        if any(part in self.temp_parts for part in cwd.split("/")):
            return True
        return any(cwd == root or cwd.startswith(root.rstrip("/") + "/")
                   for root in self.temp_roots)

    def is_private(self, cwd: str) -> bool:
        if not cwd.startswith("/"):
            return False  # a folder we cannot place is judged by nothing on this machine
        known = self._cwds.get(cwd)
        if known is None:
            known = False
            for folder, paths in _marker_paths(cwd, self.markers):
                marked = self._private.get(folder)
                if marked is None:
                    marked = self._private[folder] = _marked(folder, paths)
                if marked:
                    known = True
                    break
            self._cwds[cwd] = known
        return known


_PATHS: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, tuple[str, ...]], ...]] = {}
# folder -> (its mtime_ns and inode, or None; when its markers were looked for; whether it
# held one)
_LOOKED: dict[str, tuple[tuple[int, int] | None, int, bool]] = {}


def _marked(folder: str, paths: tuple[str, ...]) -> bool:
    """Whether `folder` holds one of the marker `paths`: in a process that asks again (one
    that keeps its readers), looked for again only when the folder changed since the last
    look. A process's first look does not stat the folder: a command that reads once would
    pay for a stat it never compares."""
    kept = _LOOKED.get(folder)
    identity = None
    if kept is not None:
        try:
            st = os.stat(folder)
        except OSError:
            return False  # not there, or not ours to look in: it holds nothing we can see
        identity = (st.st_mtime_ns, st.st_ino)
        if kept[0] == identity and not racy(identity[0], kept[1]):
            return kept[2]
    looked_ns = time.time_ns()
    marked = any(os.path.exists(p) for p in paths)
    if len(_LOOKED) > 10_000:
        _LOOKED.clear()
    _LOOKED[folder] = (identity, looked_ns, marked)
    return marked


def _marker_paths(cwd: str, markers: tuple[str, ...]
                  ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(folder, the paths its markers would have) for `cwd` and each folder above it: only
    strings, kept for the process (every sync asks again about the same few hundred folders;
    the disk is looked at again each time)."""
    key = (cwd, markers)
    found = _PATHS.get(key)
    if found is None:
        if len(_PATHS) > 10_000:
            _PATHS.clear()
        found = _PATHS[key] = tuple((folder, tuple(os.path.join(folder, m) for m in markers))
                                    for folder in _folders(cwd))
    return found


def _folders(cwd: str) -> list[str]:
    """`/a/b/c`, `/a/b`, `/a`, `/`."""
    parts = cwd.rstrip("/").split("/")
    return ["/".join(parts[:i]) or "/" for i in range(len(parts), 0, -1)]



def platform_temp_roots() -> tuple[str, ...]:
    """This machine's temporary folder (`tempfile.gettempdir()`: TMPDIR, TEMP, TMP, else the
    platform's, such as macOS's per-user /var/folders/.../T), as given and with its links
    resolved; never `/` or a folder holding the home (a TMPDIR pointed there would keep every
    session out)."""
    import tempfile

    home = os.path.realpath(os.path.expanduser("~"))
    roots = []
    for root in (given := tempfile.gettempdir(), os.path.realpath(given)):
        root = root.rstrip("/")
        if root and root not in roots and not (home + "/").startswith(
                os.path.realpath(root) + "/"):
            roots.append(root)
    return tuple(roots)


def default_policy() -> Policy:
    roots = TEMP_ROOTS + tuple(r for r in platform_temp_roots() if r not in TEMP_ROOTS)
    return Policy(temp_roots=roots, temp_parts=TEMP_PARTS, markers=PRIVATE_MARKERS)
