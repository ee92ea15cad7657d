"""What each job is and where it stands, kept where a broker restart cannot erase it.

Redis holds a job's message and its result, and a Redis restarted without persistence holds
neither: Celery then says PENDING for ever, the answer it gives a job still waiting in its queue.
So the API writes each job it submits into a small SQLite table next to the stores (the data
volume), and the worker writes there when it starts one and when it ends. A job the ledger
knows, that has not ended, and that the broker holds nowhere (not in its queue, not unacked, not
received by a worker, no result) was forgotten: `job_status` answers `lost`, with a hint to
run it again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from solograph.config import Settings

log = logging.getLogger("solograph.ledger")

FILE = "jobs.db"
KEEP_S = 7 * 24 * 3600  # rows older than this are dropped at the next submission
RESULT_BYTES = 64_000  # a bigger result is not kept here (the backend still has it)
ENDED = frozenset({"SUCCESS", "FAILURE", "REVOKED"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  queue TEXT NOT NULL,
  state TEXT NOT NULL,
  submitted REAL NOT NULL,
  started REAL,
  ended REAL,
  worker TEXT,
  result TEXT,
  error TEXT
)
"""


def ledger_path(settings: Settings) -> Path:
    return settings.portfolio_db.parent / FILE


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=5, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute(_SCHEMA)
    return conn


def submitted(path: Path, *, job_id: str, name: str, queue: str) -> None:
    """Written before the message is published, so a worker's start never comes first."""
    now = time.time()
    with closing(_connect(path)) as conn:
        conn.execute("INSERT OR IGNORE INTO jobs (id, name, queue, state, submitted) "
                     "VALUES (?, ?, ?, 'PENDING', ?)", (job_id, name, queue, now))
        conn.execute("DELETE FROM jobs WHERE submitted < ?", (now - KEEP_S,))


def started(path: Path, *, job_id: str, worker: str) -> None:
    """A no-op where no job was ever submitted (a worker on a host of its own, the model's
    host): the worker never makes a store of its own."""
    if not path.exists():
        return
    with closing(_connect(path)) as conn:
        conn.execute("UPDATE jobs SET state = 'STARTED', started = ?, worker = ? "
                     "WHERE id = ? AND ended IS NULL", (time.time(), worker, job_id))


def ended(path: Path, *, job_id: str, state: str, result: object = None,
          error: dict | None = None) -> None:
    """Only an end (SUCCESS, FAILURE, REVOKED) is written; a scan that hands itself over to
    its parts (IGNORED) has not ended."""
    if state not in ENDED or not path.exists():
        return
    try:
        kept = json.dumps(result)
    except (TypeError, ValueError):
        kept = None
    if kept is not None and len(kept) > RESULT_BYTES:
        kept = None
    with closing(_connect(path)) as conn:
        conn.execute("UPDATE jobs SET state = ?, ended = ?, result = ?, error = ? WHERE id = ?",
                     (state, time.time(), kept, json.dumps(error) if error else None, job_id))


def get(path: Path, job_id: str) -> dict | None:
    if not path.exists():
        return None
    with closing(_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
    if row is None:
        return None
    out = dict(row)
    out["result"] = json.loads(out["result"]) if out["result"] else None
    out["error"] = json.loads(out["error"]) if out["error"] else None
    return out


def safely(write, *args, **kwargs) -> None:
    """A ledger write from a worker's signal: a full disk must not fail the job itself."""
    try:
        write(*args, **kwargs)
    except (OSError, sqlite3.Error) as exc:
        log.warning("the job ledger was not written: %s", exc)
