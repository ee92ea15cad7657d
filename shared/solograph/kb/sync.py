"""The KB folder into its index: stat every file, re-read what changed, drop what went.

A page is re-read only when its size or mtime changed, and then only when its bytes did: a
page of the same size whose hash is the one stored (`touch`, a checkout, a sync tool moving
mtimes) only has its mtime noted (`touched`). Links are resolved at sync, again for
every page whenever a page appeared or went (a broken link may have found its page). What the
catalog (index.md) says about each page is its `index_line`, searched with the title's
weight. Every text stored passes through `redact` first; an index written under older rules
is re-read from the files on open.

A search syncs under a deadline (`time.monotonic()`): changed pages are read newest first and
reading stops between pages once it has passed (at least one is read); the pages left are
`pending`, read by the next sync. Pages the index must re-read whatever the budget (newer
redaction rules, a changed layout: stored size -1) are always read. Explicit runs pass no
deadline.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path, PurePosixPath

from solograph.frozen import Record, factory
from solograph.index import Synced
from solograph.kb import check, leaders, linking
from solograph.kb.bm25 import NAMES, SECTIONS
from solograph.kb.layout import Layout, missing_folders
from solograph.kb.resolve import Resolver
from solograph.kb.store import STORE, KbIndex, configured, open_kb
from solograph.kb.walk import walk
from solograph.store import transaction
from solograph.text.tokens import index_text

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings
    from solograph.kb.markdown import Page

CATALOG = "index.md"
MAX_INDEX_LINE = 400


class SyncReport(Record):
    docs: int = 0
    pages: int = 0
    read: int = 0
    deleted: int = 0
    huge: list[str] = factory(default_factory=list)
    problems: int = 0
    seconds: float = 0.0
    pending: int = 0  # changed pages left for the next sync (a search's deadline passed)
    # What the index holds with a problem, by kind: frontmatter, unreadable, binary content.
    reasons: dict[str, int] = factory(default_factory=dict)
    outside: list[str] = factory(default_factory=list)  # links leaving the KB, not followed
    unreadable: int = 0  # pages and folders the process may not open (read again each sync)
    touched: int = 0  # pages whose mtime moved and whose bytes did not: not read again

    def to_dict(self) -> dict:
        return {"docs": self.docs, "pages": self.pages, "read": self.read,
                "touched": self.touched,
                "deleted": self.deleted, "huge": self.huge, "problems": self.problems,
                "reasons": self.reasons, "outside": self.outside,
                "unreadable": self.unreadable, "pending": self.pending,
                "seconds": round(self.seconds, 3)}


def sync(kb: KbIndex, *, pages_only: bool = False, max_bytes: int = 1_000_000,
         deadline: float | None = None, trust_folders: bool = False,
         watched: dict[str, int] | None = None) -> SyncReport:
    """Bring the index level with the folder (only the wiki folder with `pages_only`); with
    `deadline` (a `time.monotonic()` value), read changed pages newest first until it passes
    and count the rest as `pending`. With `trust_folders` (a read's check), folders that did
    not change are not listed and only some of their pages stat'ed (kb/check.py); the report
    then counts only what a read needs (read, touched, pending, unreadable)."""
    started = time.perf_counter()
    layout, conn = kb.layout, kb.conn
    under = layout.pages if pages_only else ""
    if trust_folders:
        found = check.quick(conn, kb.root, under, max_bytes, watched)
        if found is not None:
            report = _sync_quick(kb, found, under, deadline)
            report.seconds = time.perf_counter() - started
            return report
    listing = walk(kb.root, layout, under=under, max_bytes=max_bytes)
    prefix = f"{under}/" if under else ""
    stored = {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
        "SELECT path, id, size, mtime_ns FROM docs WHERE path >= ? AND path < ?",
        (prefix, prefix + "\U0010ffff"))}
    hashes = dict(conn.execute(
        "SELECT path, hash FROM docs WHERE hash != '' AND problem NOT LIKE 'unreadable:%' "
        "AND path >= ? AND path < ?", (prefix, prefix + "\U0010ffff")).fetchall())
    changed = [p for p, st in listing.pages.items()
               if p not in stored or stored[p][1:] != st]
    # A page we could not open is read again once we may (a chmod leaves its mtime alone).
    changed += [r[0] for r in conn.execute(
        "SELECT path FROM docs WHERE problem LIKE 'unreadable:%' AND path >= ? AND path < ?",
        (prefix, prefix + "\U0010ffff")) if r[0] in listing.pages and r[0] not in changed
        and os.access(kb.root / r[0], os.R_OK)]
    gone = [p for p in stored if p not in listing.pages]
    stored_assets = {r[0] for r in conn.execute(
        "SELECT path FROM assets WHERE path >= ? AND path < ?", (prefix, prefix + "\U0010ffff"))}
    report = SyncReport(huge=sorted(listing.huge), outside=sorted(listing.outside))
    if changed or gone or stored_assets != listing.assets:
        parsed = _read_changed(kb.root, changed, listing.pages, stored, deadline, hashes)
        report.pending = len(changed) - len(parsed)
        touched = {p: r for p, r in parsed.items() if r.page is None}
        report.touched = len(touched)
        for path in touched:
            del parsed[path]
        if gone:  # a page that went (made private, a link now refused) leaves the file's bytes
            conn.execute("PRAGMA secure_delete = ON")
        with transaction(conn):
            conn.executemany("UPDATE docs SET mtime_ns = ? WHERE path = ?",
                             [(r.stat[1], p) for p, r in touched.items()])
            _write(kb, parsed, gone, listing.assets, stored_assets, set(stored))
            check.keep(conn, listing, under, trusted=report.pending == 0)
        if gone:
            _scrub(conn)
        report.read, report.deleted = len(parsed), len(gone)
    else:
        check.keep(conn, listing, under, trusted=True)
    if leaders.missing(conn):  # a store migrated since: its lists are made once
        with transaction(conn):
            leaders.refresh_all(conn)
    report.docs, report.pages, report.problems = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(in_pages), 0), COALESCE(SUM(problem != ''), 0) "
        "FROM docs").fetchone()
    for (problem,) in conn.execute("SELECT problem FROM docs WHERE problem != ''"):
        kind = problem.partition(":")[0]
        report.reasons[kind] = report.reasons.get(kind, 0) + 1
    report.unreadable = report.reasons.get("unreadable", 0) + len(listing.unreadable)
    report.seconds = time.perf_counter() - started
    return report


def _sync_quick(kb: KbIndex, found: check.Quick, under: str, deadline: float | None,
                ) -> SyncReport:
    """The sync of a read whose folders did not move: the changed pages `found` re-read (and
    those once unreadable that we may open now), nothing listed."""
    conn = kb.conn
    low = f"{under}/" if under else ""
    changed, pages, stored = list(found.pages), dict(found.pages), dict(found.stored)
    unreadable = 0
    for path, doc, size, mtime in conn.execute(
            "SELECT path, id, size, mtime_ns FROM docs WHERE problem != '' AND problem LIKE "
            "'unreadable:%' AND +path >= ? AND +path < ?", (low, low + "\U0010ffff")).fetchall():
        unreadable += 1
        if path not in pages and os.access(kb.root / path, os.R_OK):
            try:
                st = os.stat(kb.root / path)
            except OSError:
                continue
            changed.append(path)
            pages[path], stored[path] = (st.st_size, st.st_mtime_ns), (doc, size, mtime)
    report = SyncReport(unreadable=unreadable + found.unreadable)
    if not changed:
        return report
    hashes = dict(conn.execute(
        "SELECT path, hash FROM docs WHERE hash != '' AND problem NOT LIKE 'unreadable:%' "
        f"AND path IN ({','.join('?' * len(changed))})",
        changed).fetchall())
    parsed = _read_changed(kb.root, changed, pages, stored, deadline, hashes)
    report.pending = len(changed) - len(parsed)
    touched = {p: r for p, r in parsed.items() if r.page is None}
    report.touched = len(touched)
    for path in touched:
        del parsed[path]
    with transaction(conn):
        conn.executemany("UPDATE docs SET mtime_ns = ? WHERE path = ?",
                         [(r.stat[1], p) for p, r in touched.items()])
        _write(kb, parsed, [], set(), set(), set(stored))
        if report.pending:
            check.distrust(conn, under)
    report.read = len(parsed)
    return report


def _scrub(conn: sqlite3.Connection) -> None:
    """After pages were deleted under secure_delete: merge each index into one segment so
    their terms leave its pages, and fold the WAL into the file and truncate it."""
    try:
        with transaction(conn):
            conn.execute("INSERT INTO docs_fts (docs_fts) VALUES ('optimize')")
            conn.execute("INSERT INTO sections_fts (sections_fts) VALUES ('optimize')")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.execute("PRAGMA secure_delete = FAST")


def _read_changed(root: Path, changed: list[str], pages: dict[str, tuple[int, int]],
                  stored: dict[str, tuple[int, int, int]], deadline: float | None,
                  hashes: dict[str, str]) -> dict[str, _Read]:
    """The changed pages, parsed (or found unchanged by their hash: `page` None); under a
    deadline newest first, stopping once it passed (pages flagged for a forced re-read,
    stored size -1, are read regardless)."""
    def known(p: str) -> str:  # the stored hash, when only the mtime can have moved
        return hashes.get(p, "") if p in stored and stored[p][1] == pages[p][0] else ""

    if deadline is None:
        return {p: _read(root, p, pages[p], known(p)) for p in changed}
    forced = [p for p in changed if p in stored and stored[p][1] == -1]
    rest = sorted((p for p in changed if not (p in stored and stored[p][1] == -1)),
                  key=lambda p: (-pages[p][1], p))
    parsed = {p: _read(root, p, pages[p]) for p in forced}
    for p in rest:
        if parsed and time.monotonic() >= deadline:
            break
        parsed[p] = _read(root, p, pages[p], known(p))
    return parsed


class _Read(Record):
    stat: tuple[int, int]
    page: Page | None  # None: the bytes are the ones indexed
    hash: str = ""


def content_hash(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _read(root: Path, rel: str, stat: tuple[int, int], known: str = "") -> _Read:
    try:
        data = (root / rel).read_bytes()
    except OSError as exc:
        from solograph.kb.markdown import Page

        page = Page(title=PurePosixPath(rel).stem, problem=f"unreadable: {exc.strerror}")
        return _Read(stat, page)
    digest = content_hash(data)
    if known and digest == known:
        return _Read(stat, None, digest)
    from solograph.kb.markdown import parse  # only when a page is read: the hook rarely is
    from solograph.text.secrets import redact

    text = redact(data.decode("utf-8", errors="replace"))
    page = parse(text, rel)
    if b"\x00" in data[:4096]:
        page.problem = page.problem or "binary content"
    return _Read(stat, page, digest)


def _write(kb: KbIndex, parsed: dict[str, _Read], gone: list[str], assets: set[str],
           stored_assets: set[str], stored: set[str]) -> None:
    conn, layout = kb.conn, kb.layout
    tally = leaders.Tally()
    for path in gone:
        _delete(conn, path, tally)
    for path in stored_assets - assets:
        conn.execute("DELETE FROM assets WHERE path = ?", (path,))
    conn.executemany("INSERT OR IGNORE INTO assets (path) VALUES (?)",
                     [(p,) for p in assets - stored_assets])
    came_or_went = {*gone, *(set(parsed) - stored), *(assets ^ stored_assets)}
    resolver = linking.resolver(conn, layout.pages_prefix, came_or_went, [
        link.target for read in parsed.values() if read.page for link in read.page.links])
    for path in parsed:
        resolver.add_page(path)
    for path, read in sorted(parsed.items()):
        _insert(conn, layout, resolver, path, read, tally)
    moved = linking.resolve_again(conn, resolver, came_or_went)
    catalogs_touched = any(PurePosixPath(p).name.lower() == CATALOG
                           for p in (*parsed, *gone))
    if catalogs_touched or parsed or moved:
        _index_lines(conn, only=None if catalogs_touched else {*parsed, *moved}, tally=tally)
    tally.flush(conn)


def _delete(conn: sqlite3.Connection, path: str, tally: leaders.Tally) -> None:
    row = conn.execute("SELECT id FROM docs WHERE path = ?", (path,)).fetchone()
    if row is None:
        return
    _clear(conn, row[0], tally)
    conn.execute("DELETE FROM docs WHERE id = ?", (row[0],))


def _clear(conn: sqlite3.Connection, doc: int, tally: leaders.Tally) -> None:
    """Drop what a page's text gave: its search rows, sections and links."""
    tally.drop_rows(conn, SECTIONS, [r[0] for r in conn.execute(
        "SELECT id FROM sections WHERE doc = ?", (doc,))])
    tally.drop_rows(conn, NAMES, [doc])
    conn.execute("DELETE FROM sections_fts WHERE rowid IN (SELECT id FROM sections "
                 "WHERE doc = ?)", (doc,))
    conn.execute("DELETE FROM sections WHERE doc = ?", (doc,))
    conn.execute("DELETE FROM links WHERE src = ?", (doc,))
    conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (doc,))


def _insert(conn: sqlite3.Connection, layout: Layout, resolver: Resolver, path: str,
            read: _Read, tally: leaders.Tally) -> None:
    """Write one page read from disk; a page already indexed keeps its id, so the links
    that point at it stay resolved."""
    from solograph.kb.markdown import plain

    page = read.page
    assert page is not None  # pages found unchanged by their hash are not written
    catalog = PurePosixPath(path).name.lower() == CATALOG
    values = (read.stat[0], read.stat[1], int(layout.in_pages(path)), int(catalog),
              page.title, page.description, json.dumps(page.tags, ensure_ascii=False),
              json.dumps(page.aliases, ensure_ascii=False), page.language, page.problem,
              page.body, read.hash, int(page.compacted))
    row = conn.execute("SELECT id FROM docs WHERE path = ?", (path,)).fetchone()
    if row is not None:
        doc = row[0]
        _clear(conn, doc, tally)
        conn.execute("UPDATE docs SET size = ?, mtime_ns = ?, in_pages = ?, catalog = ?, "
                     "title = ?, description = ?, tags = ?, aliases = ?, language = ?, "
                     "problem = ?, body = ?, hash = ?, compacted = ?, index_line = '' "
                     "WHERE id = ?", (*values, doc))
    else:
        doc = conn.execute(
            "INSERT INTO docs (size, mtime_ns, in_pages, catalog, title, description, tags, "
            "aliases, language, problem, body, hash, compacted, path) VALUES (?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?)", (*values, path)).lastrowid
    body_stems = []  # the sections cover the body: it is stemmed once, for both tables
    heads: dict[str, str] = {}
    for seq, section in enumerate(page.sections):
        sid = conn.execute("INSERT INTO sections (doc, seq, heading, line, text) "
                           "VALUES (?, ?, ?, ?, ?)",
                           (doc, seq, section.heading, section.line, section.text)).lastrowid
        if section.heading not in heads:
            heads[section.heading] = index_text(section.heading)
            last = section.heading.rpartition(" > ")[2]
            body_stems.append(index_text(last))
        stems = index_text(plain(section.text))
        body_stems.append(stems)
        conn.execute("INSERT INTO sections_fts (rowid, heading, body) VALUES (?, ?, ?)",
                     (sid, heads[section.heading], stems))
        tally.add(SECTIONS, sid or 0, (heads[section.heading], stems))
    columns = (index_text(page.title), index_text(meta_text(path, page, "")),
               " ".join(s for s in body_stems if s))
    conn.execute("INSERT INTO docs_fts (rowid, title, meta, body) VALUES (?, ?, ?, ?)",
                 (doc, *columns))
    tally.add(NAMES, doc or 0, columns)
    rows = []
    for link in page.links:
        dst, asset = resolver.resolve(link.target, path)
        rows.append((doc, link.target, link.heading, link.label, int(link.embed), link.line,
                     link.context, dst, asset or ""))
    conn.executemany(
        "INSERT INTO links (src, target, heading, label, embed, line, context, dst, asset) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT id FROM docs WHERE path = ?), ?)", rows)


def meta_text(path: str, page: Page | sqlite3.Row, index_line: str) -> str:
    """The second field: the catalog's line, description, tags, aliases, the file name."""
    if not isinstance(page, sqlite3.Row):
        description, tags, aliases = page.description, page.tags, page.aliases
    else:
        description = page["description"]
        tags, aliases = json.loads(page["tags"]), json.loads(page["aliases"])
    name = PurePosixPath(path).stem.replace("-", " ").replace("_", " ")
    return "\n".join([index_line, description, " ".join(tags), " ".join(aliases), name])


def _index_lines(conn: sqlite3.Connection, only: set[str] | None, *,
                 tally: leaders.Tally) -> None:
    """Set each page's index_line from the catalog lines that link it; rewrite the search row
    of every page whose line changed."""
    where = "" if only is None else \
        f"WHERE path IN ({','.join('?' * len(only))})"
    params = tuple(only or ())
    # The catalog lines of the pages asked about only: a catalog listing every page of a
    # 5,000-page wiki was read whole on each sync that rewrote ten of them.
    linked = "" if only is None else f"AND l.dst IN (SELECT id FROM docs {where})"
    lines: dict[int, list[str]] = {}
    for dst, context in conn.execute(
            "SELECT l.dst, l.context FROM links l JOIN docs s ON s.id = l.src "
            "WHERE s.catalog = 1 AND l.dst IS NOT NULL AND l.dst != l.src AND l.embed = 0 "
            f"{linked} ORDER BY s.path, l.line", params):
        bucket = lines.setdefault(dst, [])
        if context and context not in bucket:
            bucket.append(context)
    for row in conn.execute(f"SELECT * FROM docs {where}", params).fetchall():
        line = " · ".join(lines.get(row["id"], []))[:MAX_INDEX_LINE]
        if line == row["index_line"]:  # a page just (re)written has '' in both places
            continue
        conn.execute("UPDATE docs SET index_line = ? WHERE id = ?", (line, row["id"]))
        old = conn.execute("SELECT title, meta, body FROM docs_fts WHERE rowid = ?",
                           (row["id"],)).fetchone()
        tally.drop(NAMES, row["id"], tuple(old))
        columns = (old[0], index_text(meta_text(row["path"], row, line)), old[2])
        conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (row["id"],))
        conn.execute("INSERT INTO docs_fts (rowid, title, meta, body) VALUES (?, ?, ?, ?)",
                     (row["id"], *columns))
        tally.add(NAMES, row["id"], columns)


def sync_for_read(kb: KbIndex, deadline: float) -> Synced:
    """The sync before a read: changed pages re-read (newest first) within the budget; in a
    process that keeps its readers, with what a watcher saw change."""
    from solograph import readers

    watched = None
    if readers.keeping():
        from solograph import watching

        watched = watching.changes(str(kb.root))
    report = sync(kb, max_bytes=kb.settings.max_file_bytes, deadline=deadline,
                  trust_folders=True, watched=watched)
    if watched and not report.pending:
        watching.settle(str(kb.root), watched)
    return Synced(pending=report.pending, unreadable=report.unreadable)


def index_kb(settings: Settings) -> dict:
    """The write job: bring the index level with its folder (the first run reads every page;
    later runs re-read what changed); report what it holds."""
    kb = open_kb(settings.home, configured(settings), settings=settings)
    try:
        report = sync(kb, max_bytes=settings.max_file_bytes).to_dict()
        report["kb"] = str(kb.root)
        report["index"] = str(settings.kb_db)
        report["pages_folder"] = kb.layout.pages or "."
        report["warnings"] = missing_folders(kb.root, kb.layout)
        report["summary"] = (
            f"{report['docs']} documents ({report['pages']} in {report['pages_folder']}/), "
            f"{report['read']} read, {report['deleted']} dropped in {report['seconds']} s"
            + (f"; {report['touched']} with a new mtime and the same bytes, not read again"
               if report["touched"] else "")
            + (f"; {report['problems']} with problems (see `solograph kb-graph --check`)"
               if report["problems"] else "")
            + (f"; {len(report['huge'])} too large to index" if report["huge"] else "")
            + (f"; {len(report['outside'])} links leaving the KB not followed"
               if report["outside"] else "")
            + (f"; {report['unreadable']} unreadable" if report["unreadable"] else "")
            + "".join(f"\nwarning: {w}" for w in report["warnings"]))
        return report
    finally:
        kb.close()


def rebuild(settings: Settings) -> dict:
    """Every page read again from the folder, which writes its full-text rows anew."""
    kb = open_kb(settings.home, configured(settings), settings=settings)
    try:
        with transaction(kb.conn):
            kb.conn.execute("UPDATE docs SET size = -1")
        report = sync(kb, max_bytes=settings.max_file_bytes)
        return {"index": STORE, "rows": report.docs,
                "summary": f"kb: {report.docs} documents, {report.read} read again"}
    finally:
        kb.close()
