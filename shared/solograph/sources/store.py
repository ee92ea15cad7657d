"""The sources index: one writer path for every source, and the reader every answer uses.

Everything a source stores goes through `put` (documents) and `put_video` (videos and their
tags); both redact every text first, and `open_store` re-redacts an index written under older
rules. Documents are upserted by key, so a crawl that parses less than before never removes
what an earlier one indexed: only `delete` removes.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from solograph.errors import BadQuery, NotFound, NotIndexed
from solograph.freshness import iso
from solograph.index import Handle
from solograph.sources import SOURCES
from solograph.sources.topics import seed_topics, set_tags
from solograph.store import connect_reader, connect_writer, reclean, stored_rules, transaction
from solograph.text.secrets import RULES_VERSION, redact
from solograph.text.tokens import index_text

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

STORE = "sources"
HINT = ("index a source first: `solograph sources index-youtube URL`, "
        "`solograph sources import-telegram result.json` or `solograph sources crawl producthunt`")
# Upvotes at which the ranking nudge is full (+15%); it grows with log10 of the count.
FULL_NUDGE_UPVOTES = 10_000
SOURCE_NAME = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass
class Document:
    """One searchable item: `source`/`id` is its key."""

    source: str
    id: str
    title: str
    url: str = ""
    text: str = ""
    date: str = ""
    metadata: dict = field(default_factory=dict)
    video: str | None = None
    upvotes: int | None = 0  # None: keep what is stored (a page that lost its vote count)

    @property
    def key(self) -> str:
        return f"{self.source}/{self.id}"


def nudge(upvotes: int) -> float:
    """0..1: how far upvotes lift a document (log scale, full at FULL_NUDGE_UPVOTES)."""
    if upvotes <= 0:
        return 0.0
    return min(1.0, math.log10(1 + upvotes) / math.log10(1 + FULL_NUDGE_UPVOTES))


def redact_value(value: object) -> object:
    """Every string inside a JSON-like value, redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value


def check_source(source: str) -> str:
    if not source or not set(source) <= SOURCE_NAME:
        raise BadQuery(f"bad source name {source!r}",
                       hint=f"a source is a lowercase word: {', '.join(SOURCES)}")
    return source


# --------------------------------------------------------------------------- connections


def open_store(path: Path) -> sqlite3.Connection:
    """A writer on the sources index: migrated, topics seeded, redacted by current rules."""
    conn = connect_writer(path, STORE)
    try:
        ensure_clean(conn)
        seed_topics(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection; an index cleaned by older rules is cleaned first."""
    try:
        conn = connect_reader(path, STORE)
    except NotIndexed:
        raise NotIndexed(f"no sources indexed yet (no index at {path})", hint=HINT) from None
    if (stored_rules(conn) or 0) < RULES_VERSION:
        conn.close()
        open_store(path).close()
        conn = connect_reader(path, STORE)
    return conn


def opened(settings: Settings) -> closing[Handle]:
    """A read-only handle for one read."""
    return closing(Handle(open_reader(settings.sources_db), settings))


def as_of(conn: sqlite3.Connection) -> str | None:
    """The last crawl or import run, else the newest document's date."""
    run = conn.execute("SELECT MAX(finished_at) FROM runs").fetchone()[0]
    if run is not None:
        return iso(run)
    return iso(conn.execute("SELECT MAX(date) FROM documents WHERE date != ''").fetchone()[0])


@contextmanager
def writing(path: Path) -> Iterator[sqlite3.Connection]:
    conn = open_store(path)
    try:
        yield conn
    finally:
        conn.close()


# --------------------------------------------------------------------------- writes


def put(conn: sqlite3.Connection, docs: Iterable[Document]) -> int:
    """Insert or replace documents by key, redacted; returns how many were written."""
    now = time.time()
    count = 0
    with transaction(conn):
        for doc in docs:
            check_source(doc.source)
            if not doc.id or "/" in doc.id:
                raise BadQuery(f"bad document id {doc.id!r} for {doc.source}",
                               hint="an id is one path segment: no '/'")
            title, text = redact(doc.title.strip()), redact(doc.text.strip())
            meta = json.dumps(redact_value(doc.metadata), ensure_ascii=False,
                              separators=(",", ":"), sort_keys=True)
            conn.execute(
                "INSERT INTO documents (key, source, title, url, text, date, metadata, video, "
                "upvotes, nudge, indexed_at, title_words, words) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                "title = excluded.title, url = excluded.url, text = excluded.text, "
                "date = excluded.date, metadata = excluded.metadata, video = excluded.video, "
                "upvotes = CASE WHEN ? THEN documents.upvotes ELSE excluded.upvotes END, "
                "nudge = CASE WHEN ? THEN documents.nudge ELSE excluded.nudge END, "
                "indexed_at = excluded.indexed_at, title_words = excluded.title_words, "
                "words = excluded.words",
                (doc.key, doc.source, title, redact(doc.url), text, doc.date, meta, doc.video,
                 max(0, int(doc.upvotes or 0)), nudge(doc.upvotes or 0), now, index_text(title),
                 index_text(text), doc.upvotes is None, doc.upvotes is None))
            count += 1
    return count


def put_video(conn: sqlite3.Connection, video: dict, chunks: list[Document],
              tags: dict[str, float]) -> None:
    """One video, its chunks and its tags, replacing whatever was stored for it."""
    vid = video["video"]
    with transaction(conn):
        conn.execute("DELETE FROM documents WHERE video = ?", (vid,))
        conn.execute(
            "INSERT INTO videos (video, title, channel, url, date, duration, description, "
            "subtitles, chapters, chunks, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (video) DO UPDATE SET title = excluded.title, "
            "channel = excluded.channel, url = excluded.url, date = excluded.date, "
            "duration = excluded.duration, description = excluded.description, "
            "subtitles = excluded.subtitles, chapters = excluded.chapters, "
            "chunks = excluded.chunks, indexed_at = excluded.indexed_at",
            (vid, redact(video.get("title", "")), redact(video.get("channel", "")),
             video.get("url", ""), video.get("date", ""), float(video.get("duration") or 0),
             redact(video.get("description", "")), video.get("subtitles", ""),
             int(video.get("chapters", 0)), len(chunks), time.time()))
        set_tags(conn, vid, tags)
    put(conn, chunks)


def record_run(conn: sqlite3.Connection, source: str, target: str, started: float,
               indexed: int, problems: list[dict]) -> None:
    with transaction(conn):
        conn.execute("INSERT INTO runs (source, target, started_at, finished_at, indexed, "
                     "problems) VALUES (?, ?, ?, ?, ?, ?)",
                     (source, target, started, time.time(), indexed,
                      json.dumps(redact_value(problems), ensure_ascii=False)))


def delete(conn: sqlite3.Connection, key: str) -> dict:
    """Remove `source/id`: one document, or a video with all its chunks and tags; a bare
    `source` removes the whole source (its documents, videos, tags and runs)."""
    source, _, ident = key.strip().strip("/").partition("/")
    if not source:
        raise BadQuery(f"expected SOURCE or SOURCE/ID, got {key!r}",
                       hint="take the `id` of a search result, e.g. youtube/dQw4w9WgXcQ, "
                            "or a source from `solograph sources list`")
    if not ident:
        return _delete_source(conn, check_source(source))
    with transaction(conn):
        docs = conn.execute("DELETE FROM documents WHERE key = ?", (key,)).rowcount
        videos = 0
        if source == "youtube":
            docs += conn.execute("DELETE FROM documents WHERE video = ?", (ident,)).rowcount
            videos = conn.execute("DELETE FROM videos WHERE video = ?", (ident,)).rowcount
    if not docs and not videos:
        raise NotFound(f"nothing stored under {key!r}",
                         hint="list what a source holds with `solograph sources list -s SOURCE`")
    return {"deleted": key, "documents": docs, "videos": videos}


def _delete_source(conn: sqlite3.Connection, source: str) -> dict:
    with transaction(conn):
        docs = conn.execute("DELETE FROM documents WHERE source = ?", (source,)).rowcount
        videos = 0
        if source == "youtube":
            conn.execute("DELETE FROM video_tags")
            videos = conn.execute("DELETE FROM videos").rowcount
        runs = conn.execute("DELETE FROM runs WHERE source = ?", (source,)).rowcount
    if not docs and not videos and not runs:
        raise NotFound(f"the index holds nothing from {source!r}",
                       hint="list the sources with `solograph sources list`")
    return {"deleted": source, "documents": docs, "videos": videos}


# --------------------------------------------------------------------------- re-redaction


def ensure_clean(conn: sqlite3.Connection) -> int:
    """Redact every stored text again when the index predates the current rules; returns the
    number of rows that changed."""
    return reclean(conn, _reredact, version=RULES_VERSION)


def _reredact(conn: sqlite3.Connection) -> int:
    changed = 0
    for row in conn.execute("SELECT id, title, url, text, metadata FROM documents").fetchall():
        title, url, text = redact(row["title"]), redact(row["url"]), redact(row["text"])
        meta = json.dumps(redact_value(json.loads(row["metadata"] or "{}")), ensure_ascii=False,
                          separators=(",", ":"), sort_keys=True)
        if (title, url, text, meta) != (row["title"], row["url"], row["text"], row["metadata"]):
            conn.execute("UPDATE documents SET title = ?, url = ?, text = ?, metadata = ?, "
                         "title_words = ?, words = ? WHERE id = ?",
                         (title, url, text, meta, index_text(title), index_text(text),
                          row["id"]))
            changed += 1
    for row in conn.execute("SELECT video, title, channel, description FROM videos").fetchall():
        clean = [redact(row[c]) for c in ("title", "channel", "description")]
        if clean != [row["title"], row["channel"], row["description"]]:
            conn.execute("UPDATE videos SET title = ?, channel = ?, description = ? "
                         "WHERE video = ?", (*clean, row["video"]))
            changed += 1
    for row in conn.execute("SELECT id, problems FROM runs").fetchall():
        problems = json.dumps(redact_value(json.loads(row["problems"] or "[]")),
                              ensure_ascii=False)
        if problems != row["problems"]:
            conn.execute("UPDATE runs SET problems = ? WHERE id = ?", (problems, row["id"]))
            changed += 1
    if changed:
        conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('optimize')")
    return changed


def db_path(settings: Settings) -> Path:
    return settings.sources_db


def rebuild(settings: Settings) -> dict:
    """The documents' full-text table made again from the documents, then optimised."""
    with writing(settings.sources_db) as conn, transaction(conn):
        conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('rebuild')")
        conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('optimize')")
        rows = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    return {"index": STORE, "rows": rows, "summary": f"sources: {rows} documents"}
