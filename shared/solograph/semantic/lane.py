"""What an index's part of the meaning lane is: the base of each `<index>/meaning.py`.

An index with a lane names its `StoreLane` in its description (`Index.lane`, a
"module:attribute" reference); the engine (`stores`, `read`, `remote`, the worker's tasks)
reaches the index only through it, so another index with vectors is one more module, and
nothing here knows which indexes there are.

Every store with a lane has the same three tables, made by its own `*_vectors` migration:

- its vectors table (`table`): one float16 vector per unit (`key`: a message, a section, a
  document), with the digest of the text embedded and the model's id;
- `vector_todo (unit, rank)`: the units waiting for a vector, kept by the store's triggers as
  its rows come, change and go (a text too short to embed never enters it), embedded highest
  `rank` first (the newest);
- `vector_rev (rev, vectors, pending, model)`: one row the triggers keep current, so a read
  learns how much is embedded and how much waits from one row, whatever the store's size, and
  a process keeps its matrix until `rev` moves.

A subclass says how the store is opened for writing (`writer`), what text a unit embeds
(`texts_sql`, `passage`), and how units map to what a search ranks (`unit_join`, `group`: a
session, a page, a video); collecting, saving, counting and ranking are the same for every
store.
"""

from __future__ import annotations

import sqlite3

from solograph.semantic.work import Item, Report, Work, check_vectors, digest, run
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from contextlib import AbstractContextManager

    import numpy as np

    from solograph.config import Settings
    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import Embedder
    from solograph.semantic.work import Progress


class StoreLane:
    """One index's store, as the lane writes and reads its vectors."""

    store: str = ""
    table: str = ""  # the vectors table: key, grp (the group, saved with it), digest, model,
    # vector
    key: str = ""  # its unit column (the row a vector was made from)
    # From a unit id to what a search ranks: `unit_join` joins the unit's rows in, given the
    # column holding the unit id ({unit}); `group` is the ranked thing's id in that join.
    unit_join: str = ""
    group: str = ""
    noun: str = "texts"  # what a unit is, for people: "messages", "sections"
    # The rows `passage` makes a unit's text of: "SELECT unit id, ... WHERE id IN ({marks})".
    texts_sql: str = ""

    def writer(self, settings: Settings) -> AbstractContextManager[sqlite3.Connection]:
        """The store's writer, opened as its own jobs open it (migrated, re-redacted)."""
        raise NotImplementedError

    def passage(self, *row: object) -> str:
        """The text a unit embeds, from its row of `texts_sql` ("": nothing to embed)."""
        raise NotImplementedError

    def passages(self, conn: sqlite3.Connection, units: list[int]) -> dict[int, str]:
        """The text each of `units` embeds; a unit left out has nothing to embed (any more)."""
        out = {}
        for start in range(0, len(units), 500):
            part = units[start:start + 500]
            for unit, *row in conn.execute(
                    self.texts_sql.format(marks=",".join("?" * len(part))), part):
                text = self.passage(*row)
                if text:
                    out[unit] = text
        return out

    # Counting: one row, kept by the store's triggers.

    def state(self, conn: sqlite3.Connection) -> tuple[int, int, str]:
        """(vectors, texts waiting, the model the vectors are of)."""
        row = conn.execute("SELECT vectors, pending, model FROM vector_rev WHERE id = 1"
                           ).fetchone()
        return (int(row[0]), int(row[1]), str(row[2])) if row else (0, 0, "")

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int:
        """Texts waiting for vectors of `model` (freshness: `embedding_pending`): vectors of
        another model wait too, to be made again."""
        vectors, pending, have = self.state(conn)
        return pending + (vectors if have not in ("", model) else 0)

    def embedded_count(self, conn: sqlite3.Connection, model: str) -> int:
        vectors, _, have = self.state(conn)
        return vectors if have == model else 0

    # Writing: collect, then save (see work.py).

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int) -> Work:
        """Up to `limit` waiting texts, the highest rank (the newest) first."""
        self._claim(conn, model)
        units = [r[0] for r in conn.execute(
            "SELECT unit FROM vector_todo ORDER BY rank DESC, unit DESC LIMIT ?", (limit,))]
        texts = self.passages(conn, units)
        gone = [u for u in units if u not in texts]
        if gone:  # rows that no longer hold a text to embed
            with transaction(conn):
                conn.executemany("DELETE FROM vector_todo WHERE unit = ?", [(u,) for u in gone])
        return Work(self.store, model, [Item.of(u, texts[u]) for u in units if u in texts])

    def _claim(self, conn: sqlite3.Connection, model: str) -> None:
        """Make the store's vectors `model`'s: another model's are dropped (their units wait
        again, by the triggers), since its queries could never be compared with them."""
        vectors, _, have = self.state(conn)
        if have == model:
            return
        with transaction(conn):
            if vectors:
                conn.execute(f"DELETE FROM {self.table}")
            conn.execute("UPDATE vector_rev SET model = ? WHERE id = 1", (model,))

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int:
        """Store the vectors of `work` whose unit still holds the text embedded; the rest stay
        waiting (or are gone)."""
        from solograph.semantic import matrix as mx
        from solograph.semantic.embedder import DIM

        check_vectors(work, vectors, DIM)
        wrote = 0
        with transaction(conn):
            if self.state(conn)[2] != work.model:  # the store changed model meanwhile
                return 0
            now = self.passages(conn, [i.unit for i in work.items])
            join = self.unit_join.format(unit="x.u")
            for item, blob in zip(work.items, mx.encode(vectors), strict=True):
                text = now.get(item.unit)
                if text is None or digest(text) != item.digest:
                    continue
                wrote += conn.execute(
                    f"INSERT INTO {self.table} ({self.key}, grp, digest, model, vector) "
                    f"SELECT x.u, {self.group}, ?, ?, ? FROM (SELECT ? AS u) x {join} "
                    f"WHERE true ON CONFLICT ({self.key}) DO UPDATE SET grp = excluded.grp, "
                    "digest = excluded.digest, model = excluded.model, vector = excluded.vector",
                    (item.digest, work.model, blob, item.unit)).rowcount
        return wrote

    def embed_pending(self, conn: sqlite3.Connection, embedder: Embedder, *,
                      deadline: float | None = None, progress: Progress | None = None,
                      stop: Callable[[], bool] | None = None) -> Report:
        return run(self, conn, embedder, deadline=deadline, progress=progress, stop=stop)

    # Reading.

    def vector_rows(self, conn: sqlite3.Connection, model: str
                    ) -> Iterable[tuple[int, object, bytes]]:
        """(unit, the group a search ranks, float16 bytes) of every vector of `model`: from
        the vector table alone (`grp`, saved with each vector), since joining each vector to
        its text's row read every message's page (a process reading the vectors of 1,000
        sessions grew by 345 MiB of mapped pages)."""
        return conn.execute(f"SELECT {self.key}, grp, vector FROM {self.table} "
                            "WHERE model = ?", (model,))

    def matrix(self, conn: sqlite3.Connection, model: str, *, keep: bool = False) -> mx.Matrix:
        """The store's matrix; `keep`: also save it beside the store for the next process
        when nothing waits (the writers do, once they have embedded everything)."""
        from solograph.semantic import matrix as mx

        return mx.cached(conn, self.store, model, lambda: self.vector_rows(conn, model),
                         keep=keep)

    def keep_matrix(self, conn: sqlite3.Connection, model: str) -> None:
        """After a write that left nothing waiting: the matrix saved for the next reader."""
        if not self.pending_count(conn, model) and self.embedded_count(conn, model):
            self.matrix(conn, model, keep=True)

    def rank(self, conn: sqlite3.Connection, vector: np.ndarray, limit: int, *, model: str,
             allowed: Callable[[list], set] | None = None) -> list[tuple[object, float, int]]:
        """(group, cosine of its best unit, that unit) best first."""
        return self.matrix(conn, model).rank(vector, limit, allowed)

    def waiting(self, conn: sqlite3.Connection, groups: list) -> set:
        """The groups among `groups` with a text still waiting for its vector: their meaning
        rank is not known yet."""
        if not groups:
            return set()
        join = self.unit_join.format(unit="t.unit")
        marks = ",".join("?" * len(groups))
        return {r[0] for r in conn.execute(
            f"SELECT DISTINCT {self.group} FROM vector_todo t {join} "
            f"WHERE {self.group} IN ({marks})", groups)}


def allowed_by(conn: sqlite3.Connection, sql: str, params: tuple = ()
               ) -> Callable[[list], set]:
    """A matrix's `allowed` filter: the units `sql` (selecting unit ids) returns."""
    def allowed(names: list) -> set:
        return {r[0] for r in conn.execute(sql, params)}
    return allowed
