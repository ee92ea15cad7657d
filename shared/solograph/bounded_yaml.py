"""YAML from files we do not write (frontmatter, `.solograph.yaml`, `_aliases.yaml`).

    value = load(text)          # yaml.YAMLError, and nothing else, for anything it cannot read

PyYAML's safe loader raises more than YAMLError on text people really write: `created:
2024-02-30` is a ValueError from the date constructor, a 5,000-digit number a ValueError
from `int`, and nesting (or a chain of aliases) deep enough a RecursionError. Here:
- dates and times are never typed: they keep their text (`2024-02-30` stays that string);
- an int, float or binary that cannot be built keeps its text too;
- a `"\\ud800"` escape without its pair (which no UTF-8 store accepts) becomes U+FFFD;
- the document's nodes are measured before anything is built: a path of more than MAX_DEPTH
  collections (aliases followed, so a chain of them counts) or a collection holding itself is a
  YAMLError that says so. With libyaml the nodes are composed in C; the pure-Python composer
  is stopped at the same depth instead of at Python's recursion limit.
"""

from __future__ import annotations

import re

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Construct = Callable[[Any, Node], Any]  # a SafeConstructor method

MAX_DEPTH = 64
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_STR = "tag:yaml.org,2002:str"
_SURROGATE = re.compile("[\ud800-\udfff]")


class TooDeep(yaml.YAMLError):
    pass


def _keep_text(build: Construct) -> Construct:
    def construct(self: Any, node: Node) -> Any:
        try:
            return build(self, node)
        except (ValueError, OverflowError, IndexError, yaml.YAMLError):  # `!!int` on ""
            return _text(self, node)
    return construct


def _text(self: Any, node: Node) -> str:
    return _SURROGATE.sub("\ufffd", self.construct_scalar(node))


def _untyped_dates(resolvers: dict) -> dict:
    return {first: [(tag, rx) for tag, rx in rules if tag != _TIMESTAMP]
            for first, rules in resolvers.items()}


class _DepthComposer:
    """The pure-Python composer, stopped at MAX_DEPTH open collections."""

    _depth = 0

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)  # type: ignore[misc]  # a mixin of the loader
        finally:
            self._depth -= 1


def _loader(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    mixins = (_DepthComposer,) if base is yaml.SafeLoader else ()
    cls: type[yaml.SafeLoader] = type(f"Bounded{base.__name__}", (*mixins, base), {})
    cls.yaml_implicit_resolvers = _untyped_dates(base.yaml_implicit_resolvers)
    cls.yaml_constructors = dict(base.yaml_constructors)
    for tag in ("int", "float", "binary"):
        name = f"tag:yaml.org,2002:{tag}"
        cls.yaml_constructors[name] = _keep_text(base.yaml_constructors[name])
    cls.yaml_constructors[_TIMESTAMP] = cls.yaml_constructors[_STR] = _text
    return cls


LOADER = _loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def depth(node: Node) -> int:
    """The longest path of collections from `node` (aliases are shared nodes, so they are
    followed); iterative, with each node measured once. TooDeep for a node that holds itself."""
    done: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        item, leaving = stack.pop()
        key = id(item)
        children = _children(item)
        if leaving:
            open_.discard(key)
            done[key] = 1 + max((done[id(c)] for c in children), default=0)
            if done[key] > MAX_DEPTH:
                raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
            continue
        if key in done:
            continue
        if key in open_:
            raise TooDeep("a collection holds itself")
        if not children:
            done[key] = 0
            continue
        open_.add(key)
        stack.append((item, True))
        for child in children:
            if id(child) in open_:
                raise TooDeep("a collection holds itself")
            if id(child) not in done:
                stack.append((child, False))
    return done[id(node)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def load(text: str) -> object:
    """The one document in `text`, or None when it is empty."""
    loader = LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        depth(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()
