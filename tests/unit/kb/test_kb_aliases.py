"""The alias table: its file, one-way expansion, and the groups `kb-aliases --suggest`
reads from what the KB already says."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph.errors import ConfigError
from solograph.kb.aliases import AliasTable, parse, to_yaml
from tests.support.kb import layout_21ideas, make_kb


def test_expansion_goes_from_earlier_members_to_the_last_only():
    table = AliasTable.of([["песочница", "sandbox"], ["agent jail", "agent sandbox"]])
    assert table.expand(["песочниц"]) == {("песочниц",): ("sandbox",)}
    assert table.expand(["sandbox"]) == {}
    assert table.expand(["agent", "jail"]) == {("agent", "jail"): ("agent", "sandbox")}
    assert table.expand(["jail"]) == {}
    assert table.respell("песочнца") == "песочниц"


@pytest.mark.parametrize("text", ["- [one]\n", "a: b\n", "- [a, [b]]\n", "- [unclosed\n"])
def test_a_bad_table_is_an_error_naming_the_file(text):
    with pytest.raises(ConfigError) as err:
        parse(text, "wiki/_aliases.yaml")
    assert "wiki/_aliases.yaml" in err.value.message


def test_yaml_round_trip():
    groups = [["песочница", "sandbox"], ["a, b", "c: d", "plain"],
              ["What is it?", "#tag", '"quoted"', "it's", "- dash", "[x]", "{y}", "yes", "1.0"]]
    text = to_yaml(groups)
    assert parse(text) == groups
    assert text.splitlines()[0] == "- [песочница, sandbox]"


MEMBER = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(MEMBER, max_size=5), max_size=6))
def test_generated_members_round_trip(groups):
    text = to_yaml(groups)
    expected = []
    for group in groups:
        members = [m for m in dict.fromkeys(" ".join(m.split()) for m in group) if m]
        if len(members) >= 2:
            expected.append(members)
    assert yaml.safe_load(text) in (None, expected)
    assert parse(text) == expected  # what a search loads: never a config error
    assert len(text.splitlines()) == len(expected)  # one group a line


def test_suggestions_from_frontmatter_catalog_labels_and_headings(tmp_path):
    pages = {
        "wiki/index.md": "- [[sandboxing|Песочница для агентов]] — agents\n",
        "wiki/sandboxing.md": "---\ntitle: Agent sandboxing\naliases: [agent jail]\n---\n"
                              "## Атомарные свопы (Atomic Swaps)\n\ntext\n",
        "wiki/en/money.md": "---\ntitle: Money\n---\nx\n",
        "wiki/ru/money.md": "---\ntitle: Деньги\n---\nx\n",
        "wiki/_aliases.yaml": "- [agent jail, Agent sandboxing]\n",
    }
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    answer = reads.kb_aliases(settings, suggest=True)
    groups = {tuple(s["group"]): s["why"] for s in answer["suggested"]}
    assert groups == {
        ("Деньги", "Money"): "parallel pages wiki/ru/money.md and wiki/en/money.md (the same "
                             "path in two language folders)",
        ("Песочница для агентов", "Agent sandboxing"): "catalog line for wiki/sandboxing.md",
        ("Атомарные свопы", "Atomic Swaps"): "heading in wiki/sandboxing.md",
    }  # the frontmatter alias is in the table already
    assert "- [Деньги, Money]\n" in answer["yaml"]
    assert reads.kb_aliases(settings)["table"] == [["agent jail", "Agent sandboxing"]]


def test_suggestions_on_the_bilingual_wiki(corpora, tmp_path):
    root = layout_21ideas(corpora, tmp_path)
    answer = reads.kb_aliases(Settings(home=tmp_path / "home", kb_path=root), suggest=True)
    groups = [s["group"] for s in answer["suggested"]]
    assert ["Мультиподпись", "Multisig"] in groups or \
        any(g[-1] == "Multisig" for g in groups)
    assert sum(s["why"].startswith("parallel pages") for s in answer["suggested"]) >= 50
    assert all(g[-1].isascii() or not any("а" <= c <= "я" for c in g[-1].lower())
               for g in groups)


def suggested(tmp_path, pages: dict[str, str], config: str = "") -> dict:
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=config))
    return reads.kb_aliases(settings, suggest=True)


def test_twins_in_a_language_folder_beside_the_wiki(tmp_path):
    pages = {"wiki-en/money.md": "---\ntitle: Money\n---\nx\n",
             "wiki-en/lightning.md": "---\ntitle: Lightning Network\n---\nx\n",
             "wiki-ru/money.md": "---\ntitle: Деньги\n---\nx\n",
             "wiki-ru/lightning.md": "---\ntitle: Сеть Lightning\n---\nx\n",
             **{f"raw/a{i}.md": f"---\ntitle: Статья {i}\n---\nтекст\n" for i in range(9)}}
    answer = suggested(tmp_path, pages, config="kb:\n  pages: wiki-en/\n")
    groups = [s["group"] for s in answer["suggested"]]
    # English is the wiki's language, whatever the Russian sources beside it say.
    assert groups == [["Сеть Lightning", "Lightning Network"], ["Деньги", "Money"]]
    assert answer["suggested"][1]["why"].startswith(
        "parallel pages wiki-ru/money.md and wiki-en/money.md")


def test_twins_by_frontmatter_under_other_file_names(tmp_path):
    pages = {
        "wiki/en/sandboxing.md": "---\ntitle: Agent sandboxing\ntranslationKey: sandbox\n---\nx\n",
        "wiki/ru/pesochnitsa.md": "---\ntitle: Песочница\ntranslationKey: sandbox\n---\nx\n",
        "wiki/notes-a.md": "---\ntitle: Release train\nid: 20240101\n---\nx\n",
        "wiki/notes-b.md": "---\ntitle: Релизный поезд\nid: 20240101\n---\nx\n",
        "wiki/deploy.md": "---\ntitle: Deploys\npermalink: /en/ops/deploy/\n---\nx\n",
        "wiki/vykatka.md": "---\ntitle: Выкатка\npermalink: /ru/ops/deploy/\n---\nx\n",
        "wiki/cache.md": "---\ntitle: Caching\nlang: en\n---\nx\n",
        "wiki/other/cache.ru.md": "---\ntitle: Кэширование\nlang: ru\n---\nx\n",
        # one slug in one language twice pairs nothing
        "wiki/a/overview.md": "---\ntitle: Overview\nlang: en\n---\nx\n",
        "wiki/b/overview.md": "---\ntitle: Обзор\nlang: en\n---\nx\n",
    }
    answer = suggested(tmp_path, pages)
    got = {tuple(s["group"]): s["why"] for s in answer["suggested"]}
    assert got == {
        ("Кэширование", "Caching"): "parallel pages wiki/other/cache.ru.md and wiki/cache.md "
                                    "(the same slug in two languages)",
        ("Выкатка", "Deploys"): "parallel pages wiki/vykatka.md and wiki/deploy.md "
                                "(the same permalink)",
        ("Релизный поезд", "Release train"): "parallel pages wiki/notes-b.md and "
                                             "wiki/notes-a.md (the same id)",
        ("Песочница", "Agent sandboxing"): "parallel pages wiki/ru/pesochnitsa.md and "
                                           "wiki/en/sandboxing.md (the same translationKey)",
    }


def test_the_stated_language_sets_the_direction(tmp_path):
    pages = {"wiki/en/money.md": "---\ntitle: Money\n---\nx\n",
             "wiki/ru/money.md": "---\ntitle: Деньги\n---\nx\n"}
    answer = suggested(tmp_path, pages, config="kb:\n  language: ru\n")
    assert [s["group"] for s in answer["suggested"]] == [["Money", "Деньги"]]


def test_urls_and_paths_are_no_members(tmp_path):
    pages = {"wiki/phoenix.md": "---\ntitle: Phoenix wallet\naliases: ['/practical-phoenix', "
                                "'https://x.org/p', 'Феникс']\n---\nx\n"}
    answer = suggested(tmp_path, pages)
    assert [s["group"] for s in answer["suggested"]] == [["Феникс", "Phoenix wallet"]]


def test_the_suggested_yaml_is_a_table_searches_load(tmp_path):
    pages = {"wiki/en/q.md": "---\ntitle: 'Pulsar: what is it? A: #1'\n---\nquasar\n",
             "wiki/ru/q.md": "---\ntitle: \"Пульсар: что это? «Ясно» [1]\"\n---\nквазар\n"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    answer = reads.kb_aliases(settings, suggest=True)
    assert answer["suggested"] and set(answer) >= {"file", "groups", "suggested", "yaml"}
    (tmp_path / "kb" / "wiki" / "_aliases.yaml").write_text(answer["yaml"], encoding="utf-8")
    assert reads.kb_aliases(settings)["table"] == [s["group"] for s in answer["suggested"]]
    found = reads.kb_search(settings, "Пульсар: что это? «Ясно» [1]", path="wiki/en")
    assert found["results"][0]["path"] == "wiki/en/q.md"


PATH_PART = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",),
                                  exclude_characters="/\x00"), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(PATH_PART, min_size=1, max_size=5), st.sampled_from(["en", "ru", "wiki-ru"]))
def test_twins_of_generated_paths_share_one_key(parts, folder):
    from solograph.kb.twins import language_key

    rel = "/".join(parts)
    here = language_key(f"{folder}/{rel}")
    assert here is not None and here[1] in ("en", "ru")
    other = folder.replace("ru", "en") if "ru" in folder else "ru"
    there = language_key(f"{other}/{rel}")
    assert there is not None and there[0] == here[0] and there[1] != here[1]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.lists(st.text(max_size=40), max_size=4))
def test_names_of_any_title_and_aliases(title, aliases):
    from solograph.kb.names import Names, grade, is_address

    names = Names.of(title, aliases)
    assert all(n.stems for n in names.names)
    assert sum(n.kind == 1 for n in names.names) <= sum(1 for a in aliases if not is_address(a))
    for n in names.names:  # a name read back as the query is that name, exactly
        assert grade(names, [set(n.stems)], set(n.stems))[0] == 0
