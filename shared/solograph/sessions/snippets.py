"""Which message of a chunk shows a hit best, and the passage of it that holds the words.

Entries store their stems, so telling which query words a message holds is a substring test
on them; only the one message shown is tokenised again, to find where the words sit in the
redacted text the user sees.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence

from solograph.sessions.entries import tool_text, without_images
from solograph.text.tokens import split_identifier, stem

WINDOW = 240
_RUN = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")
_SCAN = 20_000  # characters of one message searched for the words
_MAX_HITS = 200


def holds(words: str, term: str) -> bool:
    """Whether an entry's stems hold `term` as a prefix of one of them."""
    return (" " + words).find(" " + term) >= 0


def matched(words: str, stems: Sequence[str],
            spellings: Callable[[str], tuple[str, ...]]) -> int:
    """How many of the query's stems (in either spelling) the entry's stems hold."""
    return sum(any(holds(words, s) for s in spellings(stem)) for stem in stems)


def holding_sql(stems: Sequence[str], spellings: Callable[[str], tuple[str, ...]]
                ) -> tuple[list[str], list[str]]:
    """One SQL test per stem, true when an entry's `words` hold it in either spelling (the
    test `holds` makes, run by SQLite on the stored text rather than on a copy of it in
    Python), and their parameters."""
    tests, params = [], []
    for term in stems:
        forms = spellings(term)
        tests.append("(" + " OR ".join(["instr(' ' || words, ?) > 0"] * len(forms)) + ")")
        params += [" " + s for s in forms]
    return tests, params


def best_entry(conn: sqlite3.Connection, chunk: int, stems: Sequence[str],
               spellings: Callable[[str], tuple[str, ...]]) -> sqlite3.Row | None:
    """The entry of `chunk` holding the most query words; the earliest among equals."""
    tests, params = holding_sql(stems, spellings)
    return conn.execute(
        "SELECT id, text, tools, words FROM entries WHERE id = (SELECT id FROM (SELECT id, seq, "
        f"{' + '.join(tests)} AS held FROM entries WHERE chunk = ?) WHERE held > 0 "
        "ORDER BY held DESC, seq LIMIT 1)", (*params, chunk)).fetchone()


def tools_of(raw: str) -> list[tuple[str, dict[str, str]]]:
    return [(name, args) for name, args in json.loads(raw)] if raw else []


def snippet(text: str, tools: str, terms: Sequence[str], width: int = WINDOW) -> str:
    """A passage of about `width` characters of the message (its text, then its tool calls)
    holding as many of `terms` as fit, on one line, with "…" where it was cut."""
    terms = list(dict.fromkeys(w for t in terms for w in t.split()))  # a phrase's words
    # Messages stored before markers were dropped at read time still hold them.
    full = without_images(text) if "[Image #" in text else text
    if tools:
        full = f"{full}\n{tool_text(tools_of(tools))}" if full else tool_text(tools_of(tools))
    hits = _positions(full[:_SCAN], terms)
    if not hits:
        return _one_line(full[:width]) + ("…" if len(full) > width else "")
    start = _best_start(hits, width)
    lead = max(0, start - width // 6)
    cut = full[lead:lead + width]
    if lead > 0:
        space = cut.find(" ")
        if 0 <= space < 20:
            cut = cut[space + 1:]
    out = _one_line(cut)
    return ("…" if lead > 0 else "") + out + ("…" if lead + width < len(full) else "")


def _positions(text: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    """(start, term) of each word of `text` whose stem starts with a term, in text order.

    A stem is a prefix of its word but for its last letter at most (`studi` of `studies`), so a
    case-blind search for each stem less one letter finds every candidate at C speed; only
    those words are stemmed again."""
    heads = sorted({t[:-1] if len(t) > 3 else t for t in terms}, key=len, reverse=True)
    found: list[tuple[int, str]] = []
    done = -1  # end of the last word looked at
    for at in _candidates(text, heads):
        if at < done:
            continue
        start = at
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        run = _RUN.match(text, start)
        if run is None:
            continue
        done = run.end()
        for part in split_identifier(run.group()):
            s = stem(part)
            term = next((t for t in terms if s.startswith(t)), None)
            if term:
                found.append((run.start(), term))
                break
        if len(found) >= _MAX_HITS:
            break
    return found


def _candidates(text: str, heads: list[str]) -> list[int]:
    """Where any of `heads` (lowercase) starts in `text`, any case, in text order. str.find on
    the lowercased text runs at C speed, several times faster than a case-blind regex of the
    heads; a text whose lowercase changes its length (a few letters outside ASCII) takes the
    regex, so that positions stay those of `text`."""
    low = text.lower()
    if len(low) != len(text):
        pattern = re.compile("|".join(re.escape(h) for h in heads), re.IGNORECASE)
        return [m.start() for m in pattern.finditer(text)]
    starts: set[int] = set()
    for head in heads:
        at = low.find(head)
        while at >= 0:
            starts.add(at)
            at = low.find(head, at + 1)
    return sorted(starts)


def _best_start(hits: list[tuple[int, str]], width: int) -> int:
    """The position of the hit opening the window that holds the most distinct terms."""
    best_start, best_count = hits[0][0], 0
    j = 0
    for i, (start, _) in enumerate(hits):
        j = max(j, i)
        while j + 1 < len(hits) and hits[j + 1][0] - start < width * 2 // 3:
            j += 1
        count = len({t for _, t in hits[i:j + 1]})
        if count > best_count:
            best_start, best_count = start, count
    return best_start


def _one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
