"""A KB query as the ranking reads it (its stems, respellings, alias groups and what the
lanes learn of it), and a lane's scope."""

from __future__ import annotations

from solograph.frozen import Frozen, Record, factory
from solograph.text.tokens import fts_term


class Query(Record):
    text: str
    stems: list[str]
    respelled: dict[str, str] = factory(default_factory=dict)
    aliases: dict[str, str] = factory(default_factory=dict)  # member -> last member, as stems
    alternatives: list[tuple[str, ...]] = factory(default_factory=list)  # OR of AND-groups
    # doc -> its best section, found while ranking: a hit names it without searching again
    sections: dict[int, int] = factory(default_factory=dict)
    weights: dict[str, float] = factory(default_factory=dict)  # rarity of each stem
    plans: dict = factory(default_factory=dict)  # kb/bounded.py's, per search table
    named: dict = factory(default_factory=dict)  # doc -> its names (names.py), read once
    # What one lane learnt that the next need not learn again (search.py, score.py): each
    # page's grade and whether it is a hub; each (page, section)'s share of the query
    grades: dict = factory(default_factory=dict)
    hubs: dict = factory(default_factory=dict)
    covers: dict = factory(default_factory=dict)
    pages: int | None = None  # the pages a hub's share is taken of (search.hubs), once counted

    @property
    def match(self) -> str:
        parts = []
        for alt in self.alternatives:
            if len(alt) == 1:
                parts.append(fts_term(alt[0]))
            else:
                parts.append("(" + " AND ".join(fts_term(t) for t in alt) + ")")
        return " OR ".join(parts)

    @property
    def prefixes(self) -> tuple[str, ...]:
        return tuple(sorted({t for alt in self.alternatives for t in alt}, key=len,
                            reverse=True))


class Scope(Frozen):
    """Which documents a lane may return: an SQL condition over `d` (docs)."""

    where: str = ""
    params: tuple = ()
    name: str = "kb"
