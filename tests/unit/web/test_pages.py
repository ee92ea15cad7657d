"""The page's server side through the real app (FastAPI's TestClient): headers, errors as
pages, the export, the token taken once from ?token= into a cookie, and the reads it added
answering over HTTP and the CLI with the same bytes as the core."""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph_services.api.app import create_app
from tests.support.procs import solograph_cmd
from tests.support.web import SESSION_ID, build_memory


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


TOKEN = "a-long-token-for-the-tests-" + "y" * 20


@pytest.fixture(scope="module")
def memory(tmp_path_factory) -> Settings:
    return build_memory(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def client(memory):
    with TestClient(create_app(memory), base_url="http://127.0.0.1") as c:
        yield c


@pytest.mark.parametrize("path", ["/ui/", "/ui/search?q=webhook", "/ui/sessions",
                                  f"/ui/session/{SESSION_ID}", "/ui/kb/graph",
                                  "/ui/kb/page?ref=wiki/recipe-box.md"])
def test_every_page_goes_out_under_the_policy(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    policy = r.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["cache-control"] == "no-store"
    tags = _Tags()
    tags.feed(r.text)
    for tag, attrs in tags.tags:
        assert not [name for name, _ in attrs if name.startswith("on")], tag
        if tag == "script":  # our own file, or the graph's data block: never inline code
            assert dict(attrs).get("src", "").startswith("/ui/static/") or \
                dict(attrs).get("type") == "application/json"


def test_the_start_page_says_what_each_index_holds(client, memory):
    text = client.get("/ui/").text
    listed = reads.source_search(memory, action="list")["sources"]
    for source in listed:
        assert f"{source['source']}: {source['items']} items" in text
    stats = reads.project_info(memory, "stats")
    assert f"{stats['projects']} projects" in text
    assert "Recent sessions" in text and "built-in method" not in text


def test_errors_are_pages_with_the_apis_status(client):
    r = client.get("/ui/kb/page?ref=wiki/nope.md")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    assert client.get("/ui/session/nope-nope-nope").status_code == 400


def test_the_export_is_the_core_export(client, memory):
    r = client.get(f"/ui/session/{SESSION_ID}/export.md")
    assert r.text == reads.session_export(memory, SESSION_ID)["content"]
    assert r.headers["content-disposition"] == f'attachment; filename="{SESSION_ID}.md"'


def test_another_host_is_refused_as_the_api_refuses_it(memory):
    with TestClient(create_app(memory), base_url="http://evil.example") as c:
        assert c.get("/ui/").status_code == 421


def test_the_token_is_given_once_and_a_strict_cookie_carries_it(memory):
    app = create_app(memory.with_(token=TOKEN))
    for scheme in ("http", "https"):
        with TestClient(app, base_url=f"{scheme}://127.0.0.1") as c:
            refused = c.get("/ui/")
            assert refused.status_code == 401 and "text/html" in refused.headers["content-type"]
            assert "?token=&lt;SOLOGRAPH_TOKEN&gt;" in refused.text
            assert c.get("/ui/?token=wrong").status_code == 401
            r = c.get(f"/ui/sessions?project=web-app&token={TOKEN}", follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == "/ui/sessions?project=web-app"
            cookie = r.headers["set-cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
            assert ("Secure" in cookie) is (scheme == "https")
            c.cookies.set("solograph_token", TOKEN)
            assert c.get("/ui/sessions").status_code == 200
            # The cookie opens the page only; the JSON API still wants the bearer header.
            assert c.get("/v1/sessions/list").status_code == 401
            assert c.get("/v1/sessions/list",
                         headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_a_token_a_cookie_could_not_hold_as_it_is_still_works(memory):
    token = "semi;colon, space \"quoted\"=" + "z" * 20
    with TestClient(create_app(memory.with_(token=token)), base_url="http://127.0.0.1") as c:
        from urllib.parse import quote

        r = c.get("/ui/?token=" + quote(token, safe=""))  # follows the redirect
        assert r.status_code == 200 and "What the memory holds" in r.text


def _cli(memory: Settings, *argv: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    env.update(SOLOGRAPH_HOME=str(memory.home), CLAUDE_PROJECTS_PATH=str(memory.claude_projects),
               KB_PATH=str(memory.kb_path))
    out = subprocess.run(solograph_cmd(*argv, "--json"), env=env, capture_output=True,
                         text=True, timeout=60)
    return out.stdout.rstrip("\n")


def test_the_new_reads_answer_alike_over_http_and_the_cli(client, memory):
    cases = [
        (f"/v1/sessions/read?session_id={SESSION_ID}&q=webhook&size=3",
         ["session-read", SESSION_ID, "--query", "webhook", "--size", "3"],
         reads.session_read(memory, SESSION_ID, query="webhook", size=3)),
        ("/v1/symbols/source?project=py-service&path=app/auth_middleware.py&line=1",
         ["symbol-source", "py-service", "--path", "app/auth_middleware.py", "--line", "1"],
         reads.symbol_source(memory, "py-service", "app/auth_middleware.py", 1)),
        ("/v1/kb/graph?nodes=true", ["kb-graph", "--nodes"], reads.kb_graph(memory, nodes=True)),
    ]
    for url, argv, core in cases:
        expected = reads.to_json(core)
        assert client.get(url).text == expected, url
        assert _cli(memory, *argv) == expected, argv
    listed = client.get("/v1/sessions/list?limit=2").json()
    assert listed["sessions"] == reads.session_list(memory, limit=2)["sessions"]


@pytest.fixture(scope="module")
def token_client(memory):
    with TestClient(create_app(memory.with_(token=TOKEN)), base_url="http://127.0.0.1") as c:
        yield c


@hyp_settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cookie=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e),
                      max_size=80),
       query=st.text(max_size=80))
def test_no_cookie_or_query_opens_the_page_without_the_token(token_client, cookie, query):
    from urllib.parse import quote

    r = token_client.get("/ui/sessions?" + quote(query, safe="=&"),
                         headers={"cookie": cookie}, follow_redirects=False)
    assert r.status_code in (401, 422)  # never the page, never an error of ours
