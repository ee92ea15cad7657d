"""Swift and Gradle build scripts are programs: they are read with patterns over
comment-free text, with brackets matched while skipping strings."""

from __future__ import annotations

import re

STRING = r'"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'"
_COMMENT_OR_STRING = re.compile(rf"{STRING}|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
MAX_CALL = 4096
_PAREN_TOKEN = re.compile(rf"{STRING}|[()\[\],]")


def strip_comments(text: str) -> str:
    def keep_strings(m: re.Match[str]) -> str:
        s = m.group()
        return s if s[0] in "\"'" else "\n" * s.count("\n") or " "
    return _COMMENT_OR_STRING.sub(keep_strings, text)


def paren_pairs(text: str) -> dict[int, int]:
    """Offsets of every matched opening bracket to its closing one, strings skipped."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _PAREN_TOKEN.finditer(text):
        tok = m.group()
        if tok in "([":
            stack.append(m.start())
        elif tok in ")]" and stack:
            pairs[stack.pop()] = m.start()
    return pairs


def split_args(args: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for m in _PAREN_TOKEN.finditer(args):
        tok = m.group()
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
        elif tok == "," and depth == 0:
            parts.append(args[start:m.start()])
            start = m.end()
    parts.append(args[start:])
    return [p.strip() for p in parts if p.strip()]
