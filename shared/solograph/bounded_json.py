"""JSON from files we do not write, with an explicit nesting limit.

The standard decoder recurses once per level and gives up at Python's recursion limit, which
depends on how deep the caller already is: a transcript line nested 1,000 levels deep raised
RecursionError out of a sync. Here the limit is MAX_DEPTH, whatever the stack: a value that
opens deeper is replaced by `null` in the text (found by a scan that skips strings) and the
text decoded again, so the rest of the document is still read and the caller learns how many
values were cut.

    value, cut = loads(data)      # bytes or str; ValueError when it is not JSON at all

Speed: a document is decoded as it is, then measured: a short one by counting its brackets, a
long one by walking its containers level by level (not its bytes); only one really too deep
(or deep enough to exhaust the decoder's stack first) pays for the scan and a second decode.
On the lines of a real 60 MB transcript, decoding and parsing them costs 12% more than
json.loads alone did.

A `\\udXXX` escape without its pair decodes to a lone surrogate, which no UTF-8 store accepts
(SQLite's binding raises UnicodeEncodeError): such strings have it replaced by U+FFFD.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MAX_DEPTH = 100
_SHORT = 4096  # bytes

_TOKEN_B = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_TOKEN_S = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_LONE_B = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_S = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TooDeep(ValueError):
    """Raised by `check` for a value nested past the limit."""


def _cut(data: bytes | str, limit: int) -> tuple[bytes | str, int]:
    """`data` with every value opening below `limit` levels replaced by null."""
    # One body for both kinds: each name below holds the kind of `data`.
    token: re.Pattern[Any] = _TOKEN_B if isinstance(data, bytes) else _TOKEN_S
    null, opener = (b"null", b"[{") if isinstance(data, bytes) else ("null", "[{")
    out: list[Any] = []
    kept, level, cut, start = 0, 0, 0, -1
    for m in token.finditer(data):
        text = m.group()
        if len(text) != 1:
            continue  # a string
        if text in opener:
            level += 1
            if level == limit + 1:
                start = m.start()
        else:
            if level == limit + 1 and start >= 0:
                out += [data[kept:start], null]
                kept, start, cut = m.end(), -1, cut + 1
            level -= 1
    if start >= 0:  # never closed: the rest of the document is the value
        out += [data[kept:start], null]
        kept, cut = len(data), cut + 1
    out.append(data[kept:])
    joined: bytes | str = data[:0].join(out)  # every piece is of the kind of `data`
    return joined, cut


def loads(data: bytes | str, *, limit: int = MAX_DEPTH,
          whole: bool = True) -> tuple[object, int]:
    """(the decoded value, how many values nested past `limit` were replaced by null).
    ValueError (json's, or UnicodeDecodeError) when the text is not JSON. `whole=False`
    leaves lone surrogates to the caller (finding them costs a scan of every byte; a caller
    that keeps a few fields of a large document cleans those with `text`)."""
    cut = 0
    try:
        value = json.loads(data)
        # A short text with few brackets cannot be too deep, and counting them is cheaper
        # than walking its values; a long one has few containers for its bytes.
        deep = not (len(data) <= _SHORT and _brackets(data) <= limit) and _deeper(value, limit)
    except RecursionError:  # deeper than the stack allows: certainly past the limit
        deep = True
    if deep:
        data, cut = _cut(data, limit)
        value = json.loads(data)
    lone: re.Pattern[Any] = _LONE_B if isinstance(data, bytes) else _LONE_S
    if whole and lone.search(data):
        value = _whole(value)
    return value, cut


def text(s: str) -> str:
    """`s` with any lone surrogate replaced by U+FFFD (free for ASCII text)."""
    return s if s.isascii() else _SURROGATE.sub("\ufffd", s)



def _whole(value: object) -> object:
    """`value` with every lone surrogate in its strings (keys too) replaced; iterative."""
    if isinstance(value, str):
        return text(value)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for i, v in enumerate(item):
                if isinstance(v, str):
                    item[i] = text(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(item, dict):
            pairs = list(item.items())
            item.clear()
            for k, v in pairs:
                if isinstance(v, str):
                    v = text(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
                item[text(k)] = v
    return value


def _brackets(data: bytes | str) -> int:
    if isinstance(data, bytes):
        return data.count(b"[") + data.count(b"{")
    return data.count("[") + data.count("{")


def _deeper(value: object, limit: int) -> bool:
    """Whether a decoded JSON value holds a container below `limit` levels: level by level,
    so the work per level is a C-level extend and one filter."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(limit):
        if not level:
            return False
        children: list = []
        for item in level:
            children.extend(item.values() if type(item) is dict else item)
        level = [v for v in children if type(v) is dict or type(v) is list]
    return bool(level)


def check(value: object, *, limit: int = MAX_DEPTH) -> None:
    """TooDeep when a decoded value (dicts and lists, as another library hands them over)
    nests deeper than `limit`; iterative, so it never recurses itself."""
    stack = [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, level = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if level > limit:
            raise TooDeep(f"nested deeper than {limit} levels")
        if id(item) in seen:
            continue
        seen.add(id(item))
        stack.extend((child, level + 1) for child in children)


def scalar(value: object) -> str:
    """A field of an untrusted JSON document as text: strings and numbers only (an export's
    id can be either); anything else is empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""
