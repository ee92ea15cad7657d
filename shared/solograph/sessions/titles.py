"""A session's title: the name the user gave it, else Claude Code's, else the first real prompt.

Order: `custom-title` (from /rename) → `ai-title` → an old-style `summary` line → the first
prompt the user typed. Each of the first three is the newest of its kind. Prompts that Claude
Code wrote itself never title a session: records.classify already tells commands, notices,
interruptions, meta and compact-summary lines from prompts; here "[Image #N]" markers go, and
whitespace is folded so a title is one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from solograph.sessions.entries import IMAGE_MARKER as _IMAGE

MAX_TITLE = 120
_SPACE = re.compile(r"\s+")


def clean(text: str, limit: int = MAX_TITLE) -> str:
    """One line, no image markers, cut at a word boundary to at most `limit` characters."""
    line = _SPACE.sub(" ", _IMAGE.sub(" ", text)).strip()
    if len(line) <= limit:
        return line
    cut = line[:limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def choose(*, custom: str = "", ai: str = "", summary: str = "",
           prompts: Iterable[str] = ()) -> str:
    """The title from the candidates, best first; "" when there is none."""
    for candidate in (custom, ai, summary):
        title = clean(candidate)
        if title:
            return title
    for prompt in prompts:
        title = clean(prompt)
        if title:
            return title
    return ""
