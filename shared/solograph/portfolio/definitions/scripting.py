"""Python, Ruby, PHP and Bash: queries and resolvers."""

from __future__ import annotations

from tree_sitter import Node

from solograph.portfolio.definitions.spec import (
    CLASS_LIKE,
    Captures,
    Found,
    Spec,
    from_parts,
    line_of,
    text_of,
    unquote,
)

# Ruby ---------------------------------------------------------------------------------


def _ruby_parts(node: Node | None, src: bytes) -> list[str]:
    parts: list[str] = []
    while node is not None and node.type == "scope_resolution":
        parts.append(text_of(node.child_by_field_name("name") or node, src))
        node = node.child_by_field_name("scope")
    if node is not None:
        parts.append(text_of(node, src))
    return parts[::-1]


def _bash(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    name = caps["name"][0]
    text = text_of(name, src)
    return Found(unquote(text) if tag == "test" else text, tag, line_of(name))


def _ruby(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    name = caps["name"][0]
    if name.type == "scope_resolution":  # class Outer::Inner
        return from_parts(name, _ruby_parts(name, src), tag)
    return Found(text_of(name, src), tag, line_of(name))


# Queries ------------------------------------------------------------------------------

_PYTHON = """
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
"""

_RUBY = """
(method name: (_) @name) @def.function
(singleton_method name: (_) @name) @def.method
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
"""

_PHP = """
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
"""

# A bats test, `@test "name" {`, parses as the command `@test` with the name as argument.
_BASH = """
(function_definition name: (word) @name) @def.function
((command name: (command_name (word) @cmd) . argument: [(string) (raw_string) (word)] @name)
 @def.test (#eq? @cmd "@test"))
"""

SPECS: dict[str, Spec] = {
    "python": Spec(_PYTHON),
    "ruby": Spec(_RUBY, _ruby, CLASS_LIKE | {"module"}),
    "php": Spec(_PHP),
    "bash": Spec(_BASH, _bash),
}
