"""Search, lanes and the hint on the two real wikis (SOLOGRAPH_CORPORA)."""

from __future__ import annotations

import pytest

from solograph import reads
from solograph.config import Settings
from tests.support.kb import layout_21ideas, layout_ekgardt


@pytest.fixture(scope="module")
def bitcoin(tmp_path_factory, request) -> Settings:
    corpora = request.getfixturevalue("corpora")
    base = tmp_path_factory.mktemp("real21")
    return Settings(home=base / "home", kb_path=layout_21ideas(corpora, base))


@pytest.fixture(scope="module")
def corpora(request):  # module scope over the session's function-scoped fixture
    import os
    from pathlib import Path

    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    if not raw or not Path(raw).is_dir():
        pytest.skip("needs the real corpora: set SOLOGRAPH_CORPORA to their folder")
    return Path(raw)


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def test_english_titles_find_their_pages(bitcoin):
    assert paths(reads.kb_search(bitcoin, "cantillon effect"))[0] == \
        "wiki/en/concepts/cantillon-effect.md"
    top = reads.kb_search(bitcoin, "schnorr signatures key aggregation")["results"][0]
    assert top["path"] == "wiki/en/concepts/taproot.md" and "Schnorr" in top["section"]


def test_two_lanes_reach_the_wiki_past_the_russian_sources(bitcoin):
    # Over the whole KB in one lane, the Russian source articles in raw/ fill the top.
    whole = paths(reads.kb_search(bitcoin, "что такое taproot", path=".", limit=20))
    assert whole[0].startswith("raw/")
    lanes = paths(reads.kb_search(bitcoin, "что такое taproot", limit=3))
    assert lanes[0] == whole[0]  # the whole KB's best stays first
    assert lanes[1] == "wiki/ru/concepts/taproot.md"  # the wiki's best comes right after


def test_without_aliases_a_russian_question_misses_the_english_pages(bitcoin):
    answer = reads.kb_search(bitcoin, "что такое мультиподпись", path="wiki/en")
    assert "wiki/en/concepts/multisig.md" not in paths(answer)[:5]


def test_the_hint_names_rare_topics_and_stays_silent_otherwise(bitcoin):
    hit = reads.kb_hint(bitcoin, "what is the cantillon effect on inflation", session="r1")
    assert hit["pages"] == ["wiki/en/concepts/cantillon-effect.md"]
    assert reads.kb_hint(bitcoin, "cantillon effect and inflation again",
                         session="r1")["hint"] is None
    for prompt in ("explain bitcoin", "fix the failing test in the api",
                   "hello where is fts5 defined", "refactor the storage layer of the app"):
        assert reads.kb_hint(bitcoin, prompt, session="r2")["hint"] is None


def test_the_agent_kept_wiki(corpora, tmp_path):
    settings = Settings(home=tmp_path / "home", kb_path=layout_ekgardt(corpora, tmp_path))
    answer = reads.kb_search(settings, "preliminary flagging", pages=True, expand=True)
    assert "knowledge/notes/Preliminary Flagging.md" in paths(answer)[:2]
    assert answer["expanded"] and all(not e["path"].endswith("index.md")
                                      for e in answer["expanded"])
    page = reads.kb_get(settings, "Preliminary Flagging#When to apply")
    assert page["section"] == "Preliminary Flagging > When to apply"
    assert "Wiki vs Memory Compiler vs Fusion" in page["text"]
