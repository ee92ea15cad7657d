"""A local web server for the spider tests: saved pages on 127.0.0.1, routes switchable.

    with serve_site(PRODUCTHUNT) as site:        # {path: file under tests/support/sites}
        crawl(..., start_url=site.url("/"))
        site.routes = PRODUCTHUNT_CHANGED         # the redesign, same server

Every page is served as text/html; /robots.txt is served on every site; a path not in the
table is a 404. `site.hits` records the paths requested, in order; `site.agents` the
User-Agent headers seen.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SITES = Path(__file__).resolve().parent / "sites"

PRODUCTHUNT = {"/": "producthunt/home.html",
               "/leaderboard/daily/2026/11/27/all": "producthunt/day.html"}
PRODUCTHUNT_CHANGED = {"/": "changed/producthunt.html"}
TRUSTMRR = {"/": "trustmrr/home.html", "/?page=2": "trustmrr/home2.html",
            "/startup/acme-analytics": "trustmrr/acme-analytics.html",
            "/startup/pricefox": "trustmrr/pricefox.html",
            "/startup/ghost-co": "trustmrr/ghost-co.html",
            "/startup/tinyinvoice": "trustmrr/tinyinvoice.html",
            "/private/startup/internal-dashboard": "trustmrr/home.html"}
TRUSTMRR_CHANGED = {"/": "changed/trustmrr.html"}


class Site:
    def __init__(self, routes: dict[str, str]) -> None:
        self.routes = routes
        self.hits: list[str] = []
        self.agents: set[str] = set()
        self.port = 0

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def serve_site(routes: dict[str, str]) -> Iterator[Site]:
    site = Site(routes)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            site.hits.append(self.path)
            site.agents.add(self.headers.get("User-Agent", ""))
            if self.path == "/robots.txt":
                self._send(200, "text/plain", (SITES / "robots.txt").read_bytes())
            elif self.path in site.routes:
                self._send(200, "text/html; charset=utf-8",
                           (SITES / site.routes[self.path]).read_bytes())
            else:
                self._send(404, "text/html", b"<h1>Not found</h1>")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
