"""A store's vector matrix kept on disk beside it, so a new process maps it instead of reading
every vector out of SQLite.

A command is a new process: its first fused read used to read every vector of the store and
build the float32 matrix (at 1,000 sessions, 50,920 vectors: about 290 ms, most of what the
lane added to `solograph sessions`). Once a store is fully embedded, the process that built
the matrix writes it beside the store (`<store>.matrix-<model>.npy`, the float32 rows, and
`.json`, what they are: the store's inode, its vector revision, the units); the next process
maps the file (`numpy.load(mmap_mode="r")`) when the store's inode and revision still match,
and ignores it otherwise. Nothing is written while texts wait for vectors (every round of
embedding moves the revision) or where the store's folder cannot be written; a file that does
not read back whole is ignored. The JSON holds numbers and the units' ids only, never text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from solograph.semantic.embedder import DIM, load_numpy

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np
else:
    np = load_numpy()

Parts = tuple["np.ndarray", "np.ndarray", list, "np.ndarray"]  # rows, units, names, vectors

FORMAT = 1


def _paths(store_path: str, model: str) -> tuple[Path, Path, Path]:
    """(the vectors, the rows' ids and units, what they are) of the store's saved matrix."""
    base = f"{store_path}.matrix-{hashlib.sha1(model.encode()).hexdigest()[:12]}"
    return Path(base + ".npy"), Path(base + ".idx.npy"), Path(base + ".json")


def load(store_path: str, inode: int, rev: int, model: str) -> Parts | None:
    """The saved matrix of the store at `store_path` (its rows' ids, their units' indexes, the
    units, the vectors mapped) when it is of this inode, revision and model; None otherwise
    (or when any part does not read back)."""
    vectors_at, index_at, about_at = _paths(store_path, model)
    try:
        about = json.loads(about_at.read_text(encoding="utf-8"))
        if (about.get("format"), about.get("inode"), about.get("rev"), about.get("model")) != \
                (FORMAT, inode, rev, model):
            return None
        n = int(about["n"])
        vectors = np.load(vectors_at, mmap_mode="r", allow_pickle=False)
        index = np.load(index_at, allow_pickle=False)
        if vectors.shape != (n, DIM) or vectors.dtype != np.float32 or index.shape != (n, 2):
            return None
        return index[:, 0], index[:, 1], list(about["names"]), vectors
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(store_path: str, inode: int, model: str, rev: int, parts: Parts) -> bool:
    """Write a matrix of revision `rev` beside the store; False when the folder cannot be
    written."""
    rows, units, names, vectors = parts
    vectors_at, index_at, meta = _paths(store_path, model)
    suffix = f".{os.getpid()}.tmp"
    about = {"format": FORMAT, "inode": inode, "rev": rev, "model": model, "n": len(rows),
             "names": names}
    arrays = [(vectors_at, np.ascontiguousarray(vectors, np.float32)),
              (index_at, np.stack([rows, units], axis=1))]
    written: list[Path] = []
    try:
        for path, array in arrays:
            tmp = Path(str(path) + suffix)
            written.append(tmp)
            with open(tmp, "wb") as fh:
                np.save(fh, array, allow_pickle=False)
        tmp = Path(str(meta) + suffix)
        written.append(tmp)
        tmp.write_text(json.dumps(about), encoding="utf-8")
        for (path, _), done in zip(arrays, written, strict=False):
            os.replace(done, path)
        os.replace(tmp, meta)  # last: what says the arrays are whole and current
        return True
    except (OSError, TypeError, ValueError):
        for tmp in written:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return False
