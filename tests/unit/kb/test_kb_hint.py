"""The prompt hint: a page named by a rare word that covers the prompt, or silence; each page
once per session; stack templates for "which stack for X?"."""

from __future__ import annotations

import pytest

from solograph import reads
from solograph.config import Settings
from tests.support.kb import make_kb

CONFIG = "kb:\n  pages: wiki/\n  stacks: stacks\n"
PAGES = {
    **{f"wiki/filler-{i}.md": f"# Filler {i}\n\nplain wiki words about login forms {i}\n"
       for i in range(15)},
    "wiki/quokka-care.md": "# Quokka care\n\nFeed a quokka leaves; in summer give shade and "
                           "water. Quokkas live on Rottnest.\n",
    "wiki/_aliases.yaml": "- [квокка, quokka]\n",
    "stacks/ios-app.yaml": "name: iOS app\ndescription: SwiftUI, SwiftData, StoreKit 2\n",
    "stacks/web-saas.yaml": "name: Web SaaS\ndescription: Next.js, Postgres, Stripe\n",
}


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=PAGES,
                                                            config=CONFIG))


def test_a_rare_word_naming_a_page_that_covers_the_prompt(settings):
    answer = reads.kb_hint(settings, "how should we feed a quokka in summer?")
    assert answer["pages"] == ["wiki/quokka-care.md"]
    assert "wiki/quokka-care.md (Quokka care)" in answer["hint"]


@pytest.mark.parametrize("prompt", [
    "fix the login form validation",      # words every page has: no page is named
    "show me a filler page",              # names pages, but not rarely
    "hello where is fts5 defined",        # nothing in the wiki
    "ok",
    "",
])
def test_silence_otherwise(settings, prompt):
    assert reads.kb_hint(settings, prompt)["hint"] is None


def test_the_page_must_cover_the_prompt_not_just_share_a_word(settings):
    assert reads.kb_hint(settings, "rename quokka variable in the parser module tests")[
        "hint"] is None


def test_each_page_once_per_session(settings):
    first = reads.kb_hint(settings, "feed the quokka in summer", session="s1")
    again = reads.kb_hint(settings, "quokka summer feeding again", session="s1")
    other = reads.kb_hint(settings, "feed the quokka in summer", session="s2")
    assert first["pages"] == other["pages"] == ["wiki/quokka-care.md"]
    assert again["hint"] is None
    assert (settings.home / "kb" / "sessions" / "s1.json").exists()


def test_aliases_reach_the_page_from_another_language(settings):
    assert reads.kb_hint(settings, "чем кормить квокку летом")["pages"] == \
        ["wiki/quokka-care.md"]


def test_stack_templates_answer_which_stack(settings):
    answer = reads.kb_hint(settings, "which stack for an iOS app with SwiftUI?")
    assert "iOS app" in answer["stack"] and "ios-app.yaml" in answer["stack"]
    russian = reads.kb_hint(settings, "какой стек взять для web saas с оплатой stripe")
    assert "Web SaaS" in russian["stack"]
    listed = reads.kb_hint(settings, "what stack for a game?")
    assert "ios-app.yaml" in listed["stack"] and "web-saas.yaml" in listed["stack"]
    assert reads.kb_hint(settings, "feed the quokka")["stack"] is None


def test_the_hint_ranks_by_the_prompts_topic_words_not_its_small_words(tmp_path, monkeypatch):
    from solograph.kb import hint

    # Small words on few pages (a young wiki): rare, yet no topic.
    pages = {**PAGES, "wiki/how-we-work.md": "# How we work\n\nHow should we plan? We "
                                             "should write it down.\n"}
    settings = Settings(home=tmp_path / "home",
                        kb_path=make_kb(tmp_path, pages=pages, config=CONFIG))

    ranked = []
    real = hint.rank

    def spy(conn, query, scope, limit):
        ranked.append(list(query.stems))
        return real(conn, query, scope, limit)

    monkeypatch.setattr(hint, "rank", spy)
    answer = reads.kb_hint(settings, "how should we feed a quokka in summer?")
    assert answer["pages"] == ["wiki/quokka-care.md"]
    words = {w for stems in ranked for w in stems}
    assert "quokka" in words and not words & {"how", "should", "we", "in"}
