"""Untrusted text made safe to show: wiki markdown rendered with raw HTML off and links
checked, hrefs taken from transcripts and sources kept only when they are web links, and the
Jinja environment (autoescape on for every template).

markdown-it-py renders CommonMark; with `html` off, `<script>`, `<img onerror>` and `<svg>` in a
page come out as text. Its own link check lets `data:image/...` through; ours keeps http(s),
mailto, in-page anchors and paths on this server only, so a `javascript:` or `data:` link is
shown as plain text. `[[wiki links]]` are an inline rule (never inside code), resolved through
the links the index recorded for the page: a target with no page is marked broken.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt

HERE = Path(__file__).parent
SAFE_SCHEMES = ("http", "https", "mailto")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")


def safe_href(url: str | None) -> str | None:
    """`url` when it is a web link, a mail address, an anchor or a path here; else None."""
    if not url:
        return None
    url = url.strip()
    if any(ord(c) < 0x20 for c in url):  # "java\tscript:" is still javascript: to a browser
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme:
        return url if parts.scheme.lower() in SAFE_SCHEMES else None
    if url.startswith("//") or "\\" in url:  # another host, or one a browser may read as such
        return None
    return url


def page_url(path: str, heading: str = "") -> str:
    url = "/ui/kb/page?ref=" + quote(path, safe="/")
    return url + ("#" + quote(slug(heading)) if heading else "")


def slug(text: str) -> str:
    return re.sub(r"[^\w\- ]", "", text.casefold()).strip().replace(" ", "-")


def lang_of(text: str | None) -> str:
    """`ru` for text mostly in Cyrillic, else `en`: the lang attribute of a message or page."""
    sample = (text or "")[:2000]
    return "ru" if len(_CYRILLIC.findall(sample)) > len(_LATIN.findall(sample)) else "en"


def _wikilink(state, silent: bool) -> bool:
    src, pos = state.src, state.pos
    start = pos + 1 if src.startswith("![[", pos) else pos  # ![[embed]]: shown as its link
    if not src.startswith("[[", start):
        return False
    end = src.find("]]", start + 2)
    inner = src[start + 2:end] if end > 0 else ""
    if not inner.strip() or "\n" in inner or "[" in inner:
        return False
    if not silent:
        state.push("wikilink", "", 0).content = inner
    state.pos = end + 2
    return True


def _render_wikilink(renderer, tokens, idx, options, env) -> str:
    inner = tokens[idx].content
    target, _, label = inner.partition("|")
    target = target.strip()
    page, _, heading = target.partition("#")
    shown = html.escape(label.strip() or target)
    found = env.get("links", {}).get(target) or env.get("links", {}).get(page.strip())
    if not found:
        return f'<span class="broken" title="broken link: no such page">{shown}</span>'
    if not found.endswith(".md"):  # an embedded file: the page has no view of it
        return f'<span class="file">{shown}</span>'
    return f'<a class="wikilink" href="{html.escape(page_url(found, heading.strip()))}">{shown}</a>'


def _heading_open(renderer, tokens, idx, options, env) -> str:
    # An id on each heading, so that a link to `page#Heading` lands on it.
    title = tokens[idx + 1].content if idx + 1 < len(tokens) else ""
    tokens[idx].attrSet("id", slug(title))
    return renderer.renderToken(tokens, idx, options, env)


def _link_open(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    href = token.attrGet("href") or ""
    if urlsplit(href).scheme in ("http", "https"):
        token.attrSet("rel", "noopener noreferrer nofollow")
    return renderer.renderToken(tokens, idx, options, env)


def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.validateLink = lambda url: safe_href(url) is not None
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("link_open", _link_open)
    return md


_MD = markdown()


def render_markdown(text: str, links: dict[str, str]) -> str:
    """`text` as HTML; `links` maps each [[target]] the page holds to the page it names."""
    return _MD.render(text, {"links": links})


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["safe_href"] = safe_href
    env.filters["lang_of"] = lang_of
    env.globals["page_url"] = page_url
    return env
