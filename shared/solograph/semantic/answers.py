"""The generic fused answer: a search answer with the meaning lane fused in.

Each index's answer side (`<index>/meaning.py`, named by its `Answer.meaning`) subclasses
`Meaning`: which query a read embeds (`query`), what the lexical answer is asked
(`lexical`), and `fuse`, which says what the lexical hits are in the lane's terms (the groups
its matrix ranks: a session, a page, a video), which of them hold every word, whether the
first is confident, and how a hit found by meaning alone is shown; `fused_answer` does the
rest the same way for every index: the meaning ranking over the same scope, the fusion
(`fusion.fuse_search`), each hit with the lanes that found it (`lanes`) and a `score` that
follows the order of the answer.
"""

from __future__ import annotations

from solograph.semantic.fusion import WORDS, K, fuse_search

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Hashable, Sequence
    from typing import Any

    from solograph.semantic.lane import StoreLane

SCORE_DIGITS = 6
# Ranked by meaning per read: enough to fill any answer and to fuse with its lexical hits.
DEPTH = 50


class Meaning:
    """One answer's meaning side."""

    def query(self, params: dict) -> str:
        """What to embed for this read ("" when it ranks nothing: a page read whole)."""
        return (params.get("query") or "").strip()

    def lexical(self, params: dict) -> dict:
        """The parameters the lexical answer is run with: what the fused answer does after
        fusing (the KB's `expand`) is left to `fuse`."""
        return params

    def fuse(self, *args: Any, **params: Any) -> dict:
        """(handle, answer, vector, model, **the read's parameters): `answer` fused with the
        meaning ranking of `vector` (None: no vector in time, the lexical answer marked as
        the words lane's)."""
        raise NotImplementedError


def by_group(results: list[dict], field: str,
             ids_of: Callable[[list], dict]) -> tuple[list, dict]:
    """The lexical hits as the lane's groups, in order (`ids_of`: the hits' `field` values ->
    their groups; -1 for a hit gone meanwhile), and each group's hit."""
    ids = ids_of([h[field] for h in results])
    groups = [ids.get(h[field], -1) for h in results]
    return groups, dict(zip(groups, results, strict=True))


def depth(limit: int) -> int:
    return max(DEPTH, limit)


def terms(query: str) -> int:
    from solograph.text.tokens import query_terms

    return len(query_terms(query, prose=True))


def fused_answer(lane: StoreLane, conn: sqlite3.Connection, answer: dict, vector: Any,
                 model: str,
                 *, query: str, limit: int, words: Sequence[Hashable],
                 lexical: dict[Hashable, dict], tier: Sequence[Hashable] = (),
                 confident: bool = False, allowed: Callable[[list], set] | None = None,
                 ranked: list[tuple[Any, float, int]] | None = None,
                 render: Callable[[Any, int], dict | None]) -> dict:
    """`answer` fused: `words` are its hits as the lane's groups, in order, `lexical` maps a
    group to its hit, `tier` the groups holding every word, `allowed` picks the groups the
    read's scope allows (or `ranked` is the meaning ranking, made by the index), and
    `render(group, unit)` shows a group found by meaning alone at
    the unit (message, section, document) that found it (None: gone meanwhile)."""
    if vector is None:
        return words_only(answer)
    if ranked is None:
        ranked = lane.rank(conn, vector, depth(limit), model=model, allowed=allowed)
    best = {group: unit for group, _, unit in ranked}
    fused = fuse_search(words, [(group, cos) for group, cos, _ in ranked], limit=limit,
                        tier=tier, terms=terms(query), confident=confident,
                        waiting=lane.waiting(conn, list(dict.fromkeys(words))))
    out = []
    for hit in fused:
        shown = lexical.get(hit.unit)
        if shown is None:
            shown = render(hit.unit, best[hit.unit])
            if shown is None:
                continue
        out.append({**shown, "score": hit.score, "lanes": hit.lanes})
    return {**answer, "count": len(out), "results": in_order(out)}


def in_order(hits: list[dict]) -> list[dict]:
    """Each hit's `score` on one scale that follows the answer's order: a hit pinned above
    better-fused ones (a lookup's every-word tier) takes the score of the one below it."""
    floor = 0.0
    for hit in reversed(hits):
        floor = max(floor, float(hit["score"]))
        hit["score"] = round(floor, SCORE_DIGITS)
    return hits


def relevance(score: float) -> float:
    """A fused score as 0..1: its share of the best a unit can score (first in both lanes)."""
    return round(min(0.9999, max(0.0001, score / (2 / (K + 1)))), 4)


def words_only(answer: dict) -> dict:
    """The lexical answer, each hit marked as the words lane's (no query vector in time)."""
    results = [{**h, "lanes": [WORDS]} for h in answer.get("results", [])]
    return {**answer, "results": results}
