"""Vectors on disk and in memory: the float16 codec, the per-process matrix, exact cosine search.

On disk a vector is float16 (768 bytes for e5-small). Measured on the 1,880 vectors of the real
transcripts and wiki folders with the 236 eval queries: float16 keeps 99.8% of float32's top
10 (the same first hit for 98.7%), int8 with a per-vector scale 98.1% (96.2%) at half the bytes;
at 40,000 windows (1,000 sessions) the two differ by 15 MB on disk, so float16 it is. In memory
the store's vectors of one model are one float32 matrix, kept per process and per store file
and read again only when the store's `vector_rev` moved, so a search costs one matrix-vector
product, not a read of every vector.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from solograph.semantic.embedder import DIM, load_numpy

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np
else:
    np = load_numpy()

Rows = Iterable[tuple[int, object, bytes]]  # (row id, unit, float16 bytes)
# A unit (a session of many messages) ranks by its best row's cosine, and the best of n rows
# unrelated to a query grows with n like the largest of n noise draws (`expected_best` times
# their spread): a session of 500 messages scored .023 above one of 10 for nothing, and the
# longest sessions stood near the top of every question. Ranked by the cosine less that:
# session questions r@1 .703 -> .730, r@5 .919 -> .946, KB questions r@5 .846 -> .872, the
# lexical suites unchanged (a spread of .015 measured best of .015 and .02; `evals/README.md`).
NOISE_SD = 0.015
F16 = np.dtype("<f2")


def encode(vectors: np.ndarray) -> list[bytes]:
    """Each row as little-endian float16 bytes."""
    return [row.tobytes() for row in np.asarray(vectors, dtype=np.float32).astype(F16)]


def decode(blobs: bytes, dim: int = DIM) -> np.ndarray:
    return np.frombuffer(blobs, dtype=F16).reshape(-1, dim).astype(np.float32)


@dataclass
class Matrix:
    """One store's vectors of one model, rows grouped by the unit a search ranks."""

    rev: int
    rows: np.ndarray  # (n,) int64: the vector's row id in its table
    units: np.ndarray  # (n,) int64: index into `names`
    names: list  # unit ids (session key, doc id, source group)
    starts: np.ndarray  # first row of each unit (rows sorted by unit)
    vectors: np.ndarray  # (n, dim) float32
    luck: np.ndarray  # (units,) what the best of a unit's rows gains by their number alone

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.rows.nbytes + self.units.nbytes
                   + self.starts.nbytes + self.luck.nbytes)

    def rank(self, query: np.ndarray, limit: int,
             allowed: Callable[[list], set] | None = None) -> list[tuple[object, float, int]]:
        """(unit, cosine of its best row, that row's id), best first by that cosine less the
        unit's `luck`; `allowed` picks the units a search may return from the names of all
        units."""
        if not len(self.rows) or limit <= 0:
            return []
        scores = self.vectors @ np.asarray(query, dtype=np.float32)
        best = np.maximum.reduceat(scores, self.starts) - self.luck
        if allowed is not None:
            keep = allowed(self.names)
            mask = np.fromiter((n in keep for n in self.names), dtype=bool,
                               count=len(self.names))
            best = np.where(mask, best, -np.inf)
        take = min(limit, int(np.isfinite(best).sum()))
        if take <= 0:
            return []
        top = np.argpartition(-best, take - 1)[:take] if take < len(best) else \
            np.arange(len(best))
        order = sorted(top.tolist(), key=lambda u: (-best[u], u))
        out = []
        for unit in order:
            start = self.starts[unit]
            end = self.starts[unit + 1] if unit + 1 < len(self.starts) else len(self.rows)
            row = start + int(np.argmax(scores[start:end]))
            out.append((self.names[unit], round(float(scores[row]), 4), int(self.rows[row])))
        return out


# Acklam's rational approximation of the normal quantile (relative error under 1.2e-9):
# `statistics.NormalDist` gives the same numbers but its import (fractions, decimal) cost
# every new process's first fused read 8 ms.
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)


def _quantile(p: float) -> float:
    """The standard normal quantile of p (0 < p < 1)."""
    if p < 0.02425 or p > 1 - 0.02425:
        q = math.sqrt(-2 * math.log(min(p, 1 - p)))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1)
        return x if p < 0.5 else -x
    q = p - 0.5
    r = q * q
    return (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
        (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1)


@functools.lru_cache(maxsize=4096)
def expected_best(n: int) -> float:
    """The expected largest of n standard normal draws, by Blom's approximation (0 for one,
    .59 for two where the exact value is .56, 1.54 for ten, 3.04 for 500)."""
    if n <= 1:
        return 0.0
    return _quantile((n - 0.375) / (n + 0.25))


def build(rev: int, rows: Rows, dim: int = DIM) -> Matrix:
    ids, units = [], []
    buf = bytearray()  # the float16 rows as they come: no list of blobs, no joined copy
    size = dim * F16.itemsize
    for row_id, unit, blob in rows:
        if len(blob) != size:  # another model's size: never mixed into this matrix
            continue
        ids.append(row_id)
        units.append(unit)
        buf += blob
    names = sorted(set(units), key=lambda u: (str(type(u)), u))
    index = {name: i for i, name in enumerate(names)}
    unit_idx = np.fromiter((index[u] for u in units), dtype=np.int64, count=len(units))
    order = np.argsort(unit_idx, kind="stable")
    half = np.frombuffer(buf, dtype=F16).reshape(-1, dim)
    vectors = np.empty((len(ids), dim), np.float32)
    for at in range(0, len(ids), 4096):  # reordered and widened a slice at a time
        vectors[at:at + 4096] = half[order[at:at + 4096]]
    del half, buf
    return assemble(rev, np.asarray(ids, np.int64)[order], unit_idx[order], names, vectors)


def assemble(rev: int, rows: np.ndarray, unit_idx: np.ndarray, names: list,
             vectors: np.ndarray) -> Matrix:
    """A matrix of rows already grouped by unit (`unit_idx` ascending)."""
    starts = np.flatnonzero(np.r_[True, unit_idx[1:] != unit_idx[:-1]]) if len(unit_idx) \
        else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, len(unit_idx)])
    luck = np.asarray([expected_best(int(n)) for n in counts], np.float32) * NOISE_SD
    return Matrix(rev, rows, unit_idx, names, starts, vectors, luck)


def revision(conn: sqlite3.Connection) -> tuple[int, int]:
    """(the store's vector revision, how many texts wait for vectors)."""
    row = conn.execute("SELECT rev, pending FROM vector_rev WHERE id = 1").fetchone()
    return int(row[0]), int(row[1])


_cache: dict[tuple, Matrix] = {}
_lock = threading.Lock()


def store_file(conn: sqlite3.Connection) -> tuple[str, int]:
    """The store's file and inode: a key that survives reconnecting and tells a file that was
    replaced (moved aside and rebuilt) from the one it replaced."""
    path = conn.execute("PRAGMA database_list").fetchone()[2]
    try:
        return path, os.stat(path).st_ino
    except OSError:
        return path, 0


def cached(conn: sqlite3.Connection, store: str, model: str,
           rows: Callable[[], Rows], *, keep: bool = False) -> Matrix:
    """The matrix of `store`'s vectors of `model`, read again when its revision moved: from
    the file beside the store when it is current (`saved`), else from the store; `keep`
    (the writers, once nothing waits) saves what was read for the next process: a read never
    writes it (at 1,000 sessions writing it cost the read that did 2 s)."""
    from solograph.semantic import saved

    key = (store, *store_file(conn), model)
    rev, pending = revision(conn)
    with _lock:
        kept = _cache.get(key)
    if kept is not None and kept.rev == rev and key[1] and not keep:
        return kept
    parts = saved.load(key[1], key[2], rev, model) if key[2] else None
    if parts is not None:  # current on disk: mapped, and nothing to save
        matrix = assemble(rev, *parts)
    else:
        if kept is not None and kept.rev == rev and key[1]:
            matrix = kept
        else:
            with unmapped(conn):
                matrix = build(rev, rows())
        if keep and key[2] and not pending and len(matrix.rows):
            saved.save(key[1], key[2], model, rev,
                       (matrix.rows, matrix.units, matrix.names, matrix.vectors))
    if key[1]:  # an in-memory store has no file to key it by
        with _lock:
            _cache[key] = matrix
    return matrix


@contextlib.contextmanager
def unmapped(conn: sqlite3.Connection) -> Iterator[None]:
    """The vectors read through SQLite's page cache, not its memory map: every page of the
    vector table read through the map stays in the process's resident memory (at 1,000
    sessions a reading process peaked at 277 MiB through the map, 150 MiB without it)."""
    size = conn.execute("PRAGMA mmap_size").fetchone()[0]
    if not size:
        yield
        return
    conn.execute("PRAGMA mmap_size = 0")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA mmap_size = {int(size)}")


def forget() -> None:
    """Drop every cached matrix (tests, and a process that wants its memory back)."""
    with _lock:
        _cache.clear()
