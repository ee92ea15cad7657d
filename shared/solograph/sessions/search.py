"""Session search: the sessions holding every word of the query first, then the rest by BM25.

Every query word is stemmed and searched as a prefix ("indexing" finds "index", "графами"
finds "граф"). A word found in fewer than three chunks is also searched as its neighbour in the
index's vocabulary (text/spelling.py). Sessions come in three passes, in turn:

1. every word as written, somewhere in the session;
2. every word in either spelling (so a session holding the typo verbatim still comes first);
3. any word.

Within a pass, sessions are ordered by the BM25 score of their best chunk. The session asking
(when the client says which it is) is left out: its own prompt holds the very words searched.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from solograph.sessions.snippets import best_entry, snippet
from solograph.text.spelling import respell
from solograph.text.tokens import fts_term, match_any, query_terms

MAX_LIMIT = 100
MATCH = ("all", "respelled", "some")
# What the user typed counts more than what was said back: people remember what they asked.
BM25 = "bm25(chunks_fts, 3.0, 1.0)"


@dataclass(frozen=True)
class Terms:
    """A query's stems and, for each, the neighbour also searched (or None)."""

    stems: tuple[str, ...]
    respelled: dict[str, str]

    def spellings(self, stem: str) -> tuple[str, ...]:
        alt = self.respelled.get(stem)
        return (stem, alt) if alt else (stem,)

    @property
    def all(self) -> list[str]:
        return list(dict.fromkeys(s for stem in self.stems for s in self.spellings(stem)))


def terms_of(conn: sqlite3.Connection, query: str) -> Terms:
    stems = tuple(query_terms(query, prose=True))
    respelled = {}
    for stem in stems:
        alt = respell(conn, "chunks_fts", "chunks_vocab", stem)
        if alt and alt != stem:
            respelled[stem] = alt
    return Terms(stems, respelled)


@dataclass(frozen=True)
class Scope:
    """Which sessions a search may return: an SQL condition over `s` (sessions)."""

    where: str = ""
    params: tuple = ()


def search(conn: sqlite3.Connection, query: str, *, limit: int = 10,
           scope: Scope = Scope()) -> tuple[Terms, list[dict]]:
    """The ranked sessions for `query`; each hit is a dict ready for the answer."""
    limit = max(1, min(limit, MAX_LIMIT))
    terms = terms_of(conn, query)
    where = f"AND {scope.where}" if scope.where else ""
    best: dict[int, tuple[float, int]] = {}  # session -> (rank, chunk); rank: lower is better
    owner: dict[int, int] = {}  # chunk -> session
    for chunk, session, rank in conn.execute(
            f"SELECT c.id, c.session, {BM25} FROM chunks_fts "
            "JOIN chunks c ON c.id = chunks_fts.rowid JOIN sessions s ON s.id = c.session "
            f"WHERE chunks_fts MATCH ? {where}", (match_any(terms.all), *scope.params)):
        owner[chunk] = session
        if session not in best or rank < best[session][0]:
            best[session] = (rank, chunk)
    if not best:
        return terms, []
    holding: dict[str, set[int]] = {}
    for term in terms.all:
        holding[term] = {owner[r[0]] for r in conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (fts_term(term),))
            if r[0] in owner}
    as_written = set.intersection(*(holding[s] for s in terms.stems))
    either = set.intersection(*(set().union(*(holding[x] for x in terms.spellings(s)))
                                for s in terms.stems))

    def tier(session: int) -> int:
        return 0 if session in as_written else 1 if session in either else 2

    ranked = sorted(((tier(s), rank, s, chunk) for s, (rank, chunk) in best.items()))[:limit]
    return terms, [_hit(conn, terms, t, rank, s, chunk) for t, rank, s, chunk in ranked]


def _hit(conn: sqlite3.Connection, terms: Terms, tier: int, rank: float, session: int,
         chunk: int) -> dict:
    row = conn.execute(
        "SELECT s.*, EXISTS (SELECT 1 FROM files f WHERE f.session_id = s.session_id "
        "AND f.kind = 'main' AND f.status = 'live') AS live FROM sessions s WHERE s.id = ?",
        (session,)).fetchone()
    entry = best_entry(conn, chunk, terms.stems, terms.spellings)
    return {
        **describe(row),
        "snippet": snippet(entry["text"], entry["tools"], terms.all) if entry else "",
        "score": max(round(-rank, 4), 0.0001),
        "match": MATCH[tier],
    }


def describe(row: sqlite3.Row) -> dict:
    """The fields every answer gives about a session (row: sessions.* plus `live`)."""
    live = bool(row["live"])
    return {
        "session": row["session_id"],
        "project": project_name(row["cwd"]),
        "cwd": row["cwd"],
        "title": row["title"],
        "first": row["first_at"],
        "last": row["last_at"],
        "messages": row["messages"],
        "archived": not live,
        "transcript": "live" if live else "deleted",
        "resume": resume_command(row["session_id"], row["cwd"]) if live else None,
    }


def resume_command(session_id: str, cwd: str) -> str:
    """`cd '<folder>' && claude --resume ID`: Claude Code finds a session from the folder it
    started in, so the command works from anywhere."""
    if not cwd:
        return f"claude --resume {session_id}"
    return "cd '" + cwd.replace("'", "'\\''") + f"' && claude --resume {session_id}"


def project_name(cwd: str) -> str:
    return cwd.rstrip("/").rsplit("/", 1)[-1] if cwd else ""


def project_scope(name: str, *, exclude: str | None = None) -> Scope:
    """Sessions whose folder is the project or inside it: `-p spotter` takes
    /home/me/spotter and /home/me/spotter/assets, by the folder's name."""
    parts, params = [], []
    if name:
        parts.append("(s.cwd LIKE ? ESCAPE '\\' OR s.cwd LIKE ? ESCAPE '\\' "
                     "OR s.cwd = ? COLLATE NOCASE)")
        esc = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params += [f"%/{esc}", f"%/{esc}/%", name]
    if exclude:
        parts.append("s.session_id != ?")
        params.append(exclude)
    return Scope(" AND ".join(parts), tuple(params))
