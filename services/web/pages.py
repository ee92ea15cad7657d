"""The page for people: every route renders a template over what the public reads return.

Nothing here opens a store: each page calls `solograph.reads` (the same answers the CLI, the
HTTP API and MCP give) and shows them. Handlers are plain functions, so the reads run in the
server's thread pool as the API's do. A domain error becomes an error page with the status the
API would give; on the start and search pages it is shown in its index's box instead, so one
index not built yet never hides the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from solograph import reads
from solograph.config import Settings
from solograph.errors import SolographError
from solograph_services.common.errors import status_of
from solograph_services.web.headers import PageHeaders
from solograph_services.web.render import HERE, environment, render_markdown

PAGE = 100  # messages on a screen of the reader
Text = Annotated[str | None, Query(max_length=500)]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _attempt(call: Callable[[], dict]) -> tuple[dict | None, str | None]:
    """(the answer, None), or (None, what went wrong and what to do) for a domain error."""
    try:
        return call(), None
    except SolographError as exc:
        return None, exc.message + (f" ({exc.hint})" if exc.hint else "")


def _dated(hit: dict, since: str | None, until: str | None) -> bool:
    """Whether a hit with a date (a session's last message, a source's date) is in range;
    a hit without one always is."""
    day = (hit.get("last") or hit.get("date") or "")[:10]
    if not day:
        return True
    return (not since or day >= since) and (not until or day <= until)


def create_web(settings: Settings) -> FastAPI:
    """The pages, to mount at /ui behind the API's guard."""
    web = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    web.add_middleware(PageHeaders)
    web.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = environment()

    def page(name: str, *, status: int = 200, **context: object) -> HTMLResponse:
        return HTMLResponse(templates.get_template(name).render(**context), status_code=status)

    @web.exception_handler(SolographError)
    def failed(request: Request, exc: SolographError) -> HTMLResponse:
        return page("error.html", status=status_of(exc), title="Not found"
                    if status_of(exc) == 404 else "Cannot show this", message=exc.message,
                    hint=exc.hint)

    @web.get("/")
    def start() -> HTMLResponse:
        boxes = {
            "portfolio": _attempt(lambda: reads.project_info(settings, "stats")),
            "sessions": _attempt(lambda: reads.session_list(settings, limit=8)),
            # Counts and problems only: hubs and connectors (betweenness) are the graph page's
            # (on a 164-page wiki 0.2 s against 0.8 s).
            "kb": _attempt(lambda: reads.kb_graph(settings, check=True)),
            "sources": _attempt(lambda: reads.source_search(settings, action="list")),
        }
        return page("start.html", title="solograph", boxes=boxes)

    @web.get("/search")
    def search(q: Text = None, project: Text = None, agent: Text = None,
               since: Text = None, until: Text = None) -> HTMLResponse:
        since = since if since and _DATE.match(since) else None
        until = until if until and _DATE.match(until) else None
        project = (project or "").strip() or None
        groups: dict[str, tuple[dict | None, str | None]] = {}
        if q and q.strip():
            groups = {
                "sessions": _attempt(lambda: reads.session_search(settings, q, project=project,
                                                                  limit=20)),
                "kb": _attempt(lambda: reads.kb_search(settings, q, limit=10)),
                "symbols": _attempt(lambda: reads.symbol_search(settings, q, project=project,
                                                                limit=20)),
                "sources": _attempt(lambda: reads.source_search(settings, q, limit=10)),
            }
            for answer, _ in groups.values():
                if answer is not None and "results" in answer:
                    answer["results"] = [
                        h for h in answer["results"] if _dated(h, since, until)
                        and (not agent or not h.get("agent") or h["agent"] == agent)]
        agents = sorted({h["agent"] for a, _ in groups.values() if a
                         for h in a.get("results", ()) if h.get("agent")})
        return page("search.html", title=f"{q} · search" if q else "search", q=q or "",
                    project=project or "", agent=agent or "", since=since or "",
                    until=until or "", groups=groups, agents=agents)

    @web.get("/sessions")
    def sessions(project: Text = None,
                 offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0) -> HTMLResponse:
        answer = reads.session_list(settings, project=(project or "").strip() or None,
                                    limit=50, offset=offset)
        return page("sessions.html", title="sessions", answer=answer, project=project or "")

    @web.get("/session/{session_id}")
    def session(session_id: Annotated[str, PathParam(max_length=100)], q: Text = None,
                offset: Annotated[int | None, Query(ge=0, le=10_000_000)] = None
                ) -> HTMLResponse:
        answer = reads.session_read(settings, session_id, offset=offset, size=PAGE, query=q)
        head = answer["session"]
        return page("session.html", title=head["title"] or head["session"], answer=answer,
                    head=head, q=q or "")

    @web.get("/session/{session_id}/export.md")
    def export(session_id: Annotated[str, PathParam(max_length=100)]) -> Response:
        answer = reads.session_export(settings, session_id, fmt="markdown")
        name = re.sub(r"[^A-Za-z0-9-]", "", answer["session"])[:64] or "session"
        return Response(answer["content"], media_type="text/markdown; charset=utf-8",
                        headers={"content-disposition": f'attachment; filename="{name}.md"'})

    @web.get("/kb/page")
    def kb_page(ref: Annotated[str, Query(max_length=1000)]) -> HTMLResponse:
        answer = reads.kb_get(settings, ref)
        links = {link["target"]: link["path"] for link in answer["links"] if link["path"]}
        for link in answer["links"]:  # [[page]] and [[page#Heading]] alike resolve by page
            if link["path"]:
                links.setdefault(link["target"].partition("#")[0], link["path"])
        return page("kb_page.html", title=answer["title"] or answer["path"], answer=answer,
                    body=render_markdown(answer["text"], links))

    @web.get("/kb/graph")
    def kb_graph() -> HTMLResponse:
        answer = reads.kb_graph(settings, nodes=True)
        return page("kb_graph.html", title="link graph", answer=answer,
                    data={"nodes": answer["nodes"], "pairs": answer["pairs"],
                          "hubs": [h["path"] for h in answer.get("hubs", [])]})

    @web.get("/symbol")
    def symbol(project: Annotated[str, Query(max_length=200)],
               path: Annotated[str, Query(max_length=1000)],
               line: Annotated[int, Query(ge=1, le=10_000_000)]) -> HTMLResponse:
        answer = reads.symbol_source(settings, project, path, line)
        return page("symbol.html", title=f"{path}:{line}", answer=answer)

    return web


def mount(app: FastAPI, settings: Settings) -> None:
    """The pages at /ui of the API (behind its guard), and / sending a browser there."""
    app.mount("/ui", create_web(settings), name="ui")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=303)
