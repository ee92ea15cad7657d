"""The toy index's one answer."""

from __future__ import annotations

from solograph.errors import BadQuery
from solograph.freshness import Freshness
from solograph.index import Handle
from solograph.typed import NotRequired, TypedDict
from tests.support.toy_index.search import rank


class ToyHit(TypedDict):
    note: str
    score: float


class ToySearch(TypedDict):
    query: str
    count: int
    results: list[ToyHit]
    freshness: Freshness
    note: NotRequired[str]


def toy_search(handle: Handle, *, query: str, limit: int = 5) -> dict:
    if not query.strip():
        raise BadQuery("empty query", hint='give words a note holds: "kettle"')
    hits = [{"note": name, "score": round(-score, 4)} for name, score in
            rank(handle.conn, query, limit)]
    return {"query": query, "count": len(hits), "results": hits}
