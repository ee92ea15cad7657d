"""HCL (Terraform) and SQL: queries and resolvers."""

from __future__ import annotations

from tree_sitter import Node

from solograph.portfolio.definitions.spec import Captures, Found, Spec, line_of, text_of, unquote

# HCL ----------------------------------------------------------------------------------


# How Terraform addresses what a block defines (`var.cidr`, `aws_subnet.intra`); any other
# block type, Terraform's or another tool's (Packer's `source "amazon-ebs" "x"`), is named by
# its type and labels the same way (`source.amazon-ebs.x`).
_HCL_ADDRESS = {"resource": "", "variable": "var"}


def _hcl(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag == "local":  # an attribute of a locals block: local.name
        name = caps["name"][0]
        return Found(f"local.{text_of(name, src)}", "local", line_of(name))
    block_type: str | None = None
    labels: list[Node] = []
    for child in node.children:
        if child.type == "identifier":
            if block_type is None:
                block_type = text_of(child, src)
            else:
                labels.append(child)
        elif child.type == "string_lit":
            labels.append(child)
        elif child.type in ("block_start", "{"):
            break
    if block_type is None or not labels:
        return None
    texts = [t for label in labels if (t := unquote(text_of(label, src)))]
    if not texts:
        return None
    head = _HCL_ADDRESS.get(block_type, block_type)
    address = ".".join([head, *texts] if head else texts)
    return Found(address, block_type, line_of(labels[0]))


# SQL ----------------------------------------------------------------------------------


def _sql(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if "ref" not in caps:
        return Found(unquote(text_of(caps["name"][0], src)), tag, line_of(caps["name"][0]))
    ref = caps["ref"][0]
    name = ref.child_by_field_name("name")
    if name is None:
        return None
    prefix = [
        unquote(text_of(part, src))
        for field in ("database", "schema")
        if (part := ref.child_by_field_name(field)) is not None
    ]
    return Found(unquote(text_of(name, src)), tag, line_of(name), ".".join(prefix))


# Queries ------------------------------------------------------------------------------

_HCL = """
(config_file (body (block) @def.block))
(config_file (body (block (identifier) @type (body (attribute (identifier) @name) @def.local))
 (#eq? @type "locals")))
"""

_SQL = """
(create_table (object_reference) @ref) @def.table
(create_view (object_reference) @ref) @def.view
(create_materialized_view (object_reference) @ref) @def.view
(create_function (object_reference) @ref) @def.function
(create_type (object_reference) @ref) @def.type
(create_index column: (identifier) @name) @def.index
"""

SPECS: dict[str, Spec] = {
    "hcl": Spec(_HCL, _hcl),
    "sql": Spec(_SQL, _sql),
}
