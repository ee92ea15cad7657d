"""Identifiers in a prose query: their parts belong together.

The tokenizer cuts `spotter_0p7` into spotter, 0, p, 7, and alone those parts match anywhere
(every session has a 0 and a word starting with p). `phrases` gives, for each id-like token of
a query, its stems in order, to be searched as adjacent words (an FTS5 phrase): a token with
a separator inside (`_ - . / :`), digits beside letters (`4te`), or a change of case
(`formatAuth0Issues`). A query of a few words holding one (`spotter 4te 2`) is also one
phrase as a whole, since that is how an id is typed from memory.

`split_run` cuts a run-together lowercase word into words an index knows (`parsehttpresponse`
is parse, http, response), so it can be searched as the phrase of their stems.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from solograph.text.tokens import STOPWORDS, stem, words

MAX_WHOLE = 8  # parts of a query searched as one phrase, at most
MIN_RUN = 8  # a shorter word is never cut
MAX_RUN = 32
_SEPARATED = re.compile(r"[^\W_][_\-./:][^\W_]")
_MIXED = re.compile(r"\d[^\W\d_]|[^\W\d_]\d")
_CASE = re.compile(r"[a-zа-яё][A-ZА-ЯЁ]")


def id_like(token: str) -> bool:
    return bool(_SEPARATED.search(token) or _MIXED.search(token) or _CASE.search(token))


def phrase_of(token: str) -> str:
    """The token's stems, space-separated: an FTS5 phrase once quoted."""
    return " ".join(stem(w) for w in words(token))


def phrases(query: str) -> list[str]:
    """The phrases to search for `query`: each id-like token's stems, then the whole query's
    when it is a few words around one; none for a query without an identifier."""
    tokens = query.split()
    out = [phrase_of(t) for t in tokens if id_like(t) and len(words(t)) > 1]
    if any(id_like(t) for t in tokens) and len(tokens) > 1:
        parts = words(query)
        if len(parts) <= MAX_WHOLE and not any(p in STOPWORDS for p in parts):
            out.insert(0, " ".join(stem(p) for p in parts))
    return list(dict.fromkeys(p for p in out if " " in p))


def split_run(word: str, documents: Callable[[str], int]) -> list[str] | None:
    """`word` cut into the fewest pieces whose stems the index holds (`documents(stem)` > 0),
    two letters or more each (a digit may stand alone), the pieces whose rarest stem is in
    the most documents among equals; None when it cannot be cut in two or more."""
    if not (MIN_RUN <= len(word) <= MAX_RUN) or not word.isalnum() or word != word.lower():
        return None
    n = len(word)
    seen: dict[str, int] = {}

    def count(piece: str) -> int:
        if piece not in seen:
            ok = len(piece) >= 2 or piece.isdigit()
            seen[piece] = documents(stem(piece)) if ok else 0
        return seen[piece]

    # best[i]: (pieces, -rarest count, cut points) for word[:i]
    best: list[tuple[int, int, tuple[int, ...]] | None] = [None] * (n + 1)
    best[0] = (0, 0, ())
    for end in range(1, n + 1):
        for start in range(end):
            before = best[start]
            if before is None or end - start == n:
                continue
            docs = count(word[start:end])
            if not docs:
                continue
            pieces, rarest, cuts = before
            candidate = (pieces + 1, max(rarest, -docs) if pieces else -docs, cuts + (end,))
            held = best[end]
            if held is None or candidate[:2] < held[:2]:
                best[end] = candidate
    whole = best[n]
    if whole is None:
        return None
    cuts = (0, *whole[2])
    return [word[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
