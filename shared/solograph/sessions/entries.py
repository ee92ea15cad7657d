"""How one stored entry (a user or assistant record) is kept: its tool calls as JSON and as
searchable text, and the words the index holds for it. Apart from the reader (records), since a
search renders snippets with it and must not load the line parser."""

from __future__ import annotations

import json

from solograph.text.tokens import index_text_long


def tool_text(tools: list[tuple[str, dict[str, str]]]) -> str:
    """Tool calls as searchable text: `Bash: git status`."""
    return "\n".join(f"{name}: {' '.join(args.values())}".rstrip() for name, args in tools)


def entry_words(text: str, tools: list[tuple[str, dict[str, str]]]) -> str:
    """What the index holds for one entry: the stems of its text and its tool calls."""
    return index_text_long(text + "\n" + tool_text(tools) if tools else text)


def tools_json(tools: list[tuple[str, dict[str, str]]]) -> str:
    return json.dumps([[n, a] for n, a in tools], ensure_ascii=False,
                      separators=(",", ":")) if tools else ""
