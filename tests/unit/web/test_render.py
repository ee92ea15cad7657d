"""Wiki markdown and untrusted links as the page shows them: raw HTML never becomes markup, a
link is kept only when it is a web link, a mail address, an anchor or a path here, and
[[links]] resolve through the page's recorded links (broken ones marked, none inside code)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph_services.web.render import environment, lang_of, render_markdown, safe_href


@pytest.mark.parametrize(("url", "kept"), [
    ("https://example.com/a?b=1", True),
    ("http://example.com", True),
    ("mailto:me@example.com", True),
    ("#section", True),
    ("/ui/kb/page?ref=wiki/x.md", True),
    ("relative/page.md", True),
    ("javascript:alert(1)", False),
    ("JavaScript:alert(1)", False),
    (" javascript:alert(1)", False),
    ("java\tscript:alert(1)", False),
    ("java\nscript:alert(1)", False),
    ("data:text/html;base64,PHNjcmlwdD4=", False),
    ("data:image/png;base64,AAAA", False),
    ("vbscript:msgbox", False),
    ("file:///etc/passwd", False),
    ("//evil.example/x", False),
    ("\\\\evil.example\\x", False),
    ("", False),
    (None, False),
])
def test_only_safe_links_are_kept(url, kept):
    assert (safe_href(url) is not None) is kept


def test_raw_html_and_bad_links_stay_text():
    out = render_markdown(
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n"
        "[x](javascript:alert(1)) [y](data:text/html,hi) ![z](javascript:alert(1)) "
        "[ok](https://example.com)", {})
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out
    assert 'href="javascript' not in out and 'href="data' not in out
    assert '<a href="https://example.com" rel="noopener noreferrer nofollow">ok</a>' in out


def test_wiki_links_resolve_or_are_marked_broken_and_code_is_left_alone():
    out = render_markdown("See [[recipe-box#Data model|the model]], [[gone]] and "
                          "`[[in-code]]`.\n\n```\n[[in-fence]]\n```\n",
                          {"recipe-box#Data model": "wiki/recipe-box.md"})
    assert ('<a class="wikilink" href="/ui/kb/page?ref=wiki/recipe-box.md#data-model">'
            "the model</a>") in out
    assert '<span class="broken" title="broken link: no such page">gone</span>' in out
    assert "<code>[[in-code]]</code>" in out and "[[in-fence]]" in out


def test_an_embed_is_shown_as_its_link():
    out = render_markdown("A diagram: ![[diagram.png]] and ![[recipe-box]].",
                          {"diagram.png": "wiki/diagram.png", "recipe-box": "wiki/recipe-box.md"})
    assert "!" not in out
    assert '<span class="file">diagram.png</span>' in out
    assert 'href="/ui/kb/page?ref=wiki/recipe-box.md"' in out


def test_a_link_label_is_escaped():
    out = render_markdown("[[<b>x</b>|<img src=x onerror=alert(1)>]]", {})
    assert "<img" not in out and "&lt;img" in out


def test_headings_get_ids_for_section_links():
    assert '<h2 id="data-model">Data model</h2>' in render_markdown("## Data model", {})


def test_templates_escape_by_default():
    env = environment()
    assert env.from_string("{{ x }}").render(x="<script>") == "&lt;script&gt;"


@pytest.mark.parametrize(("text", "lang"), [("почини индекс", "ru"), ("fix the index", "en"),
                                            ("", "en"), ("fix индекс по графам", "ru")])
def test_lang_follows_the_script_of_the_text(text, lang):
    assert lang_of(text) == lang


_HOSTILE = st.sampled_from(["<script>", "</script>", "<img src=x onerror=alert(1)>", "[[",
                            "]]", "|", "#", "javascript:", "data:", "](", "[", "](javascript:x)",
                            "<svg onload=x>", "\n", "`", "```", "![x](", ")", " ", "a", "й"])


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


ALLOWED = {"p", "a", "span", "code", "pre", "em", "strong", "h1", "h2", "h3", "h4", "h5", "h6",
           "ul", "ol", "li", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th",
           "td", "img"}


@settings(max_examples=300, deadline=None)
@given(st.lists(_HOSTILE, max_size=40).map("".join))
def test_no_markdown_makes_markup_that_runs(text):
    parser = _Tags()
    parser.feed(render_markdown(text, {"a": "wiki/a.md"}))
    for tag, attrs in parser.tags:
        assert tag in ALLOWED, tag
        for name, value in attrs:
            assert not name.startswith("on"), name
            if name in ("href", "src") and value:  # an empty one points at nothing
                assert safe_href(value) is not None, value


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("javscriptdtJ:/\\ \t\n\x00\x1f#?.ahm%")),
               max_size=30))
def test_a_kept_link_never_runs_script(url):
    kept = safe_href(url)
    if kept is None:
        return
    squeezed = "".join(c for c in kept if c > " ").lower()
    assert not squeezed.startswith(("javascript:", "data:", "vbscript:"))
    assert not kept.startswith("//")
