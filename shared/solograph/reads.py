"""Every read the product answers, through one path.

`read(name, settings, **params)` opens the answer's index, syncs it with the disk within the
sync budget (when the index syncs before reads), clamps the result limit once, runs the answer
under the query time limit and attaches `freshness`. The named functions below are the API the
adapters call: the CLI (`--json`), the HTTP API and the MCP tools all serialise what they
return with `to_json`, so a script, a person and an agent see the same bytes.
"""

from __future__ import annotations

import json
import time
from contextlib import nullcontext

from solograph.freshness import attach, freshness
from solograph.index import REQUIRED, Index, Synced, resolve
from solograph.indexes import find_answer
from solograph.limits import paths_from_query

TYPE_CHECKING = False  # importing typing costs every start ~2 ms

if TYPE_CHECKING:
    from typing import Any

    from solograph.config import Settings


def to_json(answer: dict) -> str:
    """Compact JSON: the exact text every adapter returns."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def clamp(limit: int, settings: Settings) -> int:
    """The one bound on how many results a read may return."""
    return max(1, min(int(limit), settings.max_results))


def read(name: str, settings: Settings, /, **params: Any) -> dict:
    """The answer `name` (an `Answer` of some index) for `params`."""
    index, spec = find_answer(name)
    given = {p.name: params.get(p.name, p.default) for p in spec.params}
    missing = [k for k, v in given.items() if v is REQUIRED]
    if missing:
        raise TypeError(f"{name}() missing {', '.join(missing)}")
    if "limit" in given:
        given["limit"] = clamp(given["limit"], settings)
    from solograph.store import time_limit

    run = resolve(spec.run)
    started = time.monotonic()
    # The meaning lane (None when off, or for a lexical-only answer): the query embeds while
    # the index syncs and ranks.
    meaning = None
    if spec.meaning:
        from solograph.semantic.read import begin

        meaning = begin(index, spec, given, settings, started=started)
    with resolve(index.open)(settings) as handle:
        deadline = started + max(0, settings.sync_budget_ms) / 1000
        synced = _sync(index, handle, deadline) if spec.sync else Synced()
        bounded = time_limit(handle.conn, settings.query_timeout_ms) if spec.bounded \
            else nullcontext()
        with bounded, paths_from_query():
            answer = run(handle, **(given if meaning is None else meaning.lexical(given)))
            if meaning is not None:
                answer = meaning.fuse(handle, answer, given)
            if not spec.fresh:
                return answer
            fresh = freshness(pending=synced.pending, unreadable=synced.unreadable,
                              as_of=resolve(index.as_of)(handle.conn), agents=synced.agents)
            if meaning is not None:
                fresh = {**fresh, **meaning.freshness(handle.conn)}
    return attach(answer, fresh, index.pending_note.format(n=synced.pending))


def _sync(index: Index, handle: object, deadline: float) -> Synced:
    if not index.sync:
        return Synced()
    return resolve(index.sync)(handle, deadline)


# The public reads, one line each: the functions the adapters call.

def symbol_search(settings: Settings, query: str, *, project: str | None = None,
                  limit: int = 20) -> dict:
    return read("symbol_search", settings, query=query, project=project, limit=limit)


def symbol_source(settings: Settings, project: str, path: str, line: int, *,
                  lines: int = 40) -> dict:
    return read("symbol_source", settings, project=project, path=path, line=line, lines=lines)


def project_info(settings: Settings, action: str, *, project: str | None = None,
                 package: str | None = None, name: str | None = None) -> dict:
    return read("project_info", settings, action=action, project=project, package=package,
                name=name)


def session_search(settings: Settings, query: str, *, project: str | None = None,
                   limit: int = 10, session: str | None = None,
                   exclude_session: str | None = None, agent: str | None = None) -> dict:
    return read("session_search", settings, query=query, project=project, limit=limit,
                session=session, exclude_session=exclude_session, agent=agent)


def session_export(settings: Settings, session_id: str, *, fmt: str = "markdown") -> dict:
    return read("session_export", settings, session_id=session_id, fmt=fmt)


def source_search(settings: Settings, query: str | None = None, *, action: str = "search",
                  source: str | None = None, limit: int = 10) -> dict:
    return read("source_search", settings, query=query, action=action, source=source,
                limit=limit)


def kb_search(settings: Settings, query: str | None = None, *, path: str | None = None,
              pages: bool = False, expand: bool = False, limit: int = 10,
              get: str | None = None) -> dict:
    return read("kb_search", settings, query=query, path=path, pages=pages, expand=expand,
                limit=limit, get=get)


def kb_get(settings: Settings, ref: str) -> dict:
    return read("kb_get", settings, ref=ref)


def kb_graph(settings: Settings, *, path: str | None = None, page: str | None = None,
             check: bool = False, nodes: bool = False) -> dict:
    return read("kb_graph", settings, path=path, page=page, check=check, nodes=nodes)


def kb_hint(settings: Settings, prompt: str, *, session: str | None = None) -> dict:
    return read("kb_hint", settings, prompt=prompt, session=session)


def kb_aliases(settings: Settings, *, suggest: bool = False) -> dict:
    return read("kb_aliases", settings, suggest=suggest)


def session_list(settings: Settings, *, project: str | None = None, limit: int = 50,
                 offset: int = 0) -> dict:
    return read("session_list", settings, project=project, limit=limit, offset=offset)


def session_read(settings: Settings, session_id: str, *, offset: int | None = None,
                 size: int = 100, query: str | None = None) -> dict:
    return read("session_read", settings, session_id=session_id, offset=offset, size=size,
                query=query)
