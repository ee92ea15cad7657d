"""The sources search API for SearXNG: written through the scrapers' and yt-dlp's code, read
through a real `solograph http` server, parsed by SearXNG's json_engine (tests/support/searxng)
configured with the settings.yml block from docs/searxng.md. Guard, token, read-only and rate
limit semantics run in-process through the ASGI app."""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from solograph import reads
from solograph.config import Settings
from solograph.errors import ConfigError
from solograph_services.common.crawls import run_crawl
from solograph_services.search.app import create_app
from solograph_services.search.ratelimit import TokenBuckets
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http
from tests.support.searxng import JsonEngine
from tests.support.sites import PRODUCTHUNT, serve_site
from tests.support.sources import TALK_ID, build_sources

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
LOCAL = "http://127.0.0.1"


def engine_block(port: int, extra: str = "") -> dict:
    """The `sources_local` engine exactly as docs/searxng.md gives it, pointed at `port`."""
    text = (ROOT / "docs" / "searxng.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(engines:.*?)```", text, flags=re.S).group(1)
    engine = next(e for e in yaml.safe_load(block)["engines"] if e["name"] == "sources_local")
    engine["search_url"] = engine["search_url"].replace("http://search:8002",
                                                        f"http://127.0.0.1:{port}") + extra
    return engine


def fetch(params: dict) -> tuple[int, str]:
    request = urllib.request.Request(params["url"], headers=params["headers"],
                                     method=params["method"])
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def child_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLOGRAPH_")}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "PYTHONUNBUFFERED": "1",
            "SOLOGRAPH_SEMANTIC": settings.semantic, **extra}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Settings:
    """Talks through yt-dlp's processing, launches through the real spider, Telegram."""
    base = tmp_path_factory.mktemp("search-api")
    settings = Settings(home=base / "home")
    build_sources(settings, base)
    with serve_site(PRODUCTHUNT) as site:
        report = run_crawl(settings, "producthunt", start_url=site.url("/"), delay=0)
    assert report["indexed"] == 5
    return settings


@pytest.fixture(scope="module")
def server(indexed, tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("search-logs") / "http.log"
    with process(solograph_cmd("http", "--port", str(port)), env=child_env(indexed),
                 log=log) as proc:
        try:
            wait_for_http(f"{LOCAL}:{port}/health", proc=proc)
        except (RuntimeError, TimeoutError):
            pytest.fail(log.read_text(errors="replace"))
        yield port


def test_searxng_reads_every_result(server):
    engine = JsonEngine(engine_block(server))
    params = engine.request("pricing tiers")
    assert params["url"] == f"{LOCAL}:{server}/search?q=pricing+tiers&n=5"
    status, body = fetch(params)
    assert status == 200
    results = engine.response(status, body)
    assert len(results) == 5 == json.loads(body)["count"]
    assert all(r["url"].startswith("http") and r["title"] and r["content"] for r in results)
    talk = next(r for r in results if "youtube.com" in r["url"])
    assert talk["url"] == f"https://www.youtube.com/watch?v={TALK_ID}&t=140s"
    assert talk["content"].startswith("[2:20] so let us talk about pricing tiers")
    assert any(r["url"].endswith("/posts/tierwise") for r in results)  # the spider's launch


def test_a_per_source_engine_and_a_russian_query(server):
    engine = JsonEngine(engine_block(server, "&source=youtube"))
    status, body = fetch(engine.request("distribution twitter"))
    results = engine.response(status, body)
    assert results and all("youtube.com/watch" in r["url"] and "&t=" in r["url"]
                           for r in results)
    params = engine.request("графы и fts5 ranking")
    assert "q=%D0%B3%D1%80%D0%B0%D1%84%D1%8B+%D0%B8+fts5+ranking" in params["url"]
    status, body = fetch(params)
    assert status == 200 and json.loads(body)["query"] == "графы и fts5 ranking"


def test_the_same_bytes_as_the_cli_and_the_core(server, indexed):
    with urllib.request.urlopen(f"{LOCAL}:{server}/search?q=pricing+tiers&n=5") as r:
        over_http = r.read().decode()
    core = reads.to_json(reads.source_search(indexed, "pricing tiers", limit=5))
    cli = subprocess.run(solograph_cmd("sources", "search", "pricing tiers", "-n", "5", "--json"),
                         env=child_env(indexed), capture_output=True, text=True, timeout=60)
    assert over_http == core == cli.stdout.rstrip("\n")
    with urllib.request.urlopen(f"{LOCAL}:{server}/sources") as r:
        assert json.loads(r.read())["action"] == "list"
    with urllib.request.urlopen(f"{LOCAL}:{server}/health") as r:
        health = json.loads(r.read())
    assert health["ok"] and health["index"]["documents"] > 50


def test_the_json_of_the_search_api_it_replaced(server, indexed):
    """/health, /search and /sources keep the fields the earlier solograph-search answered
    with, beside the new ones."""
    def get(path: str) -> tuple[int, dict]:
        status, body = fetch({"url": f"{LOCAL}:{server}{path}", "headers": {},
                              "method": "GET"})
        return status, json.loads(body)

    status, health = get("/health")
    listed = reads.source_search(indexed, action="list")["sources"]
    assert status == 200 and health["status"] == "ok" and health["empty"] is False
    assert health["sources"] == len(listed) == 4  # producthunt, telegram, trustmrr, youtube
    assert health["total"] == sum(s["count"] for s in listed)
    youtube = next(s for s in listed if s["source"] == "youtube")
    assert youtube["count"] == 2 == youtube["items"] < youtube["documents"]  # two talks
    status, found = get("/search?q=pricing+tiers&n=5")
    assert status == 200
    for hit in found["results"]:
        assert hit["doc_id"] == hit["id"] and hit["source_name"] == hit["source"]
        assert hit["created"] == hit["date"] and 0 < hit["relevance"] < 1
    kinds = {h["source_type"] for h in found["results"]}
    assert "youtube-transcript" in kinds and "producthunt" in kinds
    ranked = [h["relevance"] for h in found["results"] if h["match"] == "all"]
    assert ranked == sorted(ranked, reverse=True)  # it orders as the score does
    # `tags` a comma-separated string on every hit; a talk's chunk says its chapter and second
    assert all(isinstance(h["tags"], str) for h in found["results"])
    talk = next(h for h in found["results"] if h["source_type"] == "youtube-transcript")
    assert "pricing" in talk["tags"].split(", ")
    assert (talk["chapter"], talk["start_time"], talk["start_seconds"]) == (
        "Pricing tiers", "2:20", 140.0) and talk["t"] == 140
    status, sources = get("/sources")
    tube = next(s for s in sources["sources"] if s["source"] == "youtube")
    assert tube["videos"] == 2 and tube["video_chunks"] == tube["documents"] - 2  # no @about
    assert all(s["path"] == "search.db" for s in sources["sources"])
    status, unknown = get("/search?q=pricing&source=vimeo")
    assert status == 400 and unknown["available"] == [
        "producthunt", "telegram", "trustmrr", "youtube"]
    status, missing = get("/search")
    assert status == 400 and missing["error"] == "bad_query"
    assert get("/sources")[1]["sources"][0]["count"] > 0


def test_an_empty_index_is_no_result_for_searxng(tmp_path):
    empty = Settings(home=tmp_path / "home")
    client = TestClient(create_app(empty), base_url=LOCAL)
    response = client.get("/search", params={"q": "pricing"})
    assert response.status_code == 200 and response.json()["results"] == []
    assert "nothing indexed yet" in response.json()["note"]
    listed = client.get("/sources")
    assert listed.status_code == 200 and listed.json()["sources"] == []  # as the replaced API
    unknown = client.get("/search", params={"q": "pricing", "source": "vimeo"})
    assert unknown.status_code == 400 and unknown.json()["error"] == "bad_query"
    assert unknown.json()["available"] == ["producthunt", "telegram", "trustmrr", "youtube"]
    assert client.get("/sources", params={"source": "vimeo"}).status_code == 400
    for body in (response.text, listed.text, unknown.text):  # the home stays the server's
        assert str(tmp_path) not in body and "search.db" not in body
    engine = JsonEngine(engine_block(8002))
    assert engine.response(response.status_code, response.text) == []
    assert client.get("/search", params={"q": "pricing", "source": "youtube"}).status_code == 200
    assert client.get("/search").status_code == 400  # a missing `q` is still the client's error
    health = client.get("/health")
    assert health.status_code == 200  # up, with nothing indexed yet, and saying so
    assert health.json()["status"] == "ok" and health.json()["total"] == 0
    assert health.json()["sources"] == 0 and health.json()["empty"] is True


def test_a_query_without_words_is_no_result_for_searxng(server):
    engine = JsonEngine(engine_block(server))
    status, body = fetch(engine.request("!!! ???"))
    assert status == 400 and json.loads(body)["error"] == "bad_query"
    assert engine.response(status, body) == []


# --------------------------------------------------------------------------- in-process


@pytest.fixture
def client(indexed) -> TestClient:
    return TestClient(create_app(indexed), base_url=LOCAL)


def test_read_only_and_bad_requests(client):
    assert client.post("/search", params={"q": "x"}).status_code == 405
    assert client.delete("/sources").headers["allow"] == "GET, HEAD"
    assert client.get("/admin").status_code == 404
    assert client.get("/search", params={"q": "pricing", "n": "0"}).status_code == 400
    assert client.get("/search", params={"q": "pricing", "n": "abc"}).status_code == 400
    assert client.get("/search").json()["error"] == "bad_query"
    head = client.head("/search", params={"q": "pricing"})
    assert head.status_code == 200 and head.content == b""
    assert client.get("/search", params={"q": "pricing", "source": "youtube"}).json()[
        "source"] == "youtube"


def test_host_and_origin_are_checked(client):
    assert client.get("/health", headers={"host": "evil.example"}).status_code == 421
    refused = client.get("/search", params={"q": "pricing"},
                         headers={"origin": "https://evil.example"})
    assert refused.status_code == 403
    assert client.get("/search", params={"q": "pricing"},
                      headers={"origin": "http://127.0.0.1:8002",
                               "host": "127.0.0.1:8002"}).status_code == 200
    assert client.get("/search", params={"q": "pricing"},
                      headers={"origin": "http://127.0.0.1:3000",
                               "host": "127.0.0.1:8002"}).status_code == 403


def test_a_number_of_results_in_other_digits_is_a_bad_query(client):
    for n in ("³", "٣", "1e3", " 5x", "99999999999"):
        answer = client.get("/search", params={"q": "pricing", "n": n})
        assert answer.status_code == 400, n
        assert answer.json()["error"] == "bad_query"


def test_its_own_token(indexed):
    shared = indexed.with_(search_token="team-search-token-0123456789", token="other")
    client = TestClient(create_app(shared), base_url=LOCAL)
    assert client.get("/search", params={"q": "pricing"}).status_code == 401
    assert client.get("/search", params={"q": "pricing"},
                      headers={"authorization": "Bearer other"}).status_code == 401
    ok = client.get("/search", params={"q": "pricing"},
                    headers={"authorization": "Bearer team-search-token-0123456789"})
    assert ok.status_code == 200
    assert client.get("/health").status_code == 200  # probes need no token


def test_beyond_loopback_needs_a_token(indexed):
    wide = indexed.with_(host="0.0.0.0")
    with pytest.raises(ConfigError):
        create_app(wide)
    create_app(wide.with_(search_token="t" * 32))


def test_rate_limited_per_client(indexed):
    client = TestClient(create_app(indexed.with_(search_rate=1)), base_url=LOCAL)
    codes = [client.get("/search", params={"q": "pricing"}).status_code for _ in range(4)]
    assert codes[:2] == [200, 200] and codes[-1] == 429  # a burst of 2, then the bucket is dry
    limited = client.get("/search", params={"q": "pricing"})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert client.get("/health").status_code == 200


def test_token_bucket_refills():
    now = [0.0]
    buckets = TokenBuckets(rate=2, burst=2, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.5]
    assert buckets.take("b") == 0.0  # another client has its own bucket
    now[0] = 0.5
    assert buckets.take("a") == 0.0
