"""The sources index's part of the meaning lane: one vector per stored document.

A document (a YouTube chunk, a launch, a revenue page, a Telegram message) is embedded as its
title and its text, cut to PASSAGE_CHARS: the redacted text its full-text row is made of.
Search ranks what sources.search ranks: a video once (its best chunk), else the document.
A vector leaves with its document (cascade) and with any change to its title or text (the
migration's trigger), so an upsert of new text is pending again.

`SEARCH` is source_search's meaning side, for its `search` action (list, tags and related
rank no query).
"""

from __future__ import annotations

import re
import sqlite3

from solograph.semantic.answers import Meaning, fused_answer, relevance, words_only
from solograph.semantic.fusion import MEANING
from solograph.semantic.lane import StoreLane, allowed_by

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any

    from solograph.config import Settings

STORE = "sources"
PASSAGE_CHARS = 1_500
_SPACE = re.compile(r"\s+")


def document_text(title: str, text: str) -> str:
    return _SPACE.sub(" ", f"{title}\n{text}").strip()[:PASSAGE_CHARS]


class SourcesLane(StoreLane):
    store = STORE
    table = "document_vectors"
    key = "document"
    unit_join = "JOIN documents d ON d.id = {unit}"
    group = "COALESCE(d.video, d.key)"  # what sources.search shows once: a video, a document
    noun = "documents"
    texts_sql = "SELECT id, title, text FROM documents WHERE id IN ({marks})"

    def writer(self, settings: Settings) -> AbstractContextManager[sqlite3.Connection]:
        from solograph.sources.store import writing

        return writing(settings.sources_db)

    def passage(self, *row: object) -> str:
        return document_text(str(row[0]), str(row[1]))

    def waiting(self, conn: sqlite3.Connection, groups: list) -> set:
        if not groups:  # by the video and key indexes, not a scan of what waits
            return set()
        marks = ",".join("?" * len(groups))
        return {r[0] for r in conn.execute(
            f"SELECT DISTINCT {self.group} FROM documents d JOIN vector_todo t "
            f"ON t.unit = d.id WHERE d.video IN ({marks}) OR d.key IN ({marks})",
            [*groups, *groups])}


LANE = SourcesLane()


class SourceSearch(Meaning):
    """source_search's `search` action: each video once (at its best chunk), else the
    document."""

    def query(self, params: dict) -> str:
        if (params.get("action") or "search") != "search":
            return ""
        return super().query(params)

    def fuse(self, handle: Any, answer: dict, vector: Any, model: str, *, query: str | None = None,
             action: str = "search", source: str | None = None, limit: int = 10) -> dict:
        if answer.get("action") != "search" or "results" not in answer:
            return answer
        if vector is None:
            return words_only(answer)
        conn = handle.conn
        results = answer["results"]
        groups = [_group(h) for h in results]
        allowed = allowed_by(conn, "SELECT DISTINCT COALESCE(video, key) FROM documents "
                                   "WHERE source = ?", (source,)) if source else None
        try:
            fused = fused_answer(
                LANE, conn, answer, vector, model, query=query or "", limit=limit,
                allowed=allowed, words=groups, lexical=dict(zip(groups, results, strict=True)),
                tier=[g for g, h in zip(groups, results, strict=True) if h.get("match") == "all"],
                render=lambda _group, doc: source_hit(conn, query or "", doc))
        except sqlite3.OperationalError:  # a store from before the lane, opened read-only
            return words_only(answer)
        for hit in fused["results"]:  # the replaced API's 0..1 field, on the fused scale
            hit["relevance"] = relevance(hit["score"])
        return fused


def _group(hit: dict) -> str:
    return hit.get("video") or hit["id"]


def source_hit(conn: sqlite3.Connection, query: str, doc: int) -> dict | None:
    """A document found by meaning, shown as a search shows it (at its best chunk)."""
    from solograph.sources.search import result_of
    from solograph.text.tokens import query_terms

    if conn.execute("SELECT 1 FROM documents WHERE id = ?", (doc,)).fetchone() is None:
        return None
    return result_of(conn, doc, MEANING, query_terms(query, prose=True))


SEARCH = SourceSearch()


def embed_job(settings: Settings) -> dict:
    """The index's embed write job, run in-process (the engine's, for this store)."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
