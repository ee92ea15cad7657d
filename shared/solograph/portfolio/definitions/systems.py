"""Swift, Rust and Go: queries and resolvers."""

from __future__ import annotations

from tree_sitter import Node

from solograph.portfolio.definitions.spec import (
    CLASS_LIKE,
    Captures,
    Found,
    Spec,
    first_named,
    line_of,
    simple,
    text_of,
)

# Swift ------------------------------------------------------------------------------

_SWIFT_KINDS = {"class": "class", "struct": "struct", "enum": "enum", "actor": "class"}


def _swift(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag != "swift_type":
        return simple(tag, node, caps, src)
    keyword = node.child_by_field_name("declaration_kind")
    name = node.child_by_field_name("name")
    if keyword is None or name is None:
        return None
    if keyword.type == "extension":  # extension Foo.Bar: Codable, named Bar in scope Foo
        idents = [text_of(c, src) for c in name.named_children if c.type == "type_identifier"]
        idents = idents or [text_of(name, src)]
        adopted = [text_of(c.child_by_field_name("inherits_from") or c, src)
                   for c in node.named_children if c.type == "inheritance_specifier"]
        return Found(idents[-1], "extension", line_of(name), ".".join(idents[:-1]),
                     terms=" ".join(adopted))
    kind = _SWIFT_KINDS.get(keyword.type)
    return Found(text_of(name, src), kind, line_of(name)) if kind else None


# Rust ---------------------------------------------------------------------------------


def _rust_type_name(node: Node | None, src: bytes) -> Node | None:
    for _ in range(16):
        if node is None or node.type in ("type_identifier", "primitive_type"):
            return node
        if node.type == "scoped_type_identifier":
            node = node.child_by_field_name("name")
        elif node.type in ("generic_type", "reference_type", "pointer_type"):
            node = node.child_by_field_name("type")
        else:
            return node
    return None


def _rust(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag != "impl":
        return simple(tag, node, caps, src)
    name = _rust_type_name(node.child_by_field_name("type"), src)
    if name is None:
        return None
    return Found(text_of(name, src), "class", line_of(name), emit=False)


# Go -----------------------------------------------------------------------------------

_GO_TYPE_KINDS = {"struct_type": "struct", "interface_type": "interface"}


def _go(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    name = caps["name"][0]
    if tag == "go_type":
        kind = _GO_TYPE_KINDS.get(caps["type"][0].type, "type")
        return Found(text_of(name, src), kind, line_of(name))
    if tag == "go_method":
        recv = caps["recv"][0]
        for _ in range(8):
            if recv.type in ("pointer_type", "parenthesized_type"):
                inner = first_named(recv)
            elif recv.type == "generic_type":
                inner = recv.child_by_field_name("type")
            elif recv.type == "qualified_type":
                inner = recv.child_by_field_name("name")
            else:
                break
            if inner is None:
                break
            recv = inner
        return Found(text_of(name, src), "method", line_of(name), text_of(recv, src))
    return Found(text_of(name, src), tag, line_of(name))


# Queries ------------------------------------------------------------------------------

_SWIFT = """
(class_declaration) @def.swift_type
(protocol_declaration name: (type_identifier) @name) @def.protocol
(function_declaration) @def.function
(protocol_function_declaration) @def.method
(init_declaration) @def.method
(typealias_declaration) @def.type
"""

_RUST = """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.method
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(impl_item type: (_)) @def.impl
"""

_GO = """
(function_declaration name: (identifier) @name) @def.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @recv))
  name: (field_identifier) @name) @def.go_method
(type_spec name: (type_identifier) @name type: (_) @type) @def.go_type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method
"""

SPECS: dict[str, Spec] = {
    "swift": Spec(_SWIFT, _swift, CLASS_LIKE | {"extension"}),
    "rust": Spec(_RUST, _rust),
    "go": Spec(_GO, _go),
}
