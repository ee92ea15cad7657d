"""KB search: fields and weights, sections, two lanes, scopes, typos, aliases (one way),
expand_graph, and queries that are not words."""

from __future__ import annotations

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery
from solograph.kb.names import Names, grade
from solograph.text.tokens import stem
from tests.support.kb import make_kb

FILLER = {f"notes/filler-{i}.md": f"# Filler {i}\n\nplain words about nothing {i} grams\n"
          for i in range(12)}


@pytest.fixture
def settings(tmp_path) -> Settings:
    from tests.support.kb import PAGES

    root = make_kb(tmp_path, pages={**PAGES, **FILLER})
    return Settings(home=tmp_path / "home", kb_path=root)


def paths(answer: dict) -> list[str]:
    return [r["path"] for r in answer["results"]]


def test_a_hit_names_its_best_section_as_a_heading_path(settings):
    answer = reads.kb_search(settings, "grams density")
    top = answer["results"][0]
    assert top["path"] == "wiki/recipe-box.md"
    assert top["section"] == "Recipe box > Data model > Units"
    assert top["line"] == 13 and "density" in top["snippet"]
    assert top["summary"] == "The recipe app."


def test_title_and_summary_weigh_more_than_the_body(tmp_path):
    pages = {**FILLER,
             "a.md": "# Kettle\n\nsomething else entirely\n",
             "b.md": "# Other\n\nkettle kettle mentioned in the body\n",
             "c.md": "---\ndescription: all about the kettle\n---\n# Third\n\nwater\n"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    found = paths(reads.kb_search(settings, "kettle"))
    assert found.index("a.md") < found.index("b.md")
    assert found.index("c.md") < found.index("b.md")


def test_a_question_around_a_page_name_finds_that_page(tmp_path):
    pages = {**FILLER,
             "cantillon.md": "# Cantillon effect\n\nNew money reaches the first spenders.\n",
             "fiat.md": "# Fiat standard\n\nHow central banks handle the cantillon effect, "
                        "and how they handle the effect of money printing.\n",
             "money.md": "# Money\n\nWhat money is.\n"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    # "handle" is on the fiat page only, yet the question names the Cantillon page.
    assert paths(reads.kb_search(settings, "how do we handle the cantillon effect?"))[0] == \
        "cantillon.md"
    # A one-word title inside a longer question is not named by it.
    assert paths(reads.kb_search(settings, "what money printing does to the effect"))[0] != \
        "money.md"


def kb_of(tmp_path, pages: dict[str, str]) -> Settings:
    return Settings(home=tmp_path / "home",
                    kb_path=make_kb(tmp_path, pages={**FILLER, **pages}, config=""))


LONG = "\n\n".join(f"## Part {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(60))
                    for i in range(8))


def test_words_that_meet_in_one_section_beat_words_scattered_over_a_page(tmp_path):
    scattered = ("# Ledger notes\n\n## Early\n\nThe timestamp server came first.\n\n"
                 + LONG + "\n\n## Later\n\nA gossip protocol, much later.\n\n"
                 + LONG.replace("word", "more") + "\n\n## Last\n\nAnd a merkle tree.\n")
    together = ("# Design\n\n## Intro\n\n" + LONG + "\n\n## Core\n\nThe timestamp server "
                "relays blocks over a gossip protocol and hashes them into a merkle tree.\n")
    settings = kb_of(tmp_path, {"a.md": scattered, "b.md": together})
    top = reads.kb_search(settings, "timestamp gossip merkle")["results"][0]
    assert top["path"] == "b.md" and top["section"] == "Design > Core"


def test_a_page_named_after_one_word_does_not_pass_a_section_holding_them_all(tmp_path):
    pages = {"chaum.md": "# David Chaum\n\nDavid Chaum invented blind signatures. David "
                         "founded a company.\n\n## Later\n\nDavid wrote more papers.\n",
             "punks.md": "# Cypherpunks\n\n## People\n\nEric, Timothy and David met in "
                         "1992 and wrote to the list every week.\n"}
    settings = kb_of(tmp_path, pages)
    assert paths(reads.kb_search(settings, "david timothy"))[0] == "punks.md"
    assert paths(reads.kb_search(settings, "david chaum"))[0] == "chaum.md"


def test_a_name_is_promoted_only_when_it_is_most_of_the_query():
    def of(title, query, aliases=()):
        asked = {stem(w) for w in query.split()}
        return grade(Names.of(title, aliases), [asked], asked)[0]

    assert of("Cantillon effect", "cantillon effect") == 0  # exact
    assert of("Byzantine generals problem", "byzantine generals") == 1  # the title holds it
    assert of("Byzantine generals problem", "byzantine generals problem solved") == 2
    assert of("Bitcoin security", "consensus bitcoin security") == 3  # 2 of 3: not promoted
    assert of("Forks", "major forks") == 3
    assert of("Release train", "ship week", ["ship week"]) == 0
    assert of("Test harness", "run", ["runner"]) == 3  # an alias counts by whole words
    assert of("Phoenix", "practical phoenix", ["/practical-phoenix"]) == 3  # an address


def test_a_frontmatter_alias_names_its_page(tmp_path):
    pages = {"renamed.md": "---\ntitle: Release train\naliases: [ship week, \"/old/url\"]\n"
                           "---\n# Release train\n\nWe cut a release every second Monday.\n",
             "blog.md": "# Blog\n\nShip week, ship week: the week we ship, every week a ship "
                        "week story.\n"}
    settings = kb_of(tmp_path, pages)
    assert paths(reads.kb_search(settings, "ship week"))[0] == "renamed.md"
    assert paths(reads.kb_search(settings, "ship week story"))[0] == "blog.md"


def test_a_one_word_alias_names_its_page_by_the_whole_word_only(tmp_path):
    pages = {"runner.md": "---\ntitle: Test harness\naliases: [runner]\n---\n# Test harness"
                          "\n\nThe harness starts each suite.\n",
             "run.md": "---\ntitle: Nightly jobs\naliases: [run]\n---\n# Nightly jobs\n\n"
                       "What we do at night.\n",
             "loop.md": "# Event loop\n\nThe loop keeps each run of a task short; a run, "
                        "then another run.\n"}
    settings = kb_of(tmp_path, pages)
    assert paths(reads.kb_search(settings, "run"))[0] == "run.md"
    assert paths(reads.kb_search(settings, "runner"))[0] == "runner.md"


def test_two_lanes_take_a_wiki_page_past_notes_elsewhere(tmp_path):
    notes = {f"notes/n{i}.md": f"# Заметка {i}\n\nпесочница песочница песочница агент {i}\n"
             for i in range(4)}
    wiki = {"wiki/agent-sandboxing.md": "# Agent sandboxing\n\n" + "Seatbelt profiles. " * 40
            + "Once: песочница.\n"}
    settings = Settings(home=tmp_path / "home",
                        kb_path=make_kb(tmp_path, pages={**FILLER, **notes, **wiki}, config=""))
    whole_kb = paths(reads.kb_search(settings, "песочница", path="."))
    assert whole_kb.index("wiki/agent-sandboxing.md") >= 4  # past four notes in one lane
    answer = reads.kb_search(settings, "песочница", limit=2)
    assert paths(answer) == ["notes/n0.md", "wiki/agent-sandboxing.md"]
    assert [r["wiki"] for r in answer["results"]] == [False, True]


def test_aliases_reach_an_english_page_from_a_russian_word(settings):
    answer = reads.kb_search(settings, "песочница", pages=True)
    assert answer["aliases"] == {"песочниц": "sandbox"}
    assert paths(answer)[0] == "wiki/agent-sandboxing.md"


def test_pages_and_path_scope_one_lane(settings):
    assert all(r["wiki"] for r in reads.kb_search(settings, "песочница", pages=True)["results"])
    assert paths(reads.kb_search(settings, "песочница", path="notes/")) == \
        ["notes/zametka.md"]
    assert paths(reads.kb_search(settings, "recipe", path="wiki/recipe-box.md")) == \
        ["wiki/recipe-box.md"]


def test_aliases_expand_one_way_only(settings):
    forward = reads.kb_search(settings, "песочница", pages=True)
    assert "wiki/agent-sandboxing.md" in paths(forward)
    backward = reads.kb_search(settings, "sandbox", pages=True)
    assert backward["aliases"] == {}
    assert reads.kb_search(settings, "sandbox", path="notes/zametka.md")["count"] == 0


def test_a_typo_is_also_searched_as_its_neighbour(settings):
    answer = reads.kb_search(settings, "densty")
    assert answer["respelled"] == {"densti": "densiti"} or answer["respelled"]
    assert paths(answer)[0] == "wiki/recipe-box.md"


def test_alias_spellings_join_the_typo_vocabulary(settings):
    answer = reads.kb_search(settings, "пессочница", pages=True)  # a typo of an alias member
    assert "wiki/agent-sandboxing.md" in paths(answer)
    assert answer["aliases"]


def test_expand_adds_the_pages_the_hits_link_to_most(settings):
    answer = reads.kb_search(settings, "seatbelt", pages=True, expand=True)
    assert paths(answer) == ["wiki/agent-sandboxing.md"]
    expanded = answer["expanded"]
    assert [e["path"] for e in expanded] == ["wiki/privacy-architecture.md",
                                             "wiki/recipe-box.md"]
    assert expanded[0]["score"] == 1.0 and expanded[0]["linked_from"] == \
        ["wiki/agent-sandboxing.md"]


def test_expand_sums_one_over_rank_and_skips_catalogs_and_templates(tmp_path):
    pages = {**FILLER,
             "wiki/index.md": "[[hub]] [[a]] [[b]] [[c]] [[d]] [[e]]\n",
             "wiki/a.md": "# A\n\nquasar one [[hub]] [[x]] [[index]] [[_template]]\n",
             "wiki/b.md": "# B\n\nquasar [[hub]] [[y]]\n",
             "wiki/c.md": "# C\n\nquasar [[y]] [[z]] [[w]]\n",
             "wiki/hub.md": "# Hub\n\nno match here\n", "wiki/x.md": "# X\n", "wiki/y.md": "# Y\n",
             "wiki/z.md": "# Z\n", "wiki/w.md": "# W\n", "wiki/_template.md": "# T\n"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    answer = reads.kb_search(settings, "quasar one", pages=True, expand=True)
    assert paths(answer) == ["wiki/a.md", "wiki/b.md", "wiki/c.md"]
    got = {e["path"]: e["score"] for e in answer["expanded"]}
    assert got == {"wiki/hub.md": 1.5, "wiki/x.md": 1.0, "wiki/y.md": round(1 / 2 + 1 / 3, 3)}


@pytest.mark.parametrize(("query", "words"), [
    ('NEAR("x" OR) *draw', "near x or draw"), ("AND recipe OR NOT", "and recipe or not"),
    ("title:recipe", "title recipe"), ('"unbalanced', "unbalanced"), ("recipe*", "recipe"),
    ("(box", "box")])
def test_fts_syntax_is_just_words(settings, query, words):
    answer = reads.kb_search(settings, query)
    assert answer["results"] == reads.kb_search(settings, words)["results"]
    assert ("recipe" in words) <= ("wiki/recipe-box.md" in paths(answer))


@pytest.mark.parametrize("query", ["", "   ", "!!!"])
def test_no_words_is_a_bad_query(settings, query):
    with pytest.raises(BadQuery):
        reads.kb_search(settings, query)


@pytest.mark.parametrize("query", ["the and of", "How do we?", "что это и как", "AND OR NOT"])
def test_only_common_words_is_nothing_searchable(settings, query):
    with pytest.raises(BadQuery) as err:
        reads.kb_search(settings, query)
    assert "nothing searchable" in err.value.message and err.value.hint
    assert reads.kb_search(settings, query + " density")["results"]


def test_get_a_page_or_a_section(settings):
    page = reads.kb_get(settings, "wiki/recipe-box.md")
    assert page["title"] == "Recipe box" and page["section"] == ""
    assert "Recipe box > Data model > Units" in page["headings"]
    assert [b["from"] for b in page["backlinks"]] == ["wiki/agent-sandboxing.md",
                                                      "wiki/index.md",
                                                      "wiki/privacy-architecture.md"]
    section = reads.kb_get(settings, "wiki/recipe-box#Data model")
    assert section["section"] == "Recipe box > Data model"
    assert "ingredients" in section["text"] and "density table" in section["text"]
    assert "schema.org" not in section["text"]
    by_slug = reads.kb_get(settings, "agent-sandboxing")
    assert by_slug["path"] == "wiki/agent-sandboxing.md"
