"""Reciprocal rank fusion of the lexical ranking and the meaning ranking, and the policy a
search fuses by.

A unit at rank r (1-based) of a lane scores 1 / (K + r) from it; a unit's fused score is the
sum over the lanes that found it, so agreement between the lanes counts and neither lane's
raw scores (BM25, cosine: incomparable) do. K = 60 as in the original paper (Cormack et al.,
2009).

`fuse_search` is what the reads answer with (`Policy`, measured in evals/ at 0, 25, 50 and
100 % of a store embedded; the table is in evals/README.md):

- **never worse for want of a vector**: a lexical hit some of whose texts still wait for
  their vectors has no meaning rank yet; it is given its lexical rank as its meaning rank
  (the lanes taken to agree), so a store not embedded yet answers exactly as words do, and
  the lexical first hit is never pushed down because its text has no vector;
- **lookups stay lookups**: for a query of at most `pin_terms` content words (a name, an
  id, keywords) the lexical first hit and the hits holding every word come first, then the
  fusion; for any query, a confident lexical first hit (a score `margin` times any other
  hit's) stays first;
- **a floor for meaning alone**: a unit only the meaning lane found must reach `floor`
  (cosine; `short_floor` for one or two words) when the words found nothing, so a word found
  nowhere answers nothing rather than the nearest texts of an unrelated store.

Chosen over pinning three words with a confident hit that also holds every word in one
message (the KB cases lost .023 of recall@1 to it, the sessions .019) and over no imputation
(half embedded, the session questions fell from .486 to .162).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace

K = 60
SHORT_TERMS = 2  # a name or two: e5 puts any short text near everything (cosine .81-.85)
WORDS, MEANING = "words", "meaning"


@dataclass(frozen=True)
class Policy:
    pin_terms: int = 4  # queries of at most this many content words pin the every-word tier
    confident: bool = True  # a confident lexical first hit stays first, whatever the length
    margin: float = 1.5  # ...when its score is this many times any other lexical hit's
    held: bool = False  # ...and, when set, one message or section holds every word
    impute: bool = True  # a hit whose texts wait for vectors ranks by meaning as by words
    depth: int = 0  # lexical hits that enter the fusion (0: all); the rest follow
    floor: float = 0.82  # cosine a meaning-only hit needs when the words found nothing
    short_floor: float = 0.86  # ...for a query of at most SHORT_TERMS content words
    floor_always: float = 0.0  # cosine a meaning-only hit needs whatever the words found


POLICY = Policy()


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
         imputed: dict[Hashable, int] | None = None) -> list[Fused]:
    """The units of both rankings fused, best first, at most `limit`; ties go to the better
    lexical rank, then the better meaning rank, then the unit's lexical order. `weights`
    scale each lane's share (words, meaning); `imputed` gives units the meaning lane could
    not rank yet a meaning rank (their lanes stay as found)."""
    found: dict[Hashable, Fused] = {}
    for lane, ranking, weight in ((WORDS, words, weights[0]), (MEANING, meaning, weights[1])):
        for rank, unit in enumerate(dict.fromkeys(ranking), 1):
            hit = found.setdefault(unit, Fused(unit, 0.0))
            if not (lane == MEANING and imputed and unit in imputed):
                hit.score += weight / (k + rank)
            hit.lanes.append(lane)
            hit.ranks[lane] = rank
    for unit, rank in (imputed or {}).items():
        if unit in found:
            found[unit].score += weights[1] / (k + rank)
    pinned = [u for u in dict.fromkeys(first) if u in found]
    held = set(pinned)
    rest = sorted((h for u, h in found.items() if u not in held),
                  key=lambda h: (-h.score, h.ranks.get(WORDS, 1 << 30),
                                 h.ranks.get(MEANING, 1 << 30)))
    return ([found[u] for u in pinned] + rest)[:limit]


def fuse_search(words: Sequence[Hashable], meaning: Sequence[tuple[Hashable, float]], *,
                limit: int, tier: Sequence[Hashable], terms: int,
                waiting: set | frozenset = frozenset(), confident: bool = False,
                policy: Policy | None = None) -> list[Fused]:
    """The fusion a search answers with. `words`: the lexical units in order; `meaning`:
    (unit, cosine) best first; `tier`: the lexical units holding every word of the query;
    `terms`: how many content words it has (text.tokens.query_terms, prose); `waiting`: the
    lexical units with texts still waiting for vectors; `confident`: the lexical first hit
    holds every word in one message or section as no other hit does."""
    p = policy or POLICY
    lexical = list(dict.fromkeys(words))
    empty = p.short_floor if terms <= SHORT_TERMS else p.floor
    floor = max(p.floor_always, empty if not lexical else 0.0)
    held = set(lexical)
    ranked = [u for u, cos in meaning if u in held or cos >= floor]
    first: list[Hashable] = []
    if lexical and 0 < terms <= p.pin_terms:
        tiered = set(tier)
        first = [lexical[0], *(u for u in lexical[1:] if u in tiered)]
    elif lexical and p.confident and confident:
        first = [lexical[0]]
    fused_words = lexical[:p.depth] if p.depth else lexical
    imputed = {}
    if p.impute and waiting:
        at = {u: r for r, u in enumerate(ranked, 1)}
        imputed = {u: min(r, at.get(u, r)) for r, u in enumerate(fused_words, 1)
                   if u in waiting}
    out = fuse(fused_words, ranked, limit=limit, first=first, imputed=imputed)
    if len(out) < limit:  # the lexical hits past the fused depth, in their order
        seen = {f.unit for f in out}
        out += [Fused(u, 0.0, [WORDS], {WORDS: r}) for r, u in enumerate(lexical, 1)
                if u not in seen][:limit - len(out)]
    return out


def clear_margin(scores: Sequence[float]) -> bool:
    """Whether the first of the lexical hits' scores (higher is better) is the policy's margin
    above every other: the words alone single it out."""
    if not scores:
        return False
    rest = max(scores[1:], default=0.0)
    return scores[0] > 0 and scores[0] >= POLICY.margin * rest


def with_policy(policy: Policy) -> None:
    """Make `policy` the one searches fuse by (the evals measure alternatives with it)."""
    global POLICY
    POLICY = policy


def parse_policy(text: str) -> Policy:
    """`pin_terms=3,depth=5,floor=0.8`: the default policy with those fields changed."""
    changes: dict[str, object] = {}
    for part in filter(None, (x.strip() for x in text.split(","))):
        name, _, value = part.partition("=")
        kind = type(getattr(POLICY, name))
        changes[name] = (value.lower() in ("1", "true", "yes")) if kind is bool else kind(value)
    return replace(POLICY, **changes)  # type: ignore[arg-type]  # each cast to its field's type
