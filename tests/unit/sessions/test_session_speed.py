"""What makes session search fast keeps its answers: the word tests SQLite runs on stored
stems, and the passage finder's C-speed search, give what the Python tests gave."""

from __future__ import annotations

import re
import sqlite3

import pytest

from solograph.sessions import snippets
from solograph.text.tokens import split_identifier, stem


def _positions_by_regex(text: str, terms: list[str]) -> list[tuple[int, str]]:
    """The passage finder as it was: one case-blind regex of every head."""
    heads = sorted({t[:-1] if len(t) > 3 else t for t in terms}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(h) for h in heads), re.IGNORECASE)
    found, done = [], -1
    for m in pattern.finditer(text):
        if m.start() < done:
            continue
        start = m.start()
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        run = re.compile(r"[^\W_]+").match(text, start)
        if run is None:
            continue
        done = run.end()
        for part in split_identifier(run.group()):
            s = stem(part)
            term = next((t for t in terms if s.startswith(t)), None)
            if term:
                found.append((run.start(), term))
                break
    return found


@pytest.mark.parametrize("text, query", [
    ("Fixed the WebHook retry; webhooks retried twice, RETRYING now", "webhook retry"),
    ("parseHTTPResponse2 and parse_http_response both parse", "parse response"),
    ("İstanbul deploy: the deployment of İzmir deploys", "deploy"),  # lowercase grows
    ("Графы и графами: граф построен", "граф"),
    ("aaaa aaa aa a", "aa"),
    ("nothing here", "webhook"),
])
def test_the_passage_finder_finds_what_the_regex_found(text, query):
    terms = [stem(w) for w in query.split()]
    assert snippets._positions(text, terms) == _positions_by_regex(text, terms)


def test_the_entry_shown_is_the_one_holding_most_words_earliest_first():
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    conn.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, chunk INTEGER, seq INTEGER, "
                 "text TEXT, tools TEXT, words TEXT)")
    rows = [(1, 7, 0, "a", "", "deploy"), (2, 7, 1, "b", "", "webhook retri deploy"),
            (3, 7, 2, "c", "", "retri webhook"), (4, 7, 3, "d", "", "retri"),
            (5, 8, 0, "e", "", "webhookish retri")]
    conn.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?)", rows)

    def spellings(term: str) -> tuple[str, ...]:
        return (term, "hook") if term == "webhook" else (term,)

    def best(chunk: int, stems: list[str]) -> int | None:
        row = snippets.best_entry(conn, chunk, stems, spellings)
        return row["id"] if row else None

    assert best(7, ["webhook", "retri"]) == 2  # both words, before entry 3
    assert best(7, ["deploy"]) == 1
    assert best(7, ["absent"]) is None
    assert best(8, ["webhook", "retri"]) == 5  # a stem is a prefix: webhookish holds webhook
    for words in ("webhook retri deploy", "retri", "xwebhook"):  # the test `holds` makes
        tests, params = snippets.holding_sql(["webhook"], lambda t: (t,))
        got = conn.execute(f"SELECT {tests[0]} FROM (SELECT ? AS words)",
                           (*params, words)).fetchone()[0]
        assert bool(got) == snippets.holds(words, "webhook"), words
