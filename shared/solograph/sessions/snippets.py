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


def best_entry(conn: sqlite3.Connection, chunk: int, stems: Sequence[str],
               spellings: Callable[[str], tuple[str, ...]]) -> sqlite3.Row | None:
    """The entry of `chunk` holding the most query words; the earliest among equals."""
    needles = [tuple(" " + s for s in spellings(stem)) for stem in stems]
    best, best_count = None, 0
    for entry_id, words in conn.execute("SELECT id, words FROM entries WHERE chunk = ? "
                                        "ORDER BY seq", (chunk,)):
        padded = " " + words
        count = sum(1 for group in needles if any(n in padded for n in group))
        if count > best_count:
            best, best_count = entry_id, count
            if count == len(needles):
                break
    if best is None:
        return None
    return conn.execute("SELECT id, text, tools, words FROM entries WHERE id = ?",
                        (best,)).fetchone()


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
    pattern = re.compile("|".join(re.escape(h) for h in heads), re.IGNORECASE)
    found: list[tuple[int, str]] = []
    done = -1  # end of the last word looked at
    for m in pattern.finditer(text):
        if m.start() < done:
            continue
        start = m.start()
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
