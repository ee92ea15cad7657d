"""Adding an index is one package with the four entry modules (store, sync, search, answers)
and one line in the index list: the CLI, the HTTP API, the MCP tools, the worker, the usage
report and the health probes pick it up. The toy index (tests/support/toy_index) proves it."""

from __future__ import annotations

import json
import os

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from solograph import indexes, reads
from solograph.config import Settings
from solograph_services.api.app import create_app
from solograph_services.cli.main import main
from solograph_services.common import health, jobs
from solograph_services.mcp.server import build_server
from solograph_services.worker.app import create_worker_app

TOY = "tests.support.toy_index"


@pytest.fixture
def toy(tmp_path, monkeypatch) -> Settings:
    monkeypatch.setattr(indexes, "PACKAGES", [*indexes.PACKAGES, TOY])
    settings = Settings(home=tmp_path / "home")
    notes = settings.home / "toy-notes"
    notes.mkdir(parents=True)
    (notes / "tea.txt").write_text("Boil the kettle, then steep the leaves for three minutes.")
    (notes / "bike.txt").write_text("Oil the chain after a wet ride.")
    for note in notes.iterdir():
        os.utime(note, (1_700_000_000, 1_700_000_000))
    monkeypatch.setenv("SOLOGRAPH_HOME", str(settings.home))
    for name in [n for n in os.environ if n.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_"))]:
        if name != "SOLOGRAPH_HOME":
            monkeypatch.delenv(name)
    monkeypatch.setenv("SOLOGRAPH_SEMANTIC", "off")  # as `settings`: the lane has its own test
    return settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_read_path_syncs_it_and_dates_it(toy):
    answer = reads.read("toy_search", toy, query="kettle")
    assert [r["note"] for r in answer["results"]] == ["tea.txt"]
    assert answer["freshness"] == {"complete": True, "pending": 0, "unreadable": 0,
                                   "as_of": "2023-11-14T22:13:20Z"}


def test_the_cli_has_its_read_and_its_job(toy, capsys):
    assert main(["index-toy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == 2
    assert main(["toy", "kettle", "--limit", "3", "--json"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == reads.to_json(reads.read("toy_search", toy, query="kettle", limit=3))
    assert main(["toy", "chain"]) == 0
    assert "bike.txt" in capsys.readouterr().out


def test_the_api_serves_it_and_queues_its_job(toy):
    with TestClient(create_app(toy), base_url="http://127.0.0.1") as c:
        r = c.get("/v1/toy", params={"q": "kettle"})
        job = c.post("/v1/jobs/index-toy")  # no broker here: refused, but the route is there
        spec = c.get("/openapi.json").json()
        probe = c.get("/health").json()
    assert r.status_code == 200
    assert r.content == reads.to_json(reads.read("toy_search", toy, query="kettle")).encode()
    assert job.status_code == 503 and job.json()["error"] == "config_error"
    assert "/v1/toy" in spec["paths"] and "/v1/jobs/index-toy" in spec["paths"]
    assert probe["stores"]["toy"]["present"] is True
    assert probe["stores"]["toy"]["migrations_current"] is True


@pytest.mark.anyio
async def test_mcp_offers_it_as_a_tool_with_its_schema(toy):
    async with Client(build_server(toy)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("toy_search", {"query": "kettle"})
    assert listed["toy_search"].output_schema["properties"]["results"]
    assert all(t.output_schema for t in listed.values())  # every tool publishes its schema
    assert listed["toy_search"].annotations.read_only_hint is True
    assert result.content[0].text == reads.to_json(reads.read("toy_search", toy,
                                                              query="kettle"))


def test_the_worker_runs_its_job_and_health_and_usage_know_it(toy):
    assert jobs.job_table()["index_toy"].queue == "toy" and "toy" in jobs.queues()
    app = create_worker_app(toy.with_(redis_url="redis://127.0.0.1:1/0"))
    report = app.tasks["solograph.index_toy"].apply().get()
    assert report["notes"] == 2
    assert set(health.stores(toy)) == {"portfolio", "sessions", "kb", "sources", "toy"}
    from solograph.usage import search_tools

    assert search_tools()["toy_search"] == "toy"


@pytest.mark.skipif(not __import__("solograph.semantic").semantic.available(),
                    reason="the `semantic` extra is not installed")
def test_its_own_meaning_module_gives_it_vectors_and_fused_answers(toy):
    """Its part of the meaning lane is one module (toy_index/meaning.py, named by `lane`):
    the engine embeds it, counts what waits and fuses its answer, knowing no more of it."""
    from solograph.semantic.stores import embed_store, stores

    assert "toy" in stores()
    reads.read("toy_search", toy, query="kettle")  # synced
    on = toy.with_(semantic="on", sync_budget_ms=0)
    waiting = reads.read("toy_search", on, query="kettle")
    assert waiting["freshness"]["embedding_pending"] == 2
    assert [(r["note"], r["lanes"]) for r in waiting["results"]][:1] == [("tea.txt", ["words"])]
    assert embed_store(toy, "toy")["embedded"] == 2
    # No word of the question is in any note: only the meaning lane can answer it.
    assert reads.read("toy_search", toy, query="brewing a hot beverage")["results"] == []
    fused = reads.read("toy_search", on, query="brewing a hot beverage")
    assert fused["freshness"]["embedding_pending"] == 0
    assert fused["results"][0]["note"] == "tea.txt"
    assert fused["results"][0]["lanes"] == ["meaning"]
    report = jobs.job_table()["embed_toy"]
    assert report.queue == "toy"
