"""The generic fused answer: a search answer with the meaning lane fused in.

Each index's answer side (`<index>/meaning.py`, named by its `Answer.meaning`) subclasses
`Meaning`: which query a read embeds (`query`), what the lexical answer is asked
(`lexical`), and `fuse`, which ranks the same scope by meaning (the same project, folder or
source, the asking session left out) and merges with `merge`: `fusion.fuse_search` keeps,
for a short query, the lexical first hit and the hits holding every word first, then
reciprocal rank fusion. A hit the lexical lane found keeps its fields; one found by meaning
alone is shown as the lexical lane shows its hits (`match: "meaning"` where hits say how they
matched). Every hit says which lanes found it (`lanes`), and its `score` is the fused one:
the order of the answer.
"""

from __future__ import annotations

from solograph.semantic.fusion import WORDS, fuse_search

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence
    from typing import Any

SCORE_DIGITS = 6


class Meaning:
    """One answer's meaning side."""

    def query(self, params: dict) -> str:
        """What to embed for this read ("" when it ranks nothing: a page read whole)."""
        return (params.get("query") or "").strip()

    def lexical(self, params: dict) -> dict:
        """The parameters the lexical answer is run with: what the fused answer does after
        fusing (the KB's `expand`) is left to `fuse`."""
        return params

    def fuse(self, handle: Any, answer: dict, vector, model: str, **params: Any) -> dict:
        """`answer` fused with the meaning ranking of `vector` (None: no vector in time, the
        lexical answer marked as the words lane's)."""
        raise NotImplementedError


def terms(query: str) -> int:
    from solograph.text.tokens import query_terms

    return len(query_terms(query, prose=True))


def merge(answer: dict, words: Sequence[Hashable], meaning: Sequence[Hashable], *, limit: int,
          tier: Sequence[Hashable], query: str, lexical: dict,
          render: Callable[[Any], dict | None]) -> dict:
    """The answer with its results fused: `lexical` maps a unit to its lexical hit, `render`
    makes the hit of a unit found by meaning alone (None: gone meanwhile)."""
    out = []
    for fused in fuse_search(words, meaning, limit=limit, tier=tier, terms=terms(query)):
        hit = lexical.get(fused.unit)
        if hit is None:
            hit = render(fused.unit)
            if hit is None:
                continue
        out.append({**hit, "score": round(fused.score, SCORE_DIGITS), "lanes": fused.lanes})
    return {**answer, "count": len(out), "results": out}


def words_only(answer: dict) -> dict:
    """The lexical answer, each hit marked as the words lane's (no query vector in time)."""
    results = [{**h, "lanes": [WORDS]} for h in answer.get("results", [])]
    return {**answer, "results": results}
