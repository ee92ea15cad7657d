"""Reciprocal rank fusion of the lexical ranking and the meaning ranking.

A unit at rank r (1-based) of a lane scores 1 / (K + r) from it; a unit's fused score is the
sum over the lanes that found it, so agreement between the lanes counts and neither lane's
raw scores (BM25, cosine: incomparable) do. K = 60 as in the original paper (Cormack et al.,
2009) and in the experiment that motivated this lane.

`first` pins lexical hits above the fusion, in their lexical order: the sessions holding every
word as written, the page whose title holds every word. Whether to pin is measured in
evals/ (both ways), not assumed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

K = 60
WORDS, MEANING = "words", "meaning"


@dataclass
class Fused:
    unit: Hashable
    score: float
    lanes: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)  # lane -> 1-based rank in it

    def to_dict(self) -> dict:
        return {"unit": self.unit, "score": round(self.score, 6), "lanes": list(self.lanes)}


def fuse(words: Sequence[Hashable], meaning: Sequence[Hashable], *, limit: int, k: int = K,
         first: Sequence[Hashable] = (), weights: tuple[float, float] = (1.0, 1.0),
         ) -> list[Fused]:
    """The units of both rankings fused, best first, at most `limit`; ties go to the better
    lexical rank, then the better meaning rank, then the unit's lexical order. `weights`
    scale each lane's share (words, meaning)."""
    found: dict[Hashable, Fused] = {}
    for lane, ranking, weight in ((WORDS, words, weights[0]), (MEANING, meaning, weights[1])):
        for rank, unit in enumerate(dict.fromkeys(ranking), 1):
            hit = found.setdefault(unit, Fused(unit, 0.0))
            hit.score += weight / (k + rank)
            hit.lanes.append(lane)
            hit.ranks[lane] = rank
    pinned = [u for u in dict.fromkeys(first) if u in found]
    rest = sorted((h for u, h in found.items() if u not in set(pinned)),
                  key=lambda h: (-h.score, h.ranks.get(WORDS, 1 << 30),
                                 h.ranks.get(MEANING, 1 << 30)))
    return ([found[u] for u in pinned] + rest)[:limit]
