"""The session index's part of the meaning lane: one vector per message.

What is embedded is what the user and the assistant wrote (prompts, commands, replies with
their thinking; sub-agents' too), never tool results, tool arguments, compaction summaries or
notices, and always the stored text: `entries.text` is redacted before it is stored. A
message of fewer than MIN_CHARS characters ("yes", "go on") says nothing a search could find
by meaning and is left out, and so is a reply of fewer than MIN_REPLY_CHARS: it narrates the
next step ("Now let me read the test file:"), which the words find as well, and its generic
vector came up for questions it does not answer. Leaving those out embedded 414 of the real
transcripts' 848 messages (70 % of the model's time) and answered the session questions as
well (r@1 / r@5 .757 / .973 at 100 %; r@1 .595 -> .622 at 50 %). At 160 characters 267
messages answered .784 / .973, but replies of 100-160 characters still say things ("the CSS
isn't built via esbuild", "that broke npm ci; let me revert").

A longer message is embedded from its first MESSAGE_CHARS characters, where what it is about
is said. The cut, measured on the session questions at 100 % embedded (r@1 / r@5): 150
.703/.946, 200 .676/.946, 250 .757/.973, 320 .757/.946, 400 .730/.919, 800 .730/.946; the
lexical cases .991 at each. 250 embeds 36 % fewer characters than 800 (the model's time is
linear in them) and answered as well or better. The store's triggers queue each message as it
is stored (0007_message_vectors.sql, 0008_reply_vectors.sql), newest first.

`SEARCH` is session_search's meaning side: sessions ranked by their best message, fused with
the lexical ranking; a session found by meaning alone is shown at that message.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

from solograph.semantic.answers import Meaning, by_group, fused_answer
from solograph.semantic.fusion import MEANING
from solograph.semantic.lane import StoreLane, allowed_by

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any

    from solograph.config import Settings

STORE = "sessions"
MIN_CHARS = 30  # as the store's triggers count them (0008_reply_vectors.sql)
MIN_REPLY_CHARS = 100  # the same, for the assistant's replies
MESSAGE_CHARS = 250  # evals/README.md: the cut measured from 150 to 800
_SPACE = re.compile(r"\s+")


def message_text(text: str, kind: str = "prompt") -> str:
    """What a message of `kind` (entries.kind) embeds: its text, white space folded, cut at a
    space near MESSAGE_CHARS; "" when too short to embed."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) < (MIN_REPLY_CHARS if kind == "reply" else MIN_CHARS):
        return ""
    if len(flat) > MESSAGE_CHARS:
        cut = flat.rfind(" ", MESSAGE_CHARS // 2, MESSAGE_CHARS + 1)
        flat = flat[:cut if cut > 0 else MESSAGE_CHARS]
    return flat


class SessionsLane(StoreLane):
    store = STORE
    table = "entry_vectors"
    key = "entry"
    unit_join = "JOIN entries e ON e.id = {unit}"
    group = "e.session"
    noun = "messages"
    texts_sql = "SELECT id, text, kind FROM entries WHERE id IN ({marks})"

    def writer(self, settings: Settings) -> AbstractContextManager[sqlite3.Connection]:
        from solograph.sessions.store import open_index

        return closing(open_index(settings.sessions_db))

    def passage(self, *row: object) -> str:
        return message_text(str(row[0]), str(row[1]))


LANE = SessionsLane()


class SessionSearch(Meaning):
    """session_search: sessions ranked; a session read whole (`session`) is not fused."""

    TIER = ("phrase", "all", "respelled")

    def query(self, params: dict) -> str:
        return "" if params.get("session") else super().query(params)

    def fuse(self, handle: Any, answer: dict, vector: Any, model: str, *, query: str,
             project: str | None = None, limit: int = 10, session: str | None = None,
             exclude_session: str | None = None, agent: str | None = None) -> dict:
        if session or "results" not in answer:
            return answer
        from solograph.sessions.search import project_scope

        conn = handle.conn
        scope = project_scope(project or "", exclude=exclude_session, agent=agent)
        allowed = allowed_by(conn, f"SELECT s.id FROM sessions s WHERE {scope.where}",
                             scope.params) if scope.where else None
        results = answer["results"]
        groups, lexical = by_group(results, "session", lambda keys: _session_ids(conn, keys))
        return fused_answer(
            LANE, conn, answer, vector, model, query=query, limit=limit, allowed=allowed,
            words=groups, lexical=lexical,
            tier=[g for g, h in zip(groups, results, strict=True) if h["match"] in self.TIER],
            confident=_confident(conn, query, groups, [h["score"] for h in results]),
            render=lambda session, entry: session_hit(conn, query, session, entry))


def _confident(conn: sqlite3.Connection, query: str, groups: list[int],
               scores: list[float]) -> bool:
    """The first hit holds every word of the query in one message, by a clear margin."""
    from solograph.semantic.fusion import POLICY, clear_margin
    from solograph.sessions.search import one_message

    return clear_margin(scores) and (not POLICY.held
                                     or groups[0] in one_message(conn, query, groups[:1]))


def _session_ids(conn: sqlite3.Connection, keys: list[str]) -> dict[str, int]:
    if not keys:
        return {}
    marks = ",".join("?" * len(keys))
    return dict(conn.execute(f"SELECT session_id, id FROM sessions WHERE session_id IN "
                             f"({marks})", keys).fetchall())


def session_hit(conn: sqlite3.Connection, query: str, session: int, entry: int) -> dict | None:
    """A session found by meaning, at the message that found it."""
    from solograph.sessions.search import describe, session_row
    from solograph.sessions.snippets import snippet
    from solograph.text.tokens import query_terms

    row = session_row(conn, session)
    found = conn.execute("SELECT text, tools FROM entries WHERE id = ? AND session = ?",
                         (entry, session)).fetchone()
    if row is None or found is None:
        return None
    return {**describe(row), "snippet": snippet(found[0], found[1],
                                                query_terms(query, prose=True)),
            "score": 0.0, "match": MEANING}


SEARCH = SessionSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
