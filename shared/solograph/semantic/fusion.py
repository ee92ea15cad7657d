"""Reciprocal rank fusion of the lexical ranking and the meaning ranking.

A unit at rank r (1-based) of a lane scores 1 / (K + r) from it; a unit's fused score is the
sum over the lanes that found it, so agreement between the lanes counts and neither lane's
raw scores (BM25, cosine: incomparable) do. K = 60 as in the original paper (Cormack et al.,
2009) and in the experiment that motivated this lane.

`first` pins lexical hits above the fusion, in their lexical order. `fuse_search` is the
policy the reads take, measured in evals/ (EVAL_FUSION): for a query of at most PIN_TERMS
content words (a name, an id, keywords: a lookup) the lexical first hit and the units
holding every word come first, then the fusion; a longer question is fused whole (there the
every-word tier is whichever long page or conversation holds its common words). Measured
(r@1 / r@5; KB pages: catalogs not embedded):

| suite | lexical | meaning alone | plain fusion | tier always first | this policy |
|---|---|---|---|---|---|
| sessions, keyword cases | .981 / 1.0 | .750 / .923 | .865 / .981 | .962 / 1.0 | .962 / .981 |
| sessions, questions | .548 / .742 | .677 / .871 | .710 / .903 | .613 / .903 | .710 / .903 |
| KB (hand aliases) | .874 / .966 | .664 / .840 | .824 / .924 | .807 / .924 | .849 / .950 |
| KB, questions | .353 / .529 | .706 / .912 | .735 / .882 | .735 / .882 | .735 / .882 |
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

K = 60
PIN_TERMS = 3
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


def fuse_search(words: Sequence[Hashable], meaning: Sequence[Hashable], *, limit: int,
                tier: Sequence[Hashable], terms: int) -> list[Fused]:
    """The fusion a search answers with: `tier` is the lexical units holding every word of
    the query, `terms` how many content words it has (text.tokens.query_terms, prose)."""
    first: list[Hashable] = []
    if 0 < terms <= PIN_TERMS and words:
        held = set(tier)
        first = [words[0], *(u for u in words[1:] if u in held)]
    return fuse(words, meaning, limit=limit, first=first)
