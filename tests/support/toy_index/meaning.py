"""The toy index's part of the meaning lane, the whole of it: one vector per note, ranked by
cosine and fused with the words. A lane is this one module and its migration."""

from __future__ import annotations

from contextlib import closing

from solograph.semantic.answers import Meaning, fused_answer
from solograph.semantic.lane import StoreLane
from solograph.store import connect_writer
from tests.support.toy_index.store import db_path


class ToyLane(StoreLane):
    store = "toy"
    table = "note_vectors"
    key = "note"
    unit_join = "JOIN notes n ON n.id = {unit}"
    group = "n.name"
    noun = "notes"
    texts_sql = "SELECT id, text FROM notes WHERE id IN ({marks})"

    def writer(self, settings):
        return closing(connect_writer(db_path(settings), self.store))

    def passage(self, *row: object) -> str:
        return str(row[0])


LANE = ToyLane()


class ToyMeaning(Meaning):
    def fuse(self, handle, answer: dict, vector, model: str, *, query: str,
             limit: int = 5) -> dict:
        results = answer["results"]
        return fused_answer(LANE, handle.conn, answer, vector, model, query=query, limit=limit,
                            words=[h["note"] for h in results],
                            lexical={h["note"]: h for h in results},
                            render=lambda name, _note: {"note": name, "score": 0.0})


SEARCH = ToyMeaning()


def embed_job(settings) -> dict:
    """The toy index's embed write job, as every lane has one."""
    from solograph.semantic.stores import embed_job as run

    return run(settings, LANE.store)
