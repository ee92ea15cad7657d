"""C and C++: queries and resolvers."""

from __future__ import annotations

import re

from tree_sitter import Node

from solograph.portfolio.definitions.spec import (
    Captures,
    Found,
    Spec,
    first_named,
    from_parts,
    line_of,
    text_of,
)

_C_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator", "attributed_declarator"})
_CPP_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "template_function",
        "operator_cast",
    }
)


def _c_function_name(decl: Node | None) -> Node | None:
    """The name inside a function declarator, through pointer/reference wrappers."""
    node = decl
    for _ in range(16):
        if node is None:
            return None
        if node.type == "function_declarator":
            name = node.child_by_field_name("declarator")
            return name if name is not None and name.type in _CPP_NAMES else None
        if node.type not in _C_WRAPPERS:
            return None
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else first_named(node)
    return None


def _c_typedef_name(decl: Node | None) -> Node | None:
    node = decl
    for _ in range(16):
        if node is None or node.type == "type_identifier":
            return node
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else first_named(node)
    return None


def _cpp_simple(node: Node, src: bytes) -> str:
    if node.type in ("template_type", "template_function"):
        name = node.child_by_field_name("name")
        if name is not None:
            return text_of(name, src)
    return text_of(node, src)


def _cpp_parts(node: Node | None, src: bytes) -> list[str]:
    parts: list[str] = []
    for _ in range(32):
        if node is None or node.type not in ("qualified_identifier", "nested_namespace_specifier"):
            break
        if node.type == "nested_namespace_specifier":  # namespace a::b
            return parts + [text_of(c, src) for c in node.named_children]
        scope = node.child_by_field_name("scope")
        if scope is not None:
            parts.append(_cpp_simple(scope, src))
        node = node.child_by_field_name("name")
    if node is not None:
        parts.append(_cpp_simple(node, src))
    return parts


def _c_family(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag in ("function", "member"):
        name = _c_function_name(caps["decl"][0])
        if name is None:
            return None
        found = from_parts(name, _cpp_parts(name, src), "method" if tag == "member" else "function")
        if found is not None and found.prefix:  # void Widget::draw() {}
            found = found._replace(kind="method")
        return found
    if tag == "typedef":
        name = _c_typedef_name(caps["decl"][0])
        if name is None:
            return None
        span = (name.start_byte, name.end_byte)
        return Found(text_of(name, src), "type", line_of(name), span=span)
    name = caps["name"][0]
    return from_parts(name, _cpp_parts(name, src), tag)


# The preprocessor ----------------------------------------------------------------------

_CONDITIONALS = (b"if", b"ifdef", b"ifndef", b"elif", b"else", b"endif", b"elifdef",
                 b"elifndef")
MAX_IF_DEPTH = 256


def first_branches(source: bytes) -> bytes:
    """The source as the preprocessor would see it if every `#if` took its first branch:
    the conditional directives and every other branch blanked (lengths and line breaks
    kept, so byte offsets and lines stay valid)."""
    out = bytearray(source)
    skipping: list[bool] = []  # per open #if: is the current branch blanked
    at = 0
    size = len(source)
    while at < size:
        end = source.find(b"\n", at)
        end = size if end == -1 else end
        while end < size and end > at and source[end - 1:end] == b"\\":  # continued line
            nxt = source.find(b"\n", end + 1)
            end = size if nxt == -1 else nxt
        text = source[at:end].lstrip(b" \t")
        word = text[1:].lstrip(b" \t").split(None, 1)[0] if text.startswith(b"#") and \
            len(text) > 1 and text[1:].strip() else b""
        blank = bool(skipping) and any(skipping)
        if word in _CONDITIONALS:
            if word.startswith(b"if") and len(skipping) < MAX_IF_DEPTH:
                skipping.append(False)
            elif word.startswith(b"el") and skipping:
                skipping[-1] = True
            elif word == b"endif" and skipping:
                skipping.pop()
            blank = True
        if blank:
            for i in range(at, end):
                if out[i] not in (10, 13):
                    out[i] = 32
        at = end + 1
    return bytes(out)


# `class JSI_EXPORT Name : Base {`: an export macro (all capitals) between the keyword and
# the name, which the grammar cannot know expands to an attribute.
_EXPORT_MACRO = re.compile(rb"\b(?:class|struct)[ \t]+([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]+(?=[A-Za-z_])")


def _blank_export_macros(source: bytes) -> bytes:
    def blank(m: re.Match[bytes]) -> bytes:
        start, end = m.span(1)
        return m.group(0)[: start - m.start()] + b" " * (end - start) + m.group(0)[end - m.start():]
    return _EXPORT_MACRO.sub(blank, source)


def cpp_rewrite(source: bytes) -> bytes:
    """first_branches, and export macros blanked (lengths kept)."""
    return _blank_export_macros(first_branches(source))


# Queries ------------------------------------------------------------------------------

_C = """
(function_definition declarator: (_) @decl) @def.function
(struct_specifier name: (_) @name body: (_)) @def.struct
(union_specifier name: (_) @name body: (_)) @def.struct
(enum_specifier name: (_) @name body: (_)) @def.enum
(type_definition declarator: (_) @decl) @def.typedef
"""

_CPP = (
    _C
    + """
(class_specifier name: (_) @name body: (_)) @def.class
(namespace_definition name: (_) @name) @def.module
(alias_declaration name: (type_identifier) @name) @def.type
(field_declaration declarator: (_) @decl) @def.member
(field_declaration_list (declaration declarator: (_) @decl) @def.member)
"""
)

SPECS: dict[str, Spec] = {
    "c": Spec(_C, _c_family, rewrite=first_branches),
    "cpp": Spec(_CPP, _c_family, rewrite=cpp_rewrite),
}
