"""Which parts of a file to parse again when tree-sitter's error recovery swallowed them.

An ERROR node can hold everything after a construct the grammar does not know (a Bash file
loses every function after it, a C file with an `#ifdef` splitting a statement may come out
as one ERROR from its first line to its last). Such a region is cut into pieces where a new
statement starts at the error's own indentation: a line indented no deeper, after a blank
line or after a line that only closes a block (`}`, `end`, `fi`). Each piece is parsed again
alone, so only the piece holding the broken construct stays broken; that piece is then cut
again one indentation level deeper (into its members), down to MAX_DEPTH. Pieces only ever
shrink, so the work ends; the extractor also bounds it by count and by its time budget.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node, Point

# Regions: (start byte, end byte, depth, body end); depth counts cuts into a broken piece's
# body. The first piece cut from a body holds the head of the definition it belongs to (`class
# A {`): body end is where that body ends, so the members in the later pieces nest in it.
Region = tuple[int, int, int, int | None]
MAX_DEPTH = 3
MAX_NODES = 200_000  # nodes visited per tree looking for errors
_CLOSERS = frozenset({b"}", b"};", b"})", b"});", b")", b");", b"]", b"];", b"end", b"fi",
                      b"done", b"esac", b"end;", b"},"})


def point_at(source: bytes, offset: int) -> Point:
    row = source.count(b"\n", 0, offset)
    return Point(row, offset - (source.rfind(b"\n", 0, offset) + 1))


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _lines(source: bytes, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """(offset, text) of each line that starts inside [start, end)."""
    at = source.rfind(b"\n", 0, start) + 1
    while at < end:
        nxt = source.find(b"\n", at, end)
        stop = end if nxt == -1 else nxt
        yield at, source[at:stop]
        if nxt == -1:
            break
        at = nxt + 1


def _cuts(source: bytes, start: int, end: int, inner: bool) -> list[int]:
    """Where statements start at the region's level: at its first line's indentation, or
    with `inner`, at that of the first line indented deeper (its body)."""
    cuts: list[int] = []
    head: int | None = None  # the indentation of the region's first line
    base: int | None = None
    after_break = False
    for offset, text in _lines(source, start, end):
        stripped = text.strip()
        if not stripped:
            after_break = True
            continue
        width = _indent(text)
        if head is None:
            head = width
            base = None if inner else width
        elif base is None:
            if width > head:  # the first line of the body (attributes come before it)
                base = width
        elif width <= base and offset > start and after_break:
            cuts.append(offset)
        after_break = base is not None and width <= base and stripped in _CLOSERS
    return cuts


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


def broken_regions(root: Node, source: bytes, depth: int = 0,
                   within: tuple[int, int] | None = None) -> Iterator[Region]:
    """The pieces to parse again for each error under root. An error at the top level is
    cut at its own level; one inside a definition, or at the head of a piece parsed alone,
    is cut into that definition's body."""
    lo, hi = within or (0, len(source))
    done: set[tuple[int, int]] = set()
    for error in _errors(root):
        holder = error.parent
        if holder is not None and holder.parent is not None:
            # Inside a definition (a class body): its members are cut apart, so the error
            # stays in its own member even when it swallowed the next one's head.
            start, end = max(holder.start_byte, lo), min(holder.end_byte, hi)
            inner = True
        else:
            start, end = max(error.start_byte, lo), min(error.end_byte, hi)
            inner = depth > 0 and source.rfind(b"\n", 0, start) + 1 <= lo
        if end - start < 2 or (start, end) in done:
            continue
        done.add((start, end))
        line_start = source.rfind(b"\n", 0, start) + 1
        first = max(line_start, lo)
        cuts = _cuts(source, first, end, inner)
        if not cuts and (inner or (first, end) == (lo, hi)):
            continue  # nothing to cut: parsing the same text alone again gains nothing
        bounds = [first, *cuts, end]  # no cut: the error alone, to be cut into its body
        for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False)):
            yield (a, b, depth + 1, end if inner and i == 0 else None)
