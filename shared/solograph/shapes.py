"""The shape every answer's `freshness` has (freshness.py builds it), for the MCP tools'
output schemas and the type checker; apart so that a read does not build the class."""

from __future__ import annotations

from solograph.typed import NotRequired, TypedDict


class Freshness(TypedDict):
    complete: bool
    pending: int
    unreadable: int
    as_of: str | None
    # With the meaning lane on: texts (messages, sections, documents) waiting for their
    # vectors, found by their words alone until they are embedded (the worker, the detached
    # embedder, the next sync); `embedded` those with one; `meaning` how this answer was made:
    # "fused", "words" (nothing embedded yet), "late" (the query's vector missed the query time
    # limit: the lexical answer), "failed" (the model or the vectors failed: the lexical answer).
    embedding_pending: NotRequired[int]
    embedded: NotRequired[int]
    meaning: NotRequired[str]
    # The session index: {"pending", "unreadable", "as_of"} of each agent it reads; Claude
    # Code's also "unchecked" (transcripts this read did not stat, sessions/cold.py) and
    # "checked_as_of" (since when every one was stat'ed), when it left any unchecked.
    agents: NotRequired[dict[str, dict]]
