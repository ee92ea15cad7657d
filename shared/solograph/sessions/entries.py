"""How one stored entry (a user or assistant record) is kept: its tool calls as JSON and as
searchable text, and the words the index holds for it. Apart from the reader (records), since a
search renders snippets with it and must not load the line parser."""

from __future__ import annotations

import json
import re

from solograph.text.tokens import index_text_long

IMAGE_MARKER = re.compile(r"\[Image #\d+\]")  # where Claude Code pasted an image
_BLANKS = re.compile(r"[ \t]{2,}")


def without_images(text: str) -> str:
    """`text` without `[Image #N]` markers (and the blanks they leave)."""
    return _BLANKS.sub(" ", IMAGE_MARKER.sub("", text)).strip()


def tool_text(tools: list[tuple[str, dict[str, str]]]) -> str:
    """Tool calls as searchable text: `Bash: git status`."""
    return "\n".join(f"{name}: {' '.join(args.values())}".rstrip() for name, args in tools)


def entry_words(text: str, tools: list[tuple[str, dict[str, str]]]) -> str:
    """What the index holds for one entry: the stems of its text and its tool calls."""
    return index_text_long(text + "\n" + tool_text(tools) if tools else text)


def tools_json(tools: list[tuple[str, dict[str, str]]]) -> str:
    return json.dumps([[n, a] for n, a in tools], ensure_ascii=False,
                      separators=(",", ":")) if tools else ""
