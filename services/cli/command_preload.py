"""What the kept command server loads before its first fork, so that each forked command
finds it done: every index's reads and sync, the hook's whole path, the command line's parser
with every command built, and with the meaning lane on, numpy and the model. Nothing here opens
a store: an SQLite connection must not cross a fork."""

from __future__ import annotations

import contextlib
import importlib

# What the hook imports as it answers (services/hook/main.py imports each where it is used).
HOOK_PATH = ("solograph_services.hook.main", "solograph.kb.paths", "solograph.kb.state",
             "solograph.kb.projectmap", "solograph.kb.aliases", "solograph.kb.hint",
             "solograph.kb.store", "solograph.kb.sync", "solograph.kb.memgate",
             "solograph.kb.stacks", "solograph.usage", "solograph.kb.walk")


def preload() -> None:
    """What a read imports, imported before the first fork."""
    from solograph import indexes, reads  # noqa: F401
    from solograph.index import resolve
    from solograph_services.cli import main, output  # noqa: F401

    refs = ["solograph.readers:keep", "solograph.semantic.read:begin"]
    for index in indexes.all_indexes():
        refs += [index.db, index.open, index.as_of, index.sync, *(a.run for a in index.answers)]
    for ref in filter(None, refs):
        with contextlib.suppress(Exception):
            resolve(ref)
    for module in HOOK_PATH:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    import _sha256  # noqa: F401 - the hook's content hashes
    import json  # noqa: F401

    import solograph.migrations  # noqa: F401

    with contextlib.suppress(ImportError):
        import Stemmer  # noqa: F401
    main.PREBUILT.append(main.build_parser())
    _warm(main.PREBUILT[0][0], [index.name for index in indexes.all_indexes()])
    with contextlib.suppress(Exception):
        _preload_lane([a.meaning for index in indexes.all_indexes() for a in index.answers])


def _preload_lane(meanings: list[str]) -> None:
    """numpy and the model (~130 ms of a fused read), when the environment the server starts
    in has the lane on. Loading runs none of the engine's threads (one is set before any
    work), so nothing the fork cannot copy exists yet; each child starts its own query thread."""
    from solograph.config import Settings
    from solograph.index import resolve
    from solograph.semantic import enabled

    if not enabled(Settings.from_env()):
        return
    from solograph.semantic.embedder import load_numpy, shared_embedder

    load_numpy()
    shared_embedder()._load()
    for ref in filter(None, meanings):
        resolve(ref)
    for module in ("read", "fusion", "matrix", "stores", "work", "kb", "sessions", "sources"):
        importlib.import_module(f"solograph.semantic.{module}")


def _warm(parser, stores: list[str]) -> None:
    """What each process would otherwise do on its first read: argparse compiles its patterns
    on the first parse, SQLite initialises itself on the first connection (one in memory, closed
    before any fork: no connection crosses one), readers list the migrations they check."""
    import sqlite3

    from solograph.store import migration_names

    for argv in (["symbols", "x", "--json"], ["sessions", "x", "-p", "x", "--json"],
                 ["kb", "x", "--json"], ["sources", "search", "x", "--json"]):
        with contextlib.suppress(BaseException):
            parser.parse_args(argv)
    sqlite3.connect(":memory:").close()
    for store in stores:
        with contextlib.suppress(Exception):
            migration_names(store)
