"""The shapes of the sessions answers, for the MCP tools' output schemas and the type checker.
Apart from answers.py so that a read does not build these classes on every start."""

from __future__ import annotations

from solograph.shapes import Freshness
from solograph.typed import NotRequired, TypedDict


class SessionHit(TypedDict):
    session: str
    agent: str  # the coding agent that wrote it: claude, codex, gemini, ... (sessions/agents/)
    project: str
    cwd: str
    title: str
    first: str
    last: str
    messages: int
    archived: bool
    transcript: str  # live or deleted
    resume: str | None  # the command that resumes it, while its transcript is live
    snippet: str
    score: float
    match: str  # all, respelled or some


class SessionSearch(TypedDict, total=False):
    """Sessions for the query; with `session`, that session's matching messages instead."""

    query: str
    project: str | None
    agent: str  # when the search was of one agent's sessions
    count: int
    respelled: dict[str, str]
    results: list[SessionHit]
    # one session's messages
    session: dict
    matches: int
    total_matches: int
    messages: list[dict]
    warnings: list[str]
    freshness: Freshness
    note: NotRequired[str]


class SessionExport(TypedDict):
    session: str
    format: str
    title: str
    archived: bool
    content: str
