"""Secrets redaction: every text that any index stores passes through `redact` first, and a
text that is kept only in part through `redact_cut`, which redacts before it cuts.

Each rule finds one kind of secret and the span that holds its value; only that span is
replaced, so `GITHUB_TOKEN=ghp_...` becomes `GITHUB_TOKEN=[REDACTED]` and
`postgres://app:pw@db/x` becomes `postgres://app:[REDACTED]@db/x`. Placeholders (`your-key`,
`${VAR}`, `<token>`, `xxxx`, `changeme`, ...) and code (`os.environ["X"]`, `settings.token`)
stay: they are not secrets, and people search for them.

It runs on every line of every transcript, so speed decides the shape:

- The text is encoded to ASCII bytes once (`?` for every other character, so offsets stay
  character offsets) and lowercased once; rules run on those bytes, checks on the text.
- One prefilter pass finds which keywords occur (`token`, `sk-`, `eyj`, `://`, ...). It looks
  for each keyword from its rarest character (`k(?<=tok)en`), so `re` tests few positions.
  Text without keywords, most text, costs that one pass.
- A rule runs only for the keywords it needs, as regexes that begin with a literal, so that
  `re` skips ahead with its fast literal search.
- Whatever was found is redacted, and the lines that changed are scanned again, so that
  `redact(redact(x)) == redact(x)` even where a rule looks at a neighbour that got redacted.

Bump RULES_VERSION (text/secrets_version.py) whenever a rule changes: indexes store it and
re-clean old rows on open. The rules themselves live in `solograph.text.secret_rules`; they are
compiled, and the prefilter built, on the first text redacted, so a process that only checks a
store's version (every read of an unchanged index) never pays for them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import partial

from solograph.text.secrets_version import RULES_VERSION

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from solograph.text.secret_rules import Rule

__all__ = ["REDACTED", "RULES_VERSION", "redact", "redact_cut"]

REDACTED = "[REDACTED]"
_BIG = 1 << 62


# --- prefilter -------------------------------------------------------------------------------

# How often each character occurs (per thousand, lowercased, non-ASCII as `?`), measured on
# Claude Code transcripts and markdown notes; the prefilter stops at every anchor character.
_FREQUENCY = {
    "q": 0.32, "z": 0.73, "j": 0.76, "x": 1.14, "_": 1.66, "v": 2.27, "k": 2.42, ":": 2.74,
    "y": 2.75, "f": 2.76, "w": 2.80, "b": 4.06, "u": 4.73, "g": 4.74, "m": 4.91, "h": 5.30,
    "p": 6.34, "/": 6.41, "d": 6.95, "-": 7.06, "l": 7.51, "c": 8.04, ".": 8.82, "r": 11.38,
    "n": 11.90, "a": 12.61, "s": 13.18, "o": 13.49, "i": 14.25, "t": 16.48, "e": 19.85,
    "0": 2.79, "1": 2.50, "2": 2.08, "3": 0.80, "4": 0.93, "5": 0.90, "6": 0.72, "7": 0.62,
    "8": 0.83, "9": 0.71, '"': 2.56, "'": 0.24, "=": 0.23, "*": 2.39, "(": 2.01, "~": 0.05,
    "\\": 0.03, " ": 122.6, "?": 612.0,
}
_RARE = 1.0  # other punctuation


def _anchors(keywords: list[str]) -> dict[str, int]:
    """Where to find each keyword: a set of anchor characters as rare in all as can be.

    Weighted set cover, greedily: the character with the fewest occurrences per keyword it
    would newly anchor is taken first. Each keyword is then found at the rarest taken
    character it holds, though not at its last one when it can: a hit of one character is
    told apart only by looking back, and a crowded anchor (`_` after `ghp`, `npm`, `hf`, ...)
    makes every stop try each look back in turn."""
    weight = {c: _FREQUENCY.get(c, _RARE) for k in keywords for c in k}
    left, taken = set(keywords), set()
    while left:
        useful = {c: sum(c in k for k in left) for c in weight}
        best = min((c for c, n in useful.items() if n),
                   key=lambda c: (weight[c] / useful[c], weight[c], c))
        taken.add(best)
        left = {k for k in left if best not in k}
    def cost(k: str, i: int) -> float:
        return weight[k[i]] * (10 if 0 < i == len(k) - 1 else 1)

    return {k: min((i for i, c in enumerate(k) if c in taken), key=partial(cost, k))
            for k in keywords}


def _build_prefilter(keywords: list[str]) -> tuple[re.Pattern[bytes], dict[bytes, frozenset[str]]]:
    """One regex that finds every keyword from its rarest character, and what each hit means.

    `token` is found at its `k`: the regex stops only at anchor characters, walks a trie of
    what may follow each one, longest first, and where a keyword ends checks what precedes
    with a lookbehind (`k(?:e(?:n(?<=token)|...)|...)`), so most stops fail on their first
    comparison. A hit
    consumes the rest of its keyword, which could hide a keyword that starts inside it; such
    keywords are added to the hit's meaning, so the set of keywords found is never smaller
    than the set present.
    """
    anchors = {k: (at, k[at:]) for k, at in _anchors(keywords).items()}

    def hides(outer: str, inner: str) -> bool:
        at, hit = anchors[outer]
        inner_at, inner_hit = anchors[inner]
        anchor = inner_hit[0]
        if anchor not in hit:  # most pairs: nowhere for inner's anchor to sit (82 -> 15 ms)
            return False
        for shift in range(len(hit)):  # inner's anchor sits `shift` into outer's hit
            if hit[shift] != anchor:
                continue
            if shift == 0 and len(inner_hit) > len(hit) and inner_hit.startswith(hit):
                continue  # the trie takes the longer hit wherever both fit
            offset = at + shift - inner_at  # inner's start, relative to outer's start
            if all(outer[offset + i] == c for i, c in enumerate(inner)
                   if 0 <= offset + i < len(outer)) and (shift or outer != inner):
                return True
        return False

    def trie(entries: list[tuple[str, str]], depth: int) -> str:
        """entries: (keyword, its hit); depth: characters of the hits consumed so far."""
        ends = sorted(k for k, hit in entries if len(hit) == depth)
        deeper: dict[str, list[tuple[str, str]]] = {}
        for k, hit in entries:
            if len(hit) > depth:
                deeper.setdefault(hit[depth], []).append((k, hit))
        # Longer hits first, so that a hit names as few keywords as it can; a keyword the hit
        # spells whole needs no look back, and goes last.
        branches = [re.escape(c) + trie(sub, depth + 1) for c, sub in sorted(deeper.items())]
        branches += [f"(?<={re.escape(k)})" for k in ends if anchors[k][0]]
        if any(anchors[k][0] == 0 for k in ends):
            branches.append("")
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    meaning: dict[bytes, set[str]] = {}
    for keyword, (_, hit) in anchors.items():
        meaning.setdefault(hit.encode(), set()).update(
            k for k in keywords if k == keyword or hides(keyword, k))
    by_first: dict[str, list[tuple[str, str]]] = {}
    for k, (_, hit) in anchors.items():
        by_first.setdefault(hit[0], []).append((k, hit))
    source = "|".join(re.escape(c) + trie(sub, 1) for c, sub in sorted(by_first.items()))
    return re.compile(source.encode()), {hit: frozenset(ks) for hit, ks in meaning.items()}


class _Engine:
    """The compiled rules and the prefilter over their keywords, built once per process."""

    def __init__(self) -> None:
        from solograph.text.secret_rules import RULES, is_placeholder

        self.rules = RULES
        self.is_placeholder = is_placeholder
        self.rank = {rule.name: i for i, rule in enumerate(RULES)}
        self.prefilter, self.meaning = _build_prefilter(
            sorted({k for rule in RULES for keywords, _ in rule.parts for k in keywords}))
        # Every alternative of every rule, in rule order, and for each prefilter hit the ones
        # it wakes: a text pays for the rules its keywords name, not for a walk over them all.
        self.parts = [(priority, rule, part, keywords) for priority, rule in enumerate(RULES)
                      for keywords, part in rule.parts]
        self.wakes = {hit: frozenset(i for i, (_, _, _, keywords) in enumerate(self.parts)
                                     if not keywords.isdisjoint(kinds))
                      for hit, kinds in self.meaning.items()}


_engine: _Engine | None = None


def _rules() -> _Engine:
    global _engine
    if _engine is None:
        _engine = _Engine()
    return _engine


_CHUNK = 4096


def _scan(text: str) -> list[tuple[int, int, int, str]]:
    if len(text) <= _CHUNK:
        return _scan_chunk(text)
    # Only private_key spans lines, so a long text is scanned in pieces cut at line ends: a
    # rule then runs on the pieces that hold its keywords, not on the whole text.
    found: list[tuple[int, int, int, str]] = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + _CHUNK) + 1 or len(text)
        found += [(a + start, b + start, rank, name)
                  for a, b, rank, name in _scan_chunk(text[start:cut])]
        start = cut
    if "PRIVATE KEY" in text:
        engine = _rules()
        rank = engine.rank["private_key"]
        key = engine.rules[rank]
        _collect(text, key, rank, key.pattern.finditer(text), b"", found)
    return found


def _scan_chunk(text: str) -> list[tuple[int, int, int, str]]:
    engine = _rules()
    raw = text.encode("ascii", "replace")  # one byte per character: offsets stay the same
    folded = raw.lower()
    hits = set(engine.prefilter.findall(folded))
    if not hits:
        return []
    found: list[tuple[int, int, int, str]] = []
    for i in sorted(frozenset().union(*(engine.wakes[hit] for hit in hits))):
        priority, rule, part, _ = engine.parts[i]
        _collect(text, rule, priority, part.finditer(folded if rule.lowercase else raw), raw,
                 found)
    return found


def _collect(text: str, rule: Rule, priority: int, matches: Iterator[re.Match[Any]],
             raw: bytes, found: list[tuple[int, int, int, str]]) -> None:
    for m in matches:
        for group in rule.groups:
            start, end = m.span(group)
            if start >= 0:
                break
        if rule.before is not None:
            head = rule.before.search(raw, max(0, m.start() - rule.before_chars), m.start())
            if head is None:
                continue
            if rule.groups == (0,):
                start = head.start()
        if start >= end or _rules().is_placeholder(text[start:end]):
            continue
        if rule.check is not None and not rule.check(text, m, start, end):
            continue
        found.append((start, end, priority, rule.name))


def _merge(found: list[tuple[int, int, int, str]]) -> list[tuple[str, int, int]]:
    """Overlapping spans become one, named by the rule that starts first (then the earlier
    rule in RULES)."""
    found.sort(key=lambda f: (f[0], -f[1], f[2]))
    merged: list[tuple[str, int, int]] = []
    for start, end, _, name in found:
        if merged and start < merged[-1][2]:
            if end > merged[-1][2]:
                merged[-1] = (merged[-1][0], merged[-1][1], end)
            continue
        merged.append((name, start, end))
    return merged


def _apply(text: str, spans: list[tuple[str, int, int]]) -> tuple[str, list[tuple[int, int, int]]]:
    """The redacted text, and where each REDACTED landed: (offset in it, start, end in text)."""
    parts: list[str] = []
    marks: list[tuple[int, int, int]] = []
    last = length = 0
    for _, start, end in spans:
        parts.append(text[last:start])
        length += start - last
        marks.append((length, start, end))
        parts.append(REDACTED)
        length += len(REDACTED)
        last = end
    parts.append(text[last:])
    return "".join(parts), marks


def _to_text(start: int, end: int, marks: list[tuple[int, int, int]]) -> tuple[int, int]:
    """Map a span of the redacted text back to the text; a REDACTED it touches counts whole."""
    def char(at: int) -> tuple[int, int]:
        i = bisect_right(marks, (at, _BIG, _BIG)) - 1
        if i < 0:
            return at, at + 1
        out, left, right = marks[i]
        if at < out + len(REDACTED):
            return left, right
        return right + at - out - len(REDACTED), right + at - out - len(REDACTED) + 1

    return char(start)[0], char(end - 1)[1]


def _secrets(text: str) -> list[tuple[str, int, int]]:
    """(rule name, start, end) of each span that `redact` replaces, in text order."""
    found = _scan(text)
    if not found:
        return []
    spans = _merge(found)
    # Rules look at the characters around a match, and redacting can change them (a token
    # glued to a key block only ends cleanly once the block is gone). Scan the lines that hold
    # a REDACTED again until nothing new turns up, so that redacting twice never changes more.
    # No rule but private_key crosses a line, and a key block does not depend on what
    # precedes it.
    for _ in range(4):
        redacted, marks = _apply(text, spans)
        more: list[tuple[int, int, int, str]] = []
        line_end = 0
        for at, _, _ in marks:
            if at < line_end:
                continue
            line_start = redacted.rfind("\n", 0, at) + 1
            line_end = redacted.find("\n", at + len(REDACTED))
            if line_end < 0:
                line_end = len(redacted)
            more += [(*_to_text(line_start + a, line_start + b, marks), rank, name)
                     for a, b, rank, name in _scan(redacted[line_start:line_end])]
        if not more:
            break
        spans = _merge(more + [(a, b, _rules().rank[name], name) for name, a, b in spans])
    return spans


# How far past a cut redact_cut reads: a rule decides on what follows a secret's start, and no
# rule needs more of it than this (a key block cut off here is redacted by its start).
_CUT_SLACK = 4096


def redact_cut(text: str, limit: int) -> str:
    """The first `limit` characters of text, redacted as the whole text would be.

    Redact first, then cut: a secret that starts before the cut goes whole (the result then
    ends with REDACTED, which may take it a few characters past `limit`), so no head of a token
    is ever kept. Only `limit` plus a few thousand characters are read, whatever the length.

    >>> redact_cut("token " + "ghp_" + "a1B2" * 9, 10)
    'token [REDACTED]'
    """
    if len(text) <= limit:
        return redact(text)
    window = text[:limit + _CUT_SLACK]
    spans = [span for span in _secrets(window) if span[1] < limit]
    end = max(limit, spans[-1][2]) if spans else limit
    return _apply(window[:end], spans)[0]


def redact(text: str) -> str:
    """Return text with every secret value replaced by REDACTED.

    >>> redact("export GITHUB_TOKEN=" + "ghp_" + "a1B2" * 9)
    'export GITHUB_TOKEN=[REDACTED]'

    Text with nothing to redact is returned as the same object.
    """
    spans = _secrets(text)
    return _apply(text, spans)[0] if spans else text
