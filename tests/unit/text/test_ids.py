"""Identifiers in queries: the phrases of their parts, and run-together words cut into words
an index knows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph.text.ids import id_like, phrases, split_run
from solograph.text.tokens import stem, words


@pytest.mark.parametrize("query, expected", [
    ("spotter_0p7", ["spotter 0 p 7"]),
    ("spotter 4te 2", ["spotter 4 te 2", "4 te"]),
    ("annotation-message-ref", ["annot messag ref"]),
    ("formatAuth0Issues", ["format auth 0 issu"]),
    ("fix the webhook_retry bug", ["webhook retri"]),  # a stopword: no whole phrase
    ("webhook retry", []),
    ("don't stop", []),
])
def test_phrases(query, expected):
    assert phrases(query) == expected


def test_what_is_id_like():
    assert all(id_like(t) for t in ("a_b", "x-y", "v1.2", "4te", "parseHTTP", "src/app.py"))
    assert not any(id_like(t) for t in ("webhook", "Retry", "don't", "ПРИВЕТ", "-", "a-"))


VOCAB = {"pars": 5, "http": 9, "respons": 20, "parseh": 1, "test": 30, "auth": 3,
         "connect": 12, "activ": 4, "session": 50, "registri": 3, "sync": 5,
         "transcript": 30, "send": 3, "to": 90}


@pytest.mark.parametrize("word, pieces", [
    ("parsehttpresponse", ["parse", "http", "response"]),
    ("activesessionregistry", ["active", "session", "registry"]),
    ("sendtosession", ["send", "to", "session"]),
    ("synctranscripts", ["sync", "transcripts"]),
    ("sessions", None),  # too short to cut
    ("bananasplitting", None),  # not made of known words
    ("ParseHttpResponse", None),  # not a lowercase run
])
def test_split_run(word, pieces):
    assert split_run(word, lambda s: VOCAB.get(s, 0)) == pieces


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_phrases_of_any_text_are_stems_of_its_words(text):
    known = {stem(w) for w in words(text)}
    for phrase in phrases(text):
        assert len(phrase.split()) >= 2 and set(phrase.split()) <= known


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(VOCAB) + ["x", "zz", "q9"]), min_size=1, max_size=6),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", max_size=40))
def test_a_cut_joins_back_into_the_word_and_each_piece_is_known(parts, noise):
    for word in ("".join(parts), noise):
        pieces = split_run(word, lambda s: VOCAB.get(s, 0))
        if pieces is not None:
            assert "".join(pieces) == word and len(pieces) >= 2
            assert all(VOCAB.get(stem(p), 0) and (len(p) >= 2 or p.isdigit()) for p in pieces)
