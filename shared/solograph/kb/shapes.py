"""The shapes of the kb answers, for the MCP tools' output schemas and the type checker.
Apart from answers.py so that a read does not build these classes on every start."""

from __future__ import annotations

from solograph.shapes import Freshness
from solograph.typed import NotRequired, TypedDict


class PageHit(TypedDict):
    path: str
    title: str
    line: int
    section: str
    summary: str
    snippet: str
    score: float
    wiki: bool


class PageText(TypedDict):
    path: str
    title: str
    description: str
    index_line: str
    tags: list
    aliases: list
    problem: str
    section: str
    line: int
    text: str
    headings: list[str]
    links: list[dict]
    backlinks: list[dict]


class KbPage(PageText):
    freshness: Freshness
    note: NotRequired[str]


class KbSearch(TypedDict):
    query: str | None
    path: str | None
    pages: bool
    count: int
    respelled: dict[str, str]
    aliases: dict[str, str]
    results: list[PageHit]
    expanded: NotRequired[list[dict]]
    warnings: NotRequired[list[str]]
    freshness: Freshness
    note: NotRequired[str]


class KbSearchOrPage(TypedDict, total=False):
    """The kb_search tool's output: a search (KbSearch), or with `get` the page alone (KbPage).
    One object type with every field optional, because an MCP output schema is one object."""
    query: str | None
    path: str | None
    pages: bool
    count: int
    respelled: dict[str, str]
    aliases: dict[str, str] | list
    results: list[PageHit]
    expanded: list[dict]
    warnings: list[str]
    title: str
    description: str
    index_line: str
    tags: list
    problem: str
    section: str
    line: int
    text: str
    headings: list[str]
    links: list[dict]
    backlinks: list[dict]
    freshness: Freshness
    note: str


class InboxDoc(TypedDict):
    path: str
    title: str
    chars: int
    age_days: float
    modified: str
    compacted: bool
    ready: bool
    why: str  # why it is not ready, "" when it is


class KbCompact(TypedDict):
    dir: str
    min_chars: int
    days: int
    all: bool
    count: int
    ready: int
    documents: list[InboxDoc]
    summary: str
    warnings: NotRequired[list[str]]
    freshness: Freshness
    note: NotRequired[str]
