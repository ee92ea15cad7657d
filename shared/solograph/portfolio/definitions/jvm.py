"""Kotlin and Java: queries and resolvers."""

from __future__ import annotations

from tree_sitter import Node

from solograph.portfolio.definitions.spec import Captures, Found, Spec, line_of, simple, text_of

# Kotlin -------------------------------------------------------------------------------


def _kotlin(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag == "companion":  # `companion object {}` is named Companion unless named
        name = node.child_by_field_name("name") or next(
            (c for c in node.named_children if c.type in ("type_identifier", "identifier")), None)
        if name is None:
            return Found("Companion", "class", line_of(node))
        return Found(text_of(name, src), "class", line_of(name))
    if tag != "kotlin_class":
        return simple(tag, node, caps, src)
    name = caps["name"][0]
    kind = "class"
    for child in node.children:
        if child.type == "interface":
            kind = "interface"
        elif child.type == "enum":  # the bundled grammar
            kind = "enum"
        elif child.type == "modifiers":  # the PyPI grammar: (modifiers (class_modifier))
            if any(text_of(m, src) == "enum" for m in child.children):
                kind = "enum"
        elif child.is_named and child.type != "type_parameters":
            break
    return Found(text_of(name, src), kind, line_of(name))


# Queries ------------------------------------------------------------------------------

# The PyPI grammar (tree-sitter-kotlin 1.x) names every definition through a `name` field;
# it reads a body-less `annotation class Name` as an infix call of `class`.
_KOTLIN = """
(function_declaration name: (_) @name) @def.function
(class_declaration name: (_) @name) @def.kotlin_class
(object_declaration name: (_) @name) @def.class
(companion_object) @def.companion
(type_alias type: (identifier) @name) @def.type
((infix_expression . (identifier) @kw . (identifier) @class . (identifier) @name) @def.class
 (#eq? @kw "annotation") (#eq? @class "class"))
"""

# The bundled grammar of tree-sitter-language-pack (fwcd's) has no fields.
_KOTLIN_PACK = """
(function_declaration (simple_identifier) @name) @def.function
(class_declaration (type_identifier) @name) @def.kotlin_class
(object_declaration (type_identifier) @name) @def.class
(companion_object) @def.companion
(type_alias (type_identifier) @name) @def.type
"""

_JAVA = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(compact_constructor_declaration name: (identifier) @name) @def.method
"""

SPECS: dict[str, Spec] = {
    "kotlin": Spec(_KOTLIN, _kotlin, variants={"pack": _KOTLIN_PACK}),
    "java": Spec(_JAVA),
}
