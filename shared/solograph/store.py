"""SQLite connections and the migration runner.

Every connection runs in WAL mode with a busy timeout; readers open read-only. Migrations are
the SQL files in `migrations/<store>/`, applied in name order, each in one transaction and
recorded by name so a second run does nothing.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from solograph.errors import NotIndexed, QueryTimeout, StoreError

BUSY_TIMEOUT_S = 10.0

# The migrations folder of each store that ships its own outside `solograph.migrations` (an
# index outside the core), as the index list tells it (`add_migrations`).
_OWN_MIGRATIONS: dict[str, Path] = {}


def add_migrations(store: str, folder: Path) -> None:
    """Where `store`'s migrations live when they are not in `solograph.migrations`."""
    if _OWN_MIGRATIONS.get(store) != folder:
        _OWN_MIGRATIONS[store] = folder
        for cached in (migration_files, migration_names, _migrations_folder):
            cached.cache_clear()


@cache
def migration_files(store: str) -> tuple[tuple[str, str], ...]:
    """(name, sql) for each migration of `store`, in the order they apply."""
    folder = _migrations_folder(store)
    return tuple((name, (folder / f"{name}.sql").read_text(encoding="utf-8"))
                 for name in migration_names(store))


@cache
def migration_names(store: str) -> tuple[str, ...]:
    """The names of `store`'s migrations, in order: all a reader checks, without their SQL."""
    return tuple(sorted(f.removesuffix(".sql") for f in os.listdir(_migrations_folder(store))
                        if f.endswith(".sql")))


@cache
def _migrations_folder(store: str) -> Path:
    # The package is a plain folder in every install (wheel, editable); reading it directly
    # spares each process importlib.resources (13 ms, a sixth of the hook's budget).
    import solograph.migrations as package

    folder = Path(package.__file__).parent / store
    if not folder.is_dir():
        folder = _OWN_MIGRATIONS.get(store, folder)
    if not folder.is_dir():
        raise StoreError(f"no migrations for store {store!r}")
    return folder


def _configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def map_pages(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Read the file through a memory map: pages shared with the OS cache instead of copied
    into the connection's own. For a connection kept across reads (readers.py); one opened
    for a single read reads its pages in instead: mapping them faults each page in and
    unmapping costs the close (at 5,000 KB pages the hook's close took 6 ms, 0.3 without)."""
    conn.execute("PRAGMA mmap_size = 268435456")
    return conn


def connect_writer(path: Path, store: str) -> sqlite3.Connection:
    """A read-write connection with every pending migration of `store` applied."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: we issue BEGIN IMMEDIATE ourselves so writes never upgrade a lock.
    conn = _configure(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                      check_same_thread=False))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn, store)
    return conn


def connect_reader(path: Path, store: str) -> sqlite3.Connection:
    """A read-only connection. A store that is missing raises NotIndexed; one whose migrations
    are behind is brought up to date first through a short-lived writer."""
    if not path.exists():
        raise NotIndexed(f"{store} index not found at {path}",
                         hint=_build_hint(store))
    try:
        conn = _configure(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                          timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                          check_same_thread=False))
        behind = pending_migrations(conn, store)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"the {store} index at {path} cannot be read: {exc}",
                         hint="move the file aside and rebuild it: " + _build_hint(store)) from None
    if behind:
        conn.close()
        connect_writer(path, store).close()
        conn = _configure(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                          timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                          check_same_thread=False))
    return conn


def _build_hint(store: str) -> str:
    return {
        "portfolio": "run `solograph registry && solograph scan` to index your repositories",
    }.get(store, f"index the {store} store first")


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='_migrations'").fetchone()
    if not exists:
        return []
    return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]


def pending_migrations(conn: sqlite3.Connection, store: str) -> list[str]:
    done = set(applied_migrations(conn))
    return [name for name in migration_names(store) if name not in done]


def migrate(conn: sqlite3.Connection, store: str) -> list[str]:
    """Apply pending migrations of `store`; returns the names applied."""
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations "
                 "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    applied = []
    done = set(applied_migrations(conn))
    for name, sql in migration_files(store):
        if name in done:  # checked outside the write lock: opening a current store never waits
            continue
        with transaction(conn):
            # Re-check inside the write lock: another process may have migrated meanwhile.
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                         (name, time.time()))
            applied.append(name)
    return applied


def _statements(sql: str) -> Iterator[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer
            buffer = ""
    if buffer.strip() and not buffer.strip().startswith("--"):
        yield buffer


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the store's `meta (key, value)` table, which every store has."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) "
                 "DO UPDATE SET value = excluded.value", (key, value))


RULES_KEY = "rules_version"


def stored_rules(conn: sqlite3.Connection) -> int | None:
    """The secrets-rules version the store's text was last redacted with (None: never)."""
    value = get_meta(conn, RULES_KEY)
    return int(value) if value is not None else None


def reclean(conn: sqlite3.Connection, rewrite: Callable[[sqlite3.Connection], int], *,
            version: int) -> int:
    """Redact a store again when its text predates rules `version`.

    `rewrite` redacts every stored text and returns how many rows changed; it runs in one
    write transaction with secure_delete on, and when anything changed the file is vacuumed
    and its WAL truncated, so no page on disk still holds what was removed. The store needs a
    `meta (key, value)` table. Returns the rows changed (0 when the store was already clean)."""
    done = stored_rules(conn)
    if done is not None and done >= version:
        return 0
    changed = 0
    conn.execute("PRAGMA secure_delete = ON")
    try:
        with transaction(conn):
            done = stored_rules(conn)  # again, under the write lock: another process
            if done is not None and done >= version:  # may have cleaned it meanwhile
                return 0
            changed = rewrite(conn)
            set_meta(conn, RULES_KEY, str(version))
        if changed:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.execute("PRAGMA secure_delete = OFF")
    return changed


@contextmanager
def time_limit(conn: sqlite3.Connection, ms: int) -> Iterator[None]:
    """Interrupt any statement on `conn` that runs past `ms` milliseconds."""
    deadline = time.monotonic() + ms / 1000

    def check() -> int:
        return 1 if time.monotonic() > deadline else 0

    conn.set_progress_handler(check, 10_000)
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc):
            raise QueryTimeout(f"query took longer than {ms} ms",
                               hint="use more specific words or narrow with a project") from None
        raise
    finally:
        conn.set_progress_handler(None, 0)


def like_escape(text: str) -> str:
    """`text` as a literal in a LIKE pattern written with `ESCAPE '\\'`: its %, _ and \\ match
    only themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
