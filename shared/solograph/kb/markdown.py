"""One markdown page: frontmatter, title, heading sections and [[links]].

Broken frontmatter never loses the page: it is indexed from its body and the problem is
reported. Values YAML cannot type keep their text (`created: 2024-02-30` is that string).
Links are read outside code (fenced blocks and inline spans) in every Obsidian form:
`[[slug]]`, `[[slug|label]]`, `[[path/slug#Heading|label]]` and embeds `![[x]]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import PurePosixPath

MAX_SECTION = 1200  # characters: a hit names its best section, so sections stay this small

LINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|→|\|)+\s*")


@dataclass(frozen=True)
class Link:
    target: str
    heading: str
    label: str
    embed: bool
    line: int  # 1-based, in the file
    context: str  # the line as text: links shown as their labels, markup dropped


@dataclass(frozen=True)
class Section:
    heading: str  # heading path, `A > B > C`; '' before the first heading
    line: int
    text: str


@dataclass
class Page:
    title: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    language: str = ""
    compacted: bool = False  # frontmatter `compacted: true`: the inbox note was digested
    problem: str = ""
    body: str = ""
    body_line: int = 1  # the file line the body starts on
    sections: list[Section] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)  # every heading's text, for #anchors


def parse(text: str, path: str) -> Page:
    """Everything the index keeps about one page (`text` already redacted)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    meta, body, body_line, problem = split_frontmatter(text)
    page = Page(problem=problem, body=body, body_line=body_line)
    page.title = _scalar(meta.get("title"))
    page.description = _scalar(meta.get("description") or meta.get("summary"))
    page.tags = _strings(meta.get("tags"), r"[,\s]+")
    page.aliases = _strings(meta.get("aliases") or meta.get("alias"), r"\s*,\s*")
    page.language = _scalar(meta.get("language") or meta.get("lang")).lower()
    page.compacted = meta.get("compacted") is True or _scalar(meta.get("compacted")).lower() \
        in ("true", "yes")
    _read_body(page)
    if not page.title:
        page.title = PurePosixPath(path).stem
    return page


def split_frontmatter(text: str) -> tuple[dict, str, int, str]:
    """(frontmatter mapping, body, first body line, problem). A page without frontmatter has
    an empty mapping; a broken one keeps its body and says what is wrong."""
    if not (text.startswith("---\n") or text == "---"):
        return {}, text, 1, ""
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return {}, text, 1, "frontmatter: the opening --- is never closed"
    raw = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1:])
    import yaml  # only when a changed page has frontmatter

    from solograph import bounded_yaml

    try:
        data = bounded_yaml.load(raw) if raw.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return {}, body, end + 2, f"frontmatter: invalid YAML{where}: {reason}"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return {}, body, end + 2, "frontmatter: not a mapping of keys to values"
    return data, body, end + 2, ""


def _scalar(value: object) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value).strip()


def _strings(value: object, separator: str) -> list[str]:
    """A list from a YAML list or a string of items split by `separator`."""
    if value is None:
        return []
    if isinstance(value, str):
        items = re.split(separator, value)
    elif isinstance(value, list):
        items = [_scalar(v) for v in value if not isinstance(v, dict | list)]
    else:
        items = [_scalar(value)]
    return [i.lstrip("#").strip() for i in items if i and i.strip()]


def _read_body(page: Page) -> None:
    """Sections, links and the first H1 title, in one pass over the lines outside code."""
    fence = ""
    path: list[tuple[int, str]] = []  # (level, heading text)
    current: list[str] = []
    start = page.body_line
    heading = ""
    for offset, line in enumerate(page.body.split("\n")):
        number = page.body_line + offset
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            current.append(line)
            continue
        if opened:
            fence = opened.group(1)
            current.append(line)
            continue
        found = HEADING.match(line)
        if found:
            _close(page, heading, start, current)
            level, text = len(found.group(1)), plain(found.group(2))
            if level == 1 and not page.title:
                page.title = text
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, text))
            page.headings.append(text)
            heading = " > ".join(t for _, t in path)
            start, current = number, []
            _links(page, line, number)
            continue
        current.append(line)
        _links(page, line, number)
    _close(page, heading, start, current)


def _links(page: Page, line: str, number: int) -> None:
    if "[[" not in line:
        return
    visible = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
    found = list(LINK.finditer(visible))
    if not found:
        return
    context = _context(line)
    for m in found:
        inner = m.group(2).replace("\\|", "|")
        target, _, label = inner.partition("|")
        target, _, anchor = target.partition("#")
        target, anchor = target.strip(), anchor.strip()
        if not target and not anchor:
            continue
        page.links.append(Link(target=target, heading=anchor, label=label.strip(),
                               embed=bool(m.group(1)), line=number, context=context))


def _close(page: Page, heading: str, start: int, lines: list[str]) -> None:
    """Add one heading's text as sections of at most MAX_SECTION characters, cut between
    paragraphs (a longer paragraph is cut between lines)."""
    text = "\n".join(lines).strip("\n")
    if not text.strip() and not heading:
        return
    chunk: list[str] = []
    size = 0
    first = start
    base = start + 1 if heading else start  # the file line of lines[0]
    for i, line in enumerate(lines):
        if chunk and size + len(line) > MAX_SECTION and (not line.strip() or size > MAX_SECTION):
            page.sections.append(Section(heading, first, "\n".join(chunk).strip("\n")))
            chunk, size, first = [], 0, base + i
        chunk.append(line)
        size += len(line) + 1
    rest = "\n".join(chunk).strip("\n")
    if rest.strip() or not any(s.heading == heading for s in page.sections):
        page.sections.append(Section(heading, first, rest))


def link_text(m: re.Match[str]) -> str:
    inner = m.group(2).replace("\\|", "|")
    target, _, label = inner.partition("|")
    if label.strip():
        return label.strip()
    target, _, anchor = target.partition("#")
    name = PurePosixPath(target.strip()).name if target.strip() else ""
    return " ".join(x for x in (name, anchor.strip()) if x)


def plain(text: str) -> str:
    """Text for the index and for people: links become their labels, markdown links their
    text, emphasis and code marks go."""
    if "[[" in text:
        text = LINK.sub(link_text, text)
    if "](" in text:
        text = MD_LINK.sub(lambda m: m.group(1), text)
    return text.replace("**", "").replace("`", "").strip()


def _context(line: str) -> str:
    text = plain(line)
    text = LIST_MARK.sub("", text)
    text = re.sub(r"\s*\|\s*", " ", text).strip(" |")
    return re.sub(r"\s+", " ", text)[:400]
