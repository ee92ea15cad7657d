"""What an index is: the one description every adapter reads.

An index (portfolio, sessions, kb, sources) is a package with the same four entry modules:
`store` (open, upkeep), `sync` (disk to index, and its write jobs), `search` (ranking) and
`answers` (every answer it gives, typed), and a fifth, `meaning`, where it has vectors (its
part of the meaning lane, `lane`). Its `__init__` holds an `Index`: the name shared by
its store, migrations folder and queue; how it opens and syncs before a read; how it tells
`as_of`; its answers (the public reads: the CLI, the HTTP API and the MCP tools are built from
them) and its write jobs (the worker's tasks). Adapters never list indexes by hand: they walk
`solograph.indexes.INDEXES`.

References to code are "module:attribute" strings, resolved on first use, so describing every
index imports none of them: a command pays only for the index it runs.
"""

from __future__ import annotations

import importlib

from solograph.frozen import Frozen

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path
    from typing import Any

    from solograph.config import Settings

REQUIRED: Any = ...  # a Param without a default must be given


def resolve(ref: str) -> Any:
    """The object a "module:attribute" reference names (imported on first call)."""
    module, _, attr = ref.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


class Param(Frozen):
    """One argument of an answer, as every adapter offers it."""

    name: str
    type: type  # str, int or bool
    help: str
    default: Any = REQUIRED
    choices: tuple[str, ...] = ()
    # The HTTP query parameter's name where it differs (`q` for a query).
    http: str = ""
    max_length: int = 500
    # Filled by the adapter, never asked of the client: MCP's session of the caller.
    caller: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def http_name(self) -> str:
        return self.http or self.name


class Answer(Frozen):
    """One public read: `run(handle, **params)` returns its answer dict."""

    name: str  # the MCP tool, the usage-log name and the `solograph.reads` function
    run: str  # "module:function"
    params: tuple[Param, ...]
    title: str
    description: str  # when to use it, with an example (MCP and the API docs)
    route: str  # the HTTP path, "/v1/..."
    schema: str = ""  # "module:TypedDict" of the answer: the MCP output schema
    command: str = ""  # the CLI command a generic adapter adds (hand-made ones claim theirs)
    tool: bool = True  # offered as an MCP tool
    always_load: bool = False  # loaded with the agent's session (`anthropic/alwaysLoad`)
    sync: bool = True  # sync the index (within the budget) before answering
    bounded: bool = True  # under the query time limit
    fresh: bool = True  # carries `freshness`
    # "module:attribute" of its meaning side (a semantic.answers.Meaning in its index's
    # meaning module): the answer fused with the meaning lane when the lane is on; "" =
    # lexical only (symbol search, the hook's reads).
    meaning: str = ""


class Job(Frozen):
    """One write job: `run(settings, **kwargs)` returns its report dict."""

    name: str  # the job's name for the API, the CLI and the worker ("sync_sessions")
    run: str  # "module:function"
    summary: str
    route: str = ""  # POST /v1/jobs/<route> when offered to clients ("" = not offered)
    # The worker holds this store's lock while it runs (one writer of the store at a time).
    locked: bool = True
    # Safe to run twice (unchanged files are skipped): redelivered after a worker died.
    idempotent: bool = True
    # The command a generic adapter adds for a job that takes no arguments (hand-made ones
    # claim theirs: `scan`, `sync-sessions`, ...); "" = none.
    command: str = ""


class Index(Frozen):
    name: str  # its store, migrations folder and queue
    title: str
    db: str  # "module:function": (settings) -> the path of its SQLite file
    open: str  # "module:function": (settings) -> a context manager yielding a Handle
    as_of: str  # "module:function": (conn) -> ISO time of the newest thing it holds
    answers: tuple[Answer, ...]
    jobs: tuple[Job, ...] = ()
    # "module:function": (handle, deadline) -> Synced, run before a read; "" = none.
    sync: str = ""
    # The job that finishes what a read's sync left pending, handed to the worker.
    sync_job: str = ""
    # The job that embeds what waits for vectors (the meaning lane): queued by the worker after
    # each of the index's write jobs, handed to it by a read that counted `embedding_pending`.
    embed_job: str = ""
    # "module:attribute" of its part of the meaning lane (a semantic.lane.StoreLane in its
    # `meaning` module: which rows wait for vectors, what they embed, how they rank); "" =
    # no vectors.
    lane: str = ""
    pending_note: str = ""
    # "module:function": (settings) -> {"path", "present", "files", "unreadable"}: a look at
    # the folder the index reads, without syncing it, for /health; "" = none.
    folder: str = ""
    # The package whose folder holds `<name>/*.sql` (an index outside the core ships its own).
    migrations: str = ""
    # "module:function": (settings) -> report: its full-text tables made again from what the
    # index holds (FTS is derived state), for `solograph rebuild`; "" = none.
    rebuild: str = ""

    def path(self, settings: Settings) -> Path:
        return resolve(self.db)(settings)

    def answer(self, name: str) -> Answer | None:
        return next((a for a in self.answers if a.name == name), None)

    def job(self, name: str) -> Job | None:
        return next((j for j in self.jobs if j.name == name), None)


class Handle:
    """An open index for one read: its connection and the settings it was opened with.
    Indexes whose answers need more (the KB's folder and layout) subclass it."""

    def __init__(self, conn: sqlite3.Connection, settings: Settings) -> None:
        self.conn = conn
        self.settings = settings

    def close(self) -> None:
        self.conn.close()


class Synced(Frozen):
    """What a read's sync left: changed files not read yet, files it could not read."""

    pending: int = 0
    unreadable: int = 0
    # Per source where an index reads several (the sessions of each agent): name ->
    # {"pending", "unreadable", "as_of"}; None where there is one.
    agents: dict | None = None
