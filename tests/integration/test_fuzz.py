"""Schema-driven fuzzing of both HTTP apps (schemathesis): the API and the sources search API,
each from its own OpenAPI document, with a bounded number of examples per operation and a
fixed seed (hypothesis' derandomize), so a run is the same every time and stays at a few
hundred requests. Whatever a client sends, no answer is a 5xx.

The API gets a real Redis (jobs are queued, never run: no worker) on its own database, emptied
after; both apps get a token, so the guard's paths are fuzzed too.
"""

from __future__ import annotations

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, given, settings

from solograph.config import Settings
from solograph.kb.sync import index_kb
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.sources.store import Document, put, writing
from solograph_services.api.app import create_app
from solograph_services.search.app import create_app as create_search_app
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio

pytestmark = [pytest.mark.integration]

TOKEN = "fuzz-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXAMPLES = 10  # per operation: about 25 API operations and 4 search ones
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, redis_url: str, svc) -> Settings:
    base = tmp_path_factory.mktemp("fuzz")
    (base / "claude-projects").mkdir()
    url = svc.with_db(redis_url, svc.DB["fuzz"])
    found = Settings(home=base / "home", scan_paths=(make_portfolio(base),), kb_path=make_kb(base),
                     claude_projects=base / "claude-projects", redis_url=url, token=TOKEN,
                     allowed_hosts=("testserver",), search_rate=100_000)
    refresh_registry(found)
    scan_portfolio(found)
    index_kb(found)
    with writing(found.sources_db) as conn:
        put(conn, [Document("youtube", "pricing", "Pricing tiers",
                            text="How to price a SaaS: three tiers and an annual discount")])
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield found
    client.flushdb()
    client.close()


@pytest.fixture(scope="module")
def api_schema(home: Settings):
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(home), headers=AUTH)


@pytest.fixture(scope="module")
def search_schema(home: Settings):
    return schemathesis.openapi.from_asgi("/openapi.json", create_search_app(home),
                                          headers=AUTH)


def fuzz(schema) -> int:
    """Every operation of `schema`, EXAMPLES cases each; the number of requests made. (The
    schemathesis pytest plugin is not used: it does not load under this pytest.)"""
    sent = 0
    for found in schema.get_all_operations():
        operation = found.ok()

        @FUZZ
        @given(operation.as_strategy())
        def one(case) -> None:
            nonlocal sent
            sent += 1
            response = case.call(headers=AUTH)
            assert response.status_code < 500, (case.method, case.formatted_path, case.query,
                                                 response.status_code, response.text[:300])

        one()
    return sent


def test_the_api_answers_no_5xx(api_schema) -> None:
    sent = fuzz(api_schema)
    print("api requests", sent)
    assert sent > 50


def test_the_search_api_answers_no_5xx(search_schema) -> None:
    sent = fuzz(search_schema)
    print("search requests", sent)
    assert sent > 10
