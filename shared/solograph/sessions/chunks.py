"""Chunks: the documents of the full-text index.

A chunk is a run of consecutive entries of one file, of one session, holding up to CHUNK_CHARS
characters of stems. Ranking thousands of chunks is fast where ranking every message would
not be (BM25 scores every match), and a chunk is small enough that a transcript growing by a
line rewrites only its last chunk. Chunk boundaries depend only on the file's lines, so an
index read in several syncs holds the same chunks as one read at once.

A chunk has two columns: `asked`, the stems of what the user typed (prompts and commands of
the main conversation; a sub-agent's prompt is written by the agent), and `said`, everything
else (replies, tool calls, summaries, notices). People remember what they asked; BM25 weighs
`asked` more (search.py).

`chunks_fts` is contentless: the text of a chunk is always the entries' words joined in line
order, per column, and a row is deleted by giving that text back. Every write to
entries.words goes through this module so the two never disagree; `rebuild` recreates the
index from entries.
"""

from __future__ import annotations

import sqlite3

CHUNK_CHARS = 24_000
ASKED = ("prompt", "command")  # entry kinds whose words go to the `asked` column

Text = tuple[str, str]  # (asked, said)


def join(parts: list[tuple[bool, str]]) -> Text:
    """The two columns of a chunk from its entries' (asked?, words), in line order."""
    return (" ".join(w for asked, w in parts if asked),
            " ".join(w for asked, w in parts if not asked))


def asked(kind: str, sidechain: bool) -> bool:
    """Whether an entry's words go to the `asked` column: the user's own words."""
    return kind in ASKED and not sidechain


def chunk_text(conn: sqlite3.Connection, chunk_id: int) -> Text:
    return join([(asked(kind, side), words) for kind, side, words in conn.execute(
        "SELECT kind, sidechain, words FROM entries WHERE chunk = ? ORDER BY seq",
        (chunk_id,))])


def fts_insert(conn: sqlite3.Connection, chunk_id: int, text: Text) -> None:
    conn.execute("INSERT INTO chunks_fts (rowid, asked, said) VALUES (?, ?, ?)",
                 (chunk_id, *text))


def fts_delete(conn: sqlite3.Connection, chunk_id: int, text: Text) -> None:
    conn.execute("INSERT INTO chunks_fts (chunks_fts, rowid, asked, said) "
                 "VALUES ('delete', ?, ?, ?)", (chunk_id, *text))


def drop_chunks(conn: sqlite3.Connection, where: str, params: tuple) -> None:
    """Remove the chunks matching `where` (over chunks), their index rows and their entries."""
    ids = [r[0] for r in conn.execute(f"SELECT id FROM chunks WHERE {where}", params)]
    for chunk_id in ids:
        fts_delete(conn, chunk_id, chunk_text(conn, chunk_id))
        conn.execute("DELETE FROM entries WHERE chunk = ?", (chunk_id,))
        conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))


def rebuild(conn: sqlite3.Connection) -> int:
    """Recreate chunks_fts from entries; returns the number of chunks indexed."""
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    for chunk_id in ids:
        fts_insert(conn, chunk_id, chunk_text(conn, chunk_id))
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
    return len(ids)


class ChunkWriter:
    """Appends entries of one file to its chunks, keeping chunks_fts in step.

    The file's last chunk stays open for appends: its index row is deleted when an entry joins
    it and written again by `flush`, which must run before every commit.
    """

    def __init__(self, conn: sqlite3.Connection, file_id: int) -> None:
        self.conn = conn
        self.file_id = file_id
        self.id = 0
        self.session = 0
        self.seq = -1
        self.parts: list[tuple[bool, str]] = []
        self.size = 0
        self.count = 0
        self.indexed: Text | None = None  # the text chunks_fts holds for the open chunk
        row = conn.execute("SELECT id, session, seq, size, entries FROM chunks "
                           "WHERE file_id = ? ORDER BY seq DESC LIMIT 1", (file_id,)).fetchone()
        if row is not None:
            self.id, self.session, self.seq, self.size, self.count = row
            self.parts = [(asked(kind, side), words) for kind, side, words in conn.execute(
                "SELECT kind, sidechain, words FROM entries WHERE chunk = ? ORDER BY seq",
                (self.id,))]
            self.indexed = join(self.parts)

    def chunk_for(self, session: int, size: int) -> int:
        """The chunk the next entry (of `size` characters of stems) goes into."""
        full = self.size > 0 and self.size + size > CHUNK_CHARS
        if self.id == 0 or session != self.session or full:
            self.flush()
            self.seq += 1
            self.session = session
            self.id = self.conn.execute(
                "INSERT INTO chunks (session, file_id, seq, size) VALUES (?, ?, ?, 0)",
                (session, self.file_id, self.seq)).lastrowid
            self.parts, self.size, self.count, self.indexed = [], 0, 0, None
        return self.id

    def add(self, kind: str, sidechain: bool, words: str) -> None:
        """Record that an entry with `words` was stored in the current chunk."""
        if self.indexed is not None:
            fts_delete(self.conn, self.id, self.indexed)
            self.indexed = None
        self.parts.append((asked(kind, sidechain), words))
        self.size += len(words) + 1
        self.count += 1

    def flush(self) -> None:
        """Write the open chunk's index row and size; call before every commit."""
        if self.id and self.indexed is None:
            text = join(self.parts)
            fts_insert(self.conn, self.id, text)
            self.conn.execute("UPDATE chunks SET size = ?, entries = ? WHERE id = ?",
                              (self.size, self.count, self.id))
            self.indexed = text

