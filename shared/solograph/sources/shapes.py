"""The shapes of the sources answers, for the MCP tools' output schemas and the type checker.
Apart from answers.py so that a read does not build these classes on every start."""

from __future__ import annotations

from solograph.shapes import Freshness
from solograph.typed import NotRequired, TypedDict


class SourceHit(TypedDict, total=False):
    url: str  # url, title and content first: what SearXNG's json_engine reads
    title: str
    content: str
    id: str
    source: str
    date: str
    score: float
    match: str
    # As the search API this one replaced named them: id, kind, source, date, score in 0..1.
    doc_id: str
    source_type: str
    source_name: str
    created: str
    relevance: float


class SourceSearch(TypedDict, total=False):
    """One of four shapes, told apart by `action`."""

    action: str
    query: str | None
    source: str | None
    count: int
    results: list[SourceHit]
    sources: list[dict]
    tags: list[dict]
    video: dict
    freshness: Freshness
    note: NotRequired[str]
