"""JSON from files we do not write, with an explicit nesting limit.

The standard decoder recurses once per level and gives up at Python's recursion limit, which
depends on how deep the caller already is: a transcript line nested 1,000 levels deep raised
RecursionError out of a sync. Here the depth is measured first, outside strings, and a value
that opens deeper than MAX_DEPTH is replaced by `null` before decoding, so the rest of the
document is still read and the caller learns how many values were cut.

    value, cut = loads(data)      # bytes or str; ValueError when it is not JSON at all

A `\\udXXX` escape without its pair decodes to a lone surrogate, which no UTF-8 store accepts
(SQLite's binding raises UnicodeEncodeError): such strings have it replaced by U+FFFD.

Measuring costs one regex pass (strings out) and a count over the brackets left, all in C;
a document with no more brackets than the limit skips even that.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

MAX_DEPTH = 100

_STRING_B = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_STRING_S = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_TOKEN_B = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_TOKEN_S = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_LONE_B = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_S = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


class TooDeep(ValueError):
    """Raised by `check` for a value nested past the limit."""


def depth(data: bytes | str) -> int:
    """How deep the brackets outside strings nest (exact for valid JSON; for broken JSON an
    over-estimate is harmless: it only means more is cut before a decode that fails)."""
    if isinstance(data, str):
        data = _STRING_S.sub("", data).encode("ascii", "ignore")
    else:
        data = _STRING_B.sub(b"", data)
    skeleton = data.translate(None, _NOT_BRACKET)
    return max(accumulate(map(_STEP.__getitem__, skeleton)), default=0)


def _cut(data: bytes | str, limit: int) -> tuple[bytes | str, int]:
    """`data` with every value opening below `limit` levels replaced by null."""
    token = _TOKEN_B if isinstance(data, bytes) else _TOKEN_S
    null, opener = (b"null", b"[{") if isinstance(data, bytes) else ("null", "[{")
    out, kept, level, cut, start = [], 0, 0, 0, -1
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
    return data[:0].join(out), cut


def loads(data: bytes | str, *, limit: int = MAX_DEPTH) -> tuple[object, int]:
    """(the decoded value, how many values nested past `limit` were replaced by null).
    ValueError (json's, or UnicodeDecodeError) when the text is not JSON."""
    cut = 0
    brackets = data.count(b"[" if isinstance(data, bytes) else "[") + \
        data.count(b"{" if isinstance(data, bytes) else "{")
    if brackets > limit and depth(data) > limit:
        data, cut = _cut(data, limit)
    value = json.loads(data)
    if (_LONE_B if isinstance(data, bytes) else _LONE_S).search(data):
        value = _whole(value)
    return value, cut


def _text(s: str) -> str:
    return _SURROGATE.sub("\ufffd", s)


def _whole(value: object) -> object:
    """`value` with every lone surrogate in its strings (keys too) replaced; iterative."""
    if isinstance(value, str):
        return _text(value)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for i, v in enumerate(item):
                if isinstance(v, str):
                    item[i] = _text(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(item, dict):
            pairs = list(item.items())
            item.clear()
            for k, v in pairs:
                if isinstance(v, str):
                    v = _text(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
                item[_text(k)] = v
    return value


def check(value: object, *, limit: int = MAX_DEPTH) -> None:
    """TooDeep when a decoded value (dicts and lists, as another library hands them over)
    nests deeper than `limit`; iterative, so it never recurses itself."""
    stack = [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, level = stack.pop()
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
