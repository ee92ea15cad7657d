"""The shapes of the portfolio answers, for the MCP tools' output schemas and the type checker.
Apart from answers.py so that a read does not build these classes on every start."""

from __future__ import annotations

from solograph.shapes import Freshness
from solograph.typed import NotRequired, TypedDict


class Definition(TypedDict):
    project: str
    path: str
    line: int
    kind: str
    name: str
    scope: str
    score: float
    match: str  # exact, all, respelt or some: the tier that found it


class SymbolSearch(TypedDict):
    query: str
    project: str | None
    count: int
    results: list[Definition]
    freshness: Freshness


class ProjectInfo(TypedDict, total=False):
    """One of six shapes, told apart by `action`; each carries `freshness`."""

    action: str
    project: str | None
    freshness: Freshness
    # explain
    path: str
    stack: list[str]
    managers: list[str]
    size: dict
    languages: list[dict]
    kinds: dict
    layers: list[dict]
    dependencies: list[str]
    scanned_at: float | None
    # deps (and, as counts, stats)
    manifests: list[dict]
    packages: int | list[dict]
    # stats (and, as lists, projects and shared)
    projects: int | list[dict]
    scanned: int
    files: int
    lines: int
    definitions: int
    skipped: dict
    projects_by_size: list[dict]
    last_scan: float | None
    parsed_in_part: int
    problems: dict  # files not read whole and manifests with an error
    # shared, dupes
    package: str | None
    name: str | None
    groups: list[dict]
    message: str  # dupes: why there are no groups
    count: int
    note: NotRequired[str]
