"""What a language contributes: a query whose matches name definition nodes, and a resolver
that turns one match into a Found (name, kind, line and scope prefix); plus the helpers
resolvers share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from tree_sitter import Node


class Found(NamedTuple):
    name: str
    kind: str
    line: int  # 1-based
    prefix: str = ""  # scope parts of the definition's own, joined with "."
    emit: bool = True  # False: only opens a scope (Rust impl, Swift extension)
    span: tuple[int, int] | None = None  # byte range used for nesting, if not the node's
    of_class: bool = False  # scoped by the nearest enclosing class-like (JS this.x = ...)
    terms: str = ""  # more words it is found by (the protocols a Swift extension adopts)


Captures = dict[str, list[Node]]
Resolver = Callable[[str, Node, Captures, bytes], "Found | None"]


def text_of(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def line_of(node: Node) -> int:
    return node.start_point[0] + 1


def first_named(node: Node) -> Node | None:
    return node.named_children[0] if node.named_child_count else None


def unquote(text: str) -> str:
    if len(text) >= 2 and (text[0], text[-1]) in {('"', '"'), ("'", "'"), ("`", "`"), ("[", "]")}:
        return text[1:-1]
    return text


def name_node(node: Node, caps: Captures) -> Node | None:
    found = caps.get("name")
    return found[0] if found else node.child_by_field_name("name")


def simple(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    name = name_node(node, caps)
    if name is None:
        return None
    return Found(text_of(name, src), tag, line_of(name))


def from_parts(node: Node, parts: list[str], kind: str) -> Found | None:
    """The last part names the definition found at node; the others are its scope prefix."""
    parts = [p for p in parts if p]
    if not parts:
        return None
    return Found(parts[-1], kind, line_of(node), ".".join(parts[:-1]))


CLASS_LIKE = frozenset({"class", "struct", "interface", "protocol", "enum", "trait"})


@dataclass(frozen=True, slots=True)
class Spec:
    query: str
    resolver: Resolver = simple
    class_like: frozenset[str] = CLASS_LIKE  # a "function" directly inside one is a method
    # The query for a grammar source whose grammar names its nodes differently.
    variants: dict[str, str] = field(default_factory=dict)
    # A rewrite of a file that did not parse, of the same length, to parse again (C: only
    # the first branch of each #if, where a function header is split between branches).
    rewrite: Callable[[bytes], bytes] | None = None

    def query_for(self, source: str) -> str:
        return self.variants.get(source, self.query)
