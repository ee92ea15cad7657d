"""The session index's part of the meaning lane: windows of conversation, keyed to chunks.

What is embedded is what the user and the assistant wrote (prompts, commands, replies with
their thinking; sub-agents' too, their files have chunks of their own), never tool results,
tool arguments, compaction summaries or notices, and always the stored text: `entries.text`
is redacted before it is stored, and the chunk's full-text row is made of the same text's
stems. A chunk's messages are cut into windows of up to WINDOW_CHARS, in line order, each
window after the first opening with the previous window's last message when that one is
short (the question a reply answers, the reply a "yes, do it" follows), so a message keeps its
neighbours. A long message is cut at spaces into pieces that leave room for that context.
Windows depend only on the chunk's messages, and a chunk that grows (a live transcript's last
chunk) changes only its last window: only that one is embedded again.

A chunk is done when each of its windows has a vector of the model (`chunk_embedded` records
how many entries it had then); a chunk that grew, or whose text was redacted again (the
migration's trigger drops its vectors), is pending again.

`SEARCH` is session_search's meaning side: sessions ranked by their best window, fused with
the lexical ranking; a session found by meaning alone is shown at the message of that window
holding the most query words.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass

from solograph.semantic.answers import Meaning, merge, words_only
from solograph.semantic.embedder import DIM
from solograph.semantic.fusion import MEANING
from solograph.semantic.lane import StoreLane, allowed_by
from solograph.semantic.work import Item, Work, check_vectors, digest
from solograph.store import transaction

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from solograph.config import Settings

STORE = "sessions"
KINDS = ("prompt", "command", "reply")
WINDOW_CHARS = 900
CONTEXT_CHARS = 300  # a window's last message at most this long opens the next one too
_SPACE = re.compile(r"\s+")
_KIND_MARKS = ",".join("?" * len(KINDS))
# The messages a window is made of, of one chunk, in line order.
_MESSAGES = (f"FROM entries WHERE chunk = ? AND kind IN ({_KIND_MARKS}) AND text != '' ")
_PENDING = ("FROM chunks c LEFT JOIN chunk_embedded e ON e.chunk = c.id "
            "WHERE e.chunk IS NULL OR e.entries != c.entries OR e.model != ?")


@dataclass(frozen=True)
class Window:
    text: str
    span: tuple[int, int]


def pieces(text: str, size: int = WINDOW_CHARS - CONTEXT_CHARS) -> list[str]:
    """`text` with runs of white space folded, cut at spaces into pieces of at most `size`."""
    flat = _SPACE.sub(" ", text).strip()
    out = []
    while len(flat) > size:
        cut = flat.rfind(" ", size // 2, size + 1)
        cut = cut if cut > 0 else size
        out.append(flat[:cut].strip())
        flat = flat[cut:].strip()
    if flat:
        out.append(flat)
    return out


def windows(messages: list[tuple[int, str]]) -> list[Window]:
    """The windows of a chunk's messages, (entries.seq, text) in line order."""
    parts = [(seq, p) for seq, text in messages for p in pieces(text)]
    out: list[Window] = []
    i = 0
    while i < len(parts):
        group = [parts[i]]
        size = len(parts[i][1])
        j = i + 1
        while j < len(parts) and size + 1 + len(parts[j][1]) <= WINDOW_CHARS:
            size += 1 + len(parts[j][1])
            group.append(parts[j])
            j += 1
        if out and i > 0 and len(parts[i - 1][1]) <= CONTEXT_CHARS \
                and size + 1 + len(parts[i - 1][1]) <= WINDOW_CHARS:
            group.insert(0, parts[i - 1])
        out.append(Window("\n".join(p for _, p in group), (group[0][0], group[-1][0])))
        i = j
    return out


def chunk_windows(conn: sqlite3.Connection, chunk: int) -> list[Window]:
    return windows([(seq, text) for seq, text in conn.execute(
        f"SELECT seq, text {_MESSAGES}ORDER BY seq", (chunk, *KINDS))])


class SessionsLane(StoreLane):
    store = STORE

    def writer(self, settings: Settings):
        from solograph.sessions.store import open_index

        return closing(open_index(settings.sessions_db))

    def pending_count(self, conn: sqlite3.Connection, model: str) -> int:
        return conn.execute(f"SELECT COUNT(*) {_PENDING}", (model,)).fetchone()[0]

    def collect(self, conn: sqlite3.Connection, model: str, *, limit: int) -> Work:
        """Up to `limit` windows that lack a vector, newest chunks first."""
        work = Work(STORE, model)
        for chunk, entries in conn.execute(
                f"SELECT c.id, c.entries {_PENDING} ORDER BY c.id DESC LIMIT ?",
                (model, limit)).fetchall():
            wins = chunk_windows(conn, chunk)
            have = dict(conn.execute("SELECT part, digest FROM chunk_vectors "
                                     "WHERE chunk = ? AND model = ?", (chunk, model)).fetchall())
            digests = [digest(w.text) for w in wins]
            work.plans[chunk] = (entries, digests)
            for part, (w, d) in enumerate(zip(wins, digests, strict=True)):
                if have.get(part) != d and len(work.items) < limit:
                    work.items.append(Item(chunk, part, w.text, d, w.span))
            if len(work.items) >= limit:
                break
        return work

    def save(self, conn: sqlite3.Connection, work: Work, vectors: np.ndarray) -> int:
        from solograph.semantic import matrix as mx

        check_vectors(work, vectors, DIM)
        wrote = 0
        with transaction(conn):
            current = {}
            for chunk in work.plans:
                row = conn.execute("SELECT entries FROM chunks WHERE id = ?",
                                   (chunk,)).fetchone()
                if row is not None and row[0] == work.plans[chunk][0]:
                    current[chunk] = work.plans[chunk][1]
            for item, blob in zip(work.items, mx.encode(vectors), strict=True):
                if item.unit not in current:  # changed or gone since collect
                    continue
                conn.execute(
                    "INSERT INTO chunk_vectors (chunk, part, first_seq, last_seq, digest, model, "
                    "vector) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chunk, part) "
                    "DO UPDATE SET first_seq = excluded.first_seq, last_seq = excluded.last_seq, "
                    "digest = excluded.digest, model = excluded.model, vector = excluded.vector",
                    (item.unit, item.part, *item.span, item.digest, work.model, blob))
                wrote += 1
            for chunk, digests in current.items():
                conn.execute("DELETE FROM chunk_vectors WHERE chunk = ? AND part >= ?",
                             (chunk, len(digests)))
                have = dict(conn.execute(
                    "SELECT part, digest FROM chunk_vectors WHERE chunk = ? AND model = ?",
                    (chunk, work.model)).fetchall())
                if all(have.get(p) == d for p, d in enumerate(digests)):
                    conn.execute(
                        "INSERT INTO chunk_embedded (chunk, entries, model) VALUES (?, ?, ?) "
                        "ON CONFLICT (chunk) DO UPDATE SET entries = excluded.entries, "
                        "model = excluded.model", (chunk, work.plans[chunk][0], work.model))
        return wrote

    def vector_rows(self, conn: sqlite3.Connection, model: str):
        return conn.execute("SELECT v.id, c.session, v.vector FROM chunk_vectors v "
                            "JOIN chunks c ON c.id = v.chunk WHERE v.model = ?", (model,))

    def meaning_rank(self, conn: sqlite3.Connection, query_vector, limit: int, *, model: str,
                     where: str = "", params: tuple = ()) -> list[dict]:
        """Sessions by the cosine of their best window with `query_vector` (made by `model`),
        best first; `where`/`params` is an SQL condition over `s` (sessions), as
        sessions.search.Scope gives it. Each hit names its best window (chunk, and
        entries.seq of its first and last message) for the snippet."""
        allowed = allowed_by(conn, f"SELECT s.id FROM sessions s WHERE {where}",
                             params) if where else None
        out = []
        for session, score, row in self.matrix(conn, model).rank(query_vector, limit, allowed):
            found = conn.execute("SELECT chunk, first_seq, last_seq FROM chunk_vectors "
                                 "WHERE id = ?", (row,)).fetchone()
            if found is not None:  # None: deleted since the matrix was read
                out.append({"unit": session, "score": score, "chunk": found[0],
                            "span": (found[1], found[2])})
        return out


LANE = SessionsLane()


class SessionSearch(Meaning):
    """session_search: sessions ranked; a session read whole (`session`) is not fused."""

    TIER = ("phrase", "all", "respelled")

    def query(self, params: dict) -> str:
        return "" if params.get("session") else super().query(params)

    def fuse(self, handle: Any, answer: dict, vector, model: str, *, query: str,
             project: str | None = None, limit: int = 10, session: str | None = None,
             exclude_session: str | None = None, agent: str | None = None) -> dict:
        if session or "results" not in answer:
            return answer
        if vector is None:
            return words_only(answer)
        from solograph.sessions.search import project_scope

        conn = handle.conn
        scope = project_scope(project or "", exclude=exclude_session, agent=agent)
        found = LANE.meaning_rank(conn, vector, limit, model=model, where=scope.where,
                                  params=scope.params)
        keys = _session_keys(conn, [h["unit"] for h in found])
        where = {keys[h["unit"]]: h for h in found if h["unit"] in keys}
        results = answer["results"]
        return merge(answer, [h["session"] for h in results], list(where), limit=limit,
                     tier=[h["session"] for h in results if h["match"] in self.TIER],
                     query=query, lexical={h["session"]: h for h in results},
                     render=lambda key: session_hit(conn, query, where[key]))


def _session_keys(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return dict(conn.execute(f"SELECT id, session_id FROM sessions WHERE id IN ({marks})",
                             ids).fetchall())


def session_hit(conn: sqlite3.Connection, query: str, found: dict) -> dict | None:
    """A session found by meaning: at the message of its best window holding the most query
    words (its first message when none does)."""
    from solograph.sessions.search import describe, session_row
    from solograph.sessions.snippets import matched, snippet
    from solograph.text.tokens import query_terms

    row = session_row(conn, found["unit"])
    if row is None:
        return None
    stems = query_terms(query, prose=True)
    first, last = found["span"]
    best, best_count = None, -1
    for text, tools, words in conn.execute(
            f"SELECT text, tools, words {_MESSAGES}AND seq BETWEEN ? AND ? ORDER BY seq",
            (found["chunk"], *KINDS, first, last)):
        count = matched(words, stems, lambda s: (s,))
        if count > best_count:
            best, best_count = (text, tools), count
    return {**describe(row), "snippet": snippet(best[0], best[1], stems) if best else "",
            "score": 0.0, "match": MEANING}


SEARCH = SessionSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
