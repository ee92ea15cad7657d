"""The KB store: one index per KB folder, under SOLOGRAPH_HOME/kb/ (never inside the KB, which
may be read-only). Opening it checks the layout (`.solograph.yaml`, parsed again only when it
changed) and the secrets rules: text redacted under older rules, or a changed layout, makes the
next sync re-read every page."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import AbstractContextManager, closing, nullcontext
from pathlib import Path

from solograph.config import Settings, kb_db_path
from solograph.errors import NotIndexed
from solograph.index import Handle
from solograph.kb.layout import Layout, config_stat, load_layout
from solograph.store import RULES_KEY, connect_writer, get_meta, set_meta, stored_rules, transaction

STORE = "kb"


class KbIndex(Handle):
    """An open KB index: the connection, the KB folder and its layout."""

    def __init__(self, conn: sqlite3.Connection, root: Path, layout: Layout,
                 settings: Settings) -> None:
        super().__init__(conn, settings)
        self.root = root
        self.layout = layout


def open_kb(home: Path, root: Path, *, busy_ms: int | None = None,
            check_rules: bool = True, settings: Settings | None = None) -> KbIndex:
    """The index of the KB at `root` (created on first use), its layout checked. `busy_ms`
    shortens the wait for a store locked by another writer (the hook's budget is short);
    the hook also skips `check_rules` (re-reading every page redacted by newer rules), which
    the next search or index run does, since loading the rules alone costs it 20 ms."""
    root = Path(root).expanduser()
    if not root.is_dir():
        raise NotIndexed(f"the knowledge base folder {root} does not exist",
                         hint="set KB_PATH (or --kb-path) to the folder of your notes")
    conn = _writer(kb_db_path(home, root), check_rules=check_rules)
    if busy_ms is not None:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    try:
        layout = _layout(conn, root)
    except BaseException:
        conn.close()
        raise
    if settings is None:  # opened by a path alone (the hook, tests): these are its settings
        settings = Settings(home=home, kb_path=root)
    return KbIndex(conn, root, layout, settings)


def configured(settings: Settings) -> Path:
    """The KB folder of `settings`, or the error that says how to name one."""
    if settings.kb_path is None:
        raise NotIndexed("no knowledge base is configured",
                         hint="set KB_PATH to the folder of your notes (the CLI uses the "
                              "current folder)")
    return settings.kb_path


def opened(settings: Settings) -> AbstractContextManager[KbIndex]:
    """A handle for one read (a writer: the read syncs the folder first): the thread's kept
    one in a long-lived process (readers.keep()), as the session index keeps its own. A new
    connection per read paid its opening, its statements prepared again and its pages read
    in again, then its closing (at 5,000 pages: 1 + 3 ms, and the pages' reads)."""
    # A process that never imported readers keeps nothing (the CLI): no threading to load.
    readers = sys.modules.get("solograph.readers")
    root = Path(configured(settings)).expanduser()
    kept = readers.kept_writer(kb_db_path(settings.home, root), _writer) \
        if readers and root.is_dir() else None
    if kept is None:
        return closing(open_kb(settings.home, root, settings=settings))
    return nullcontext(KbIndex(kept, root, _layout(kept, root), settings))


def _writer(path: Path, *, check_rules: bool = True) -> sqlite3.Connection:
    """A writer on a KB's index (opened per read, or kept): migrated, and with `check_rules`
    its pages marked to be read again when the redaction rules are newer."""
    conn = connect_writer(path, STORE)
    try:
        # Deleted and rewritten rows are zeroed as they go (no extra I/O), so a page that
        # leaves the index leaves no old copy of its text in free space.
        conn.execute("PRAGMA secure_delete = FAST")
        if check_rules:
            _check_rules(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def as_of(conn: sqlite3.Connection) -> str | None:
    """The newest mtime of the pages the index holds."""
    row = conn.execute("SELECT MAX(mtime_ns) FROM docs WHERE mtime_ns > 0").fetchone()
    from solograph.freshness import iso  # its TypedDict imports typing: not on the hook's path

    return iso(row[0] if row else None)


def _layout(conn: sqlite3.Connection, root: Path) -> Layout:
    """The layout, parsed again only when .solograph.yaml changed; a changed layout makes the
    next sync re-read everything (pages, exclusions)."""
    stat = json.dumps(config_stat(root))
    cached = get_meta(conn, "layout")
    if cached is not None and get_meta(conn, "layout_stat") == stat:
        return Layout.from_json(cached)
    layout = load_layout(root)
    with transaction(conn):
        if cached is not None and cached != layout.to_json():
            conn.execute("UPDATE docs SET size = -1")
        set_meta(conn, "layout", layout.to_json())
        set_meta(conn, "layout_stat", stat)
    return layout


def _check_rules(conn: sqlite3.Connection) -> None:
    from solograph.text.secrets import RULES_VERSION

    if (stored_rules(conn) or 0) >= RULES_VERSION:
        return
    with transaction(conn):
        conn.execute("UPDATE docs SET size = -1")  # every page is read (and redacted) again
        set_meta(conn, RULES_KEY, str(RULES_VERSION))


def db_path(settings: Settings) -> Path:
    return settings.kb_db
