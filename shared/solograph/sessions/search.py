"""Session search: the sessions holding every word of the query first, then the rest by BM25.

Every query word is stemmed and searched as a prefix ("indexing" finds "index", "графами"
finds "граф"). A word found in fewer than three chunks is also searched as its neighbour in the
index's vocabulary (text/spelling.py); a long run-together word the index lacks is also
searched as the words it is made of (`parsehttpresponse` as the phrase parse http response,
text/ids.py). Sessions come in passes, in turn:

1. the query as one phrase, when it is a few words around an identifier (`spotter 4te 2`);
2. each identifier as a phrase of its parts (`spotter_0p7`, `annotation-message-ref`: parts
   alone match anywhere), every other word somewhere in the session;
3. each rare identifier (a phrase or a run-together word held by at most a quarter of the
   sessions), whatever other words the session lacks: it outweighs the ordinary words;
4. every word as written, somewhere in the session;
5. every word in either spelling (so a session holding the typo verbatim still comes first);
6. any word (for a query naming an identifier, those holding more of its IDF weight first).

Within a pass, a session where one message holds every word comes first, then one where one
chunk (a window of the conversation) does, then the rest: sibling sessions of one project
share their vocabulary, and the one that discussed the thing holds its words together. The
BM25 score of a session's best chunk orders the rest. The session asking (when the client says
which it is) is left out: its own prompt holds the very words searched.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable

from solograph.frozen import Frozen
from solograph.limits import bounded
from solograph.sessions.snippets import best_entry, holding_sql, snippet
from solograph.store import like_escape
from solograph.text.ids import MIN_RUN, phrases, split_run
from solograph.text.spelling import doc_count, respell
from solograph.text.tokens import fts_term, query_terms, stem, words

MAX_LIMIT = 100
MATCH = ("phrase", "phrase", "phrase", "all", "respelled", "some")
RARE_ID = 0.25  # an identifier held by at most this share of the sessions names its session
NEAR_CHUNKS = 400  # one_message: the chunks holding every word it looks at, at most
NEAR_SESSIONS = 3  # sessions looked at per result asked for
NEAR_READ = 3  # chunks of one session whose messages are read
# What the user typed counts more than what was said back: people remember what they asked.
BM25 = "bm25(chunks_fts, 3.0, 1.0)"


class Terms(Frozen):
    """A query's stems and, for each, the other spelling also searched (or None): a
    neighbour in the vocabulary, or a phrase of the words a run-together word is made of;
    and the phrases of its identifiers, the whole query's first (text/ids.py)."""

    stems: tuple[str, ...]
    respelled: dict[str, str]
    phrases: tuple[str, ...] = ()
    whole: str = ""  # the query as one phrase, when it is a few words around an identifier

    def spellings(self, stem: str) -> tuple[str, ...]:
        alt = self.respelled.get(stem)
        return (stem, alt) if alt else (stem,)

    @property
    def all(self) -> list[str]:
        return list(dict.fromkeys(s for stem in self.stems for s in self.spellings(stem)))


def terms_of(conn: sqlite3.Connection, query: str) -> Terms:
    stems = tuple(query_terms(query, prose=True))
    respelled = {}
    written = {stem(w): w for w in reversed(words(query))}  # a stem's word as typed
    for term in stems:
        alt = _run_together(conn, written.get(term, term), term) or \
            respell(conn, "chunks_fts", "chunks_vocab", term)
        if alt and alt != term:
            respelled[term] = alt
    found = phrases(query)
    whole = found[0] if found and len(found[0].split()) == len(words(query)) and \
        len(query.split()) > 1 else ""
    return Terms(stems, respelled, tuple(p for p in found if p != whole), whole)


def _run_together(conn: sqlite3.Connection, word: str, term: str) -> str | None:
    """The phrase of the words a long lowercase word the index lacks (`term` is its stem)
    is made of."""
    if len(word) < MIN_RUN or doc_count(conn, "chunks_fts", term, cap=1):
        return None

    def documents(piece: str) -> int:
        row = conn.execute("SELECT doc FROM chunks_vocab WHERE term = ?", (piece,)).fetchone()
        return row[0] if row else 0

    pieces = split_run(word, documents)
    return " ".join(stem(p) for p in pieces) if pieces else None


class Scope(Frozen):
    """Which sessions a search may return: an SQL condition over `s` (sessions)."""

    where: str = ""
    params: tuple = ()


EVERY = Scope()


def search(conn: sqlite3.Connection, query: str, *, limit: int = 10,
           scope: Scope = EVERY) -> tuple[Terms, list[dict]]:
    """The ranked sessions for `query`; each hit is a dict ready for the answer."""
    limit = max(1, min(limit, MAX_LIMIT))
    terms = terms_of(conn, query)
    where = f"AND {scope.where}" if scope.where else ""
    wanted = list(dict.fromkeys([*terms.all, *terms.phrases, *filter(None, [terms.whole])]))
    matching = ("FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                f"JOIN sessions s ON s.id = c.session WHERE chunks_fts MATCH ? {where}")
    plain = conn.cursor()
    plain.row_factory = None  # plain tuples: a common word is held by thousands of chunks
    chunks = {term: _holding(conn, plain, term, matching, scope) for term in wanted}
    holding = {term: set(of.values()) for term, of in chunks.items()}
    as_written = set.intersection(*(holding[s] for s in terms.stems))
    either = set.intersection(*(set().union(*(holding[x] for x in terms.spellings(s)))
                                for s in terms.stems))
    phrased = either.intersection(*(holding[p] for p in terms.phrases)) if terms.phrases \
        else set()
    whole = holding[terms.whole] if terms.whole else set()

    held, rare = _weighed(conn, terms, holding, scope)
    named = set.intersection(*rare) if rare else set()

    def tier(session: int) -> int:
        return (0 if session in whole else 1 if session in phrased else
                2 if session in named else 3 if session in as_written else
                4 if session in either else 5)

    # Only the passes that can fill the answer are scored: when the sessions holding every
    # word (or a rare identifier, or the whole phrase) are `limit` or more, a session holding
    # only some of the words cannot reach it. BM25 then scores their chunks alone, not every
    # chunk holding any word.
    upper = whole | either | named
    only = f"AND c.session IN ({','.join(map(str, sorted(upper)))})" \
        if len(upper) >= limit else ""
    # Each session's best chunk, chosen by SQLite: a common word matches thousands of chunks,
    # a few hundred sessions. (bm25() cannot sit inside an aggregate: materialised first.)
    best: dict[int, tuple[float, int]] = {  # session -> (rank, chunk); rank: lower is better
        session: (rank, chunk) for session, chunk, rank in plain.execute(
            f"WITH m AS MATERIALIZED (SELECT c.session, c.id, {BM25} AS rank {matching} "
            f"{only}) SELECT session, id, MIN(rank) FROM m GROUP BY session",
            (" OR ".join(_fts(x) for x in wanted), *scope.params))}
    if not best:
        return terms, []

    # Closeness only reorders sessions within a pass: look at those that can reach the answer.
    contenders = [x for _, _, x in sorted((tier(x), r, x) for x, (r, _) in best.items()
                                          if x in either)[:NEAR_SESSIONS * limit]]
    near = _near(conn, terms, _every_word_chunks(terms, chunks, contenders, best))
    for session, found in near.items():  # show the place where the words meet
        if found is not None:
            best[session] = (best[session][0], found[0])
    # Within a pass of a query naming an identifier, a session holding more of the query's
    # weight comes first (the identifier, the rarer words); sessions holding every word hold
    # all of it, so their order is BM25's. A question in plain words keeps BM25's order: its
    # answer often holds few of its words, and the rarest of them are the asker's, not the
    # transcript's.
    weighed = bool(terms.phrases) or any(" " in a for a in terms.respelled.values())
    ranked = sorted((tier(s), -held(s) if weighed else 0.0, _closeness(near, s), rank, s, chunk)
                    for s, (rank, chunk) in best.items())[:limit]
    return terms, [_hit(conn, terms, t, rank, s, chunk, near.get(s))
                   for t, _, _, rank, s, chunk in ranked]


def _holding(conn: sqlite3.Connection, plain: sqlite3.Cursor, term: str, matching: str,
             scope: Scope) -> dict[int, int]:
    """{chunk: its session} of the chunks holding `term`. Without a scope, from the matching
    chunks' ids alone and which session each chunk is of (kept while the index is unchanged,
    sessions/steady.py): joining every match to its chunk row took 40% more of a search at
    5,000 sessions."""
    if scope.where:
        return dict(plain.execute(f"SELECT c.id, c.session {matching}",
                                  (_fts(term), *scope.params)).fetchall())
    from solograph.sessions.steady import unchanged

    owner: dict[int, int] = unchanged(conn, "chunk_sessions", lambda: dict(
        plain.execute("SELECT id, session FROM chunks").fetchall()))
    return {r[0]: owner[r[0]] for r in plain.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (_fts(term),)) if r[0] in owner}


def _every_word_chunks(terms: Terms, chunks: dict[str, dict[int, int]], sessions: list[int],
                       best: dict[int, tuple[float, int]]) -> dict[int, list[int]]:
    """{session: its chunks holding every word of the query} for `sessions`, from what each
    word's search found (no other search of the index), each session's best chunk first,
    then in the conversation's order."""
    if len(terms.stems) < 2 or not sessions:
        return {}
    every = set.intersection(*(set().union(*(chunks[x].keys() for x in terms.spellings(s)))
                               for s in terms.stems))
    owner = chunks[terms.stems[0]]
    alt = chunks.get(terms.respelled.get(terms.stems[0], ""), {})
    wanted = set(sessions)
    out: dict[int, list[int]] = {}
    for chunk in every:
        session = owner.get(chunk, alt.get(chunk))
        if session in wanted:
            out.setdefault(session, []).append(chunk)
    for session, ids in out.items():
        ids.sort()
        first = best[session][1]
        if first in ids:
            ids.remove(first)
            ids.insert(0, first)
    return {s: out[s] for s in sessions if s in out}


def _weighed(conn: sqlite3.Connection, terms: Terms, holding: dict[str, set[int]],
             scope: Scope) -> tuple[Callable[[int], float], list[set[int]]]:
    """(session -> the share of the query's weight it holds, the sessions holding each rare
    identifier). The units weighed are each identifier as its phrase (its pieces, `acm 7 qk 2`,
    match anywhere alone) and each other word in either spelling, each by its rarity over the
    sessions (BM25's IDF). An identifier (a phrase, or a run-together word the index holds only
    in pieces) is rare when at most a RARE_ID share of the sessions hold it: naming it then
    outweighs every ordinary word (the every-word pass)."""
    where = f"WHERE {scope.where}" if scope.where else ""
    total = conn.execute(f"SELECT COUNT(*) FROM sessions s {where}", scope.params).fetchone()[0]
    pieces = {w for p in terms.phrases for w in p.split()}
    units = [holding[p] for p in terms.phrases]
    rare = [u for u in units if len(u) <= RARE_ID * total]
    for stem_ in terms.stems:
        if stem_ not in pieces:
            unit = set().union(*(holding[x] for x in terms.spellings(stem_)))
            units.append(unit)
            if " " in terms.respelled.get(stem_, "") and len(unit) <= RARE_ID * total:
                rare.append(unit)
    weights = [math.log(1 + (total - len(u) + 0.5) / (len(u) + 0.5)) for u in units]
    whole = sum(weights) or 1.0

    def held(session: int) -> float:
        return round(sum(w for u, w in zip(units, weights, strict=True) if session in u)
                     / whole, 9)
    return held, rare


def _fts(term: str) -> str:
    """A stem as a prefix; a phrase of stems as it is (both sides are stemmed, so `refs`
    already meets `ref`, and "4 te" must not find "4 tests")."""
    return fts_term(term) if " " not in term else '"' + term.replace('"', '""') + '"'


def _closeness(near: dict[int, tuple[int, int] | None], session: int) -> int:
    """0 when one message holds every word, 1 when one chunk does, else 2."""
    if session not in near:
        return 2
    return 0 if near[session] is not None else 1


def _near(conn: sqlite3.Connection, terms: Terms, chunks: dict[int, list[int]]
          ) -> dict[int, tuple[int, int] | None]:
    """{session: (the chunk, its first message) where one message holds every word of the
    query, or None when only a whole chunk does}, for each session of `chunks` (its chunks
    holding every word, the first read first)."""
    if len(terms.stems) < 2 or not chunks:
        return {}
    tests, params = holding_sql(terms.stems, terms.spellings)
    every_word = (f"SELECT id FROM entries WHERE chunk = ? AND {' AND '.join(tests)} "
                  "ORDER BY seq LIMIT 1")
    out: dict[int, tuple[int, int] | None] = {}
    for session, ids in chunks.items():
        out[session] = None
        for chunk in ids[:NEAR_READ]:
            row = conn.execute(every_word, (chunk, *params)).fetchone()
            if row:
                out[session] = (chunk, row[0])
                break
    return out


def one_message(conn: sqlite3.Connection, query: str, sessions: list[int]) -> set[int]:
    """The sessions among `sessions` where one message holds every word of `query` (for a
    one-word query, every session holding it does)."""
    terms = terms_of(conn, query)
    if len(terms.stems) < 2:
        return set(sessions)
    every = " AND ".join("(" + " OR ".join(_fts(x) for x in terms.spellings(s)) + ")"
                         for s in terms.stems)
    wanted = set(sessions)
    chunks: dict[int, list[int]] = {}
    for chunk, session in conn.execute(
            f"SELECT m.rowid, c.session FROM (SELECT rowid, {BM25} AS rank FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) m JOIN chunks c ON c.id = m.rowid "
            "ORDER BY m.rank",
            (every, NEAR_CHUNKS)):
        if session in wanted:
            chunks.setdefault(session, []).append(chunk)
    return {s for s, found in _near(conn, terms, chunks).items() if found is not None}


def _hit(conn: sqlite3.Connection, terms: Terms, tier: int, rank: float, session: int,
         chunk: int, near: tuple[int, int] | None) -> dict:
    row = session_row(conn, session)
    assert row is not None, session  # the hit was found by this read, in its snapshot
    if near is not None and not terms.phrases:  # the first message holding every word
        entry = conn.execute("SELECT id, text, tools, words FROM entries WHERE id = ?",
                             (near[1],)).fetchone()
    else:
        entry = best_entry(conn, chunk, [*terms.stems, *terms.phrases], terms.spellings)
    return {
        **describe(row),
        "snippet": snippet(entry["text"], entry["tools"], terms.all) if entry else "",
        "score": max(round(-rank, 4), 0.0001),
        "match": MATCH[tier],
    }


# Whether session `s`'s main transcript is still on disk: `describe`'s `live`.
LIVE = ("EXISTS (SELECT 1 FROM files f WHERE f.session_id = s.session_id "
        "AND f.kind = 'main' AND f.status = 'live')")
SESSION_ROWS = f"SELECT s.*, {LIVE} AS live FROM sessions s "


def session_row(conn: sqlite3.Connection, session: int) -> sqlite3.Row | None:
    """The row `describe` takes, of the session with id `session` (sessions.id)."""
    return conn.execute(SESSION_ROWS + "WHERE s.id = ?", (session,)).fetchone()


def describe(row: sqlite3.Row) -> dict:
    """The fields every answer gives about a session (row: sessions.* plus `live`)."""
    live = bool(row["live"])
    return {
        "session": row["session_id"],
        "agent": row["agent"],
        "project": project_name(row["cwd"]),
        "cwd": row["cwd"],
        "title": row["title"],
        "first": row["first_at"],
        "last": row["last_at"],
        "messages": row["messages"],
        "archived": not live,
        "transcript": "live" if live else "deleted",
        "resume": resume_command(row["session_id"], row["cwd"], row["agent"]) if live else None,
    }


def resume_command(session_id: str, cwd: str, agent: str = "claude") -> str | None:
    """`cd '<folder>' && claude --resume ID`: an agent finds a session from the folder it
    started in, so the command works from anywhere; each agent's own (sessions/agents/)."""
    from solograph.sessions.agents import resume_command as of_agent

    return of_agent(agent, session_id, cwd)


def project_name(cwd: str) -> str:
    return cwd.rstrip("/").rsplit("/", 1)[-1] if cwd else ""


def project_scope(name: str, *, exclude: str | None = None, agent: str | None = None) -> Scope:
    """Sessions whose folder is the project or inside it: `-p spotter` takes
    /home/me/spotter and /home/me/spotter/assets, by the folder's name."""
    parts, params = [], []
    bounded("project", name)
    bounded("session id", exclude)
    if name:
        parts.append("(s.cwd LIKE ? ESCAPE '\\' OR s.cwd LIKE ? ESCAPE '\\' "
                     "OR s.cwd = ? COLLATE NOCASE)")
        esc = like_escape(name)
        params += [f"%/{esc}", f"%/{esc}/%", name]
    if exclude:
        parts.append("s.session_id != ?")
        params.append(exclude)
    if agent:  # one agent's sessions (sessions/agents/)
        parts.append("s.agent = ?")
        params.append(agent)
    return Scope(" AND ".join(parts), tuple(params))
