"""Which parts of a file to parse again when tree-sitter's error recovery swallowed them.

An ERROR node can hold everything after a construct the grammar does not know (a Bash file
loses every function after it, a Swift type every member). Such a region is cut at its first
line indented no deeper than where the error starts (the next statement at that level): the
tail from there on is parsed again alone, so what follows the broken construct parses as if
it were not there; the head, the broken definition itself, is parsed alone too and, when it
still fails, cut again one indentation level deeper (its members). Each cut moves forward,
so the work ends; the extractor also bounds it by count, depth and its time budget.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node, Point

# Regions: (start byte, end byte, depth, head); depth counts cuts into a broken definition's
# body, head says the region is such a definition parsed alone.
Region = tuple[int, int, int, bool]
MAX_DEPTH = 3
MAX_NODES = 200_000  # nodes visited per tree looking for errors


def point_at(source: bytes, offset: int) -> Point:
    row = source.count(b"\n", 0, offset)
    return Point(row, offset - (source.rfind(b"\n", 0, offset) + 1))


def _indent(source: bytes, line_start: int) -> int:
    i = line_start
    while i < len(source) and source[i] in b" \t":
        i += 1
    return i - line_start


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _cut(source: bytes, start: int, end: int, base: int, skip_first: bool) -> int | None:
    """The first line start in (start, end) holding text indented no deeper than `base`;
    with `skip_first`, lines deeper than the first inner line do not count either."""
    at = source.find(b"\n", start, end)
    while at != -1 and at + 1 < end:
        line = at + 1
        nxt = source.find(b"\n", line, end)
        stop = end if nxt == -1 else nxt
        text = source[line:stop].strip()
        if text:
            width = _indent(source, line)
            if skip_first:
                base, skip_first = width, False
            elif width <= base:
                return line
        at = nxt
    return None


def _errors(root: Node) -> Iterator[Node]:
    """The outermost ERROR nodes under root (root itself when it is one)."""
    stack = [root]
    visited = 0
    while stack and visited < MAX_NODES:
        node = stack.pop()
        visited += 1
        if node.type == "ERROR" or node.is_error:
            yield node
            continue
        if node.has_error:
            stack.extend(reversed(node.children))


def broken_regions(root: Node, source: bytes, depth: int = 0, head: bool = False,
                   within: tuple[int, int] | None = None) -> Iterator[Region]:
    """The regions to parse again for each error under root: its head and its tail."""
    lo, hi = within or (0, len(source))
    for error in _errors(root):
        start, end = max(error.start_byte, lo), min(error.end_byte, hi)
        if end - start < 2:
            continue
        line = _line_start(source, start)
        inner = head and start == lo  # a broken definition parsed alone: cut into its body
        cut = _cut(source, line if inner else start, end, _indent(source, line), inner)
        if cut is None:
            continue
        yield (cut, end, depth, False)  # the tail: everything after the broken construct
        if depth < MAX_DEPTH:
            yield (start, cut, depth + 1, True)  # the head: the broken construct alone
