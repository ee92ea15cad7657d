"""JavaScript, TypeScript and TSX: queries and resolvers."""

from __future__ import annotations

from tree_sitter import Node

from solograph.portfolio.definitions.spec import (
    Captures,
    Found,
    Spec,
    from_parts,
    line_of,
    name_node,
    text_of,
    unquote,
)

_JS_FUNCTIONS = frozenset({"function_expression", "generator_function", "arrow_function",
                           "function"})
# What may wrap a function value bound to a name: `(...) as T`, `(...) satisfies T`, `(f)`.
_JS_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression",
                          "non_null_expression", "type_assertion"})
_JS_EXPORTS = ("module.exports", "exports")


def _js_object(node: Node, src: bytes) -> str:
    """``Router.prototype`` as written, without the spaces and line breaks of a chain."""
    parts: list[str] = []
    for _ in range(32):
        prop = node.child_by_field_name("property") if node.type == "member_expression" else None
        inner = node.child_by_field_name("object") if prop is not None else None
        if prop is None or inner is None:
            break
        parts.append(text_of(prop, src))
        node = inner
    parts.append(" ".join(text_of(node, src).split()))
    return ".".join(parts[::-1])


def _js_assigned(node: Node, caps: Captures, src: bytes) -> Found | None:
    """``obj.name = function () {}``: a method of obj (``Router.prototype.route`` is Router's,
    ``this.name`` the enclosing class's, else the enclosing constructor function's), or a
    function when obj is the module's exports; ``module.exports = function f() {}`` defines
    ``f``. A function passed as an argument is a definition only when it has a name of its own.

    In a chain (``req.get = req.header = function header() {}``) the outer names only span
    their left side, so what the function defines nests in the innermost name alone."""
    name, first = caps["name"][0], caps["value"][0]
    span = (node.start_byte, name.end_byte) if first.type == "assignment_expression" else None
    value: Node | None = first
    for _ in range(16):
        if value is None or value.type != "assignment_expression":
            break
        value = value.child_by_field_name("right")
    if value is None or value.type not in _JS_FUNCTIONS:
        return None
    obj = _js_object(caps["object"][0], src)
    if obj == "module" and text_of(name, src) == "exports":
        own = value.child_by_field_name("name")
        if own is None:
            return None
        return Found(text_of(own, src), "function", line_of(own), span=span)
    kind, of_class = "method", False
    for head in (*_JS_EXPORTS, "this"):
        if obj == head or obj.startswith(head + "."):
            of_class = head == "this"
            if obj == head and not of_class:
                kind = "function"
            obj = obj[len(head) + 1 :]
            break
    prefix = obj.removesuffix(".prototype")
    return Found(text_of(name, src), kind, line_of(name), prefix, span=span, of_class=of_class)


_JS_CASTS = frozenset({"as_expression", "satisfies_expression", "type_assertion"})


def _js_wrapped(node: Node, caps: Captures, src: bytes) -> Found | None:
    """``const create = ((...) => ...) as Create``: a function value under casts and
    parentheses. ``export const persist = persistImpl as unknown as Persist`` too, at the top
    of a module, when what it casts is a function of the same module: the exported name is
    the one callers use (zustand's middlewares), while ``const el = target as Element`` casts
    a value, and names nothing new."""
    value: Node | None = caps["value"][0]
    cast = False
    for _ in range(8):
        if value is None or value.type not in _JS_WRAPPERS:
            break
        cast = cast or value.type in _JS_CASTS
        inner = [c for c in value.named_children if c.type != "comment"]
        # `<T>(f)` holds its type first; `(f) as T` and `(f)!` their expression first.
        value = (inner[-1] if value.type == "type_assertion" else inner[0]) if inner else None
    name = caps["name"][0]
    if value is not None and value.type == "identifier" and cast:
        if _top_level_function(node, text_of(value, src), src):
            return Found(text_of(name, src), "function", line_of(name))
        return None
    if value is None or value.type not in _JS_FUNCTIONS:
        return None
    return Found(text_of(name, src), "function", line_of(name))


def _top_level_function(declarator: Node, wanted: str, src: bytes) -> bool:
    """Whether `declarator` sits at the top of its module, and the module defines `wanted` there
    as a function (a declaration, or a const bound to a function value)."""
    statement = declarator.parent
    program = statement.parent if statement is not None else None
    if program is not None and program.type == "export_statement":
        program = program.parent
    if program is None or program.type != "program":
        return False
    for top in program.named_children:
        if top.type == "export_statement":
            top = top.child_by_field_name("declaration") or top
        if top.type in ("function_declaration", "generator_function_declaration"):
            own = top.child_by_field_name("name")
            if own is not None and text_of(own, src) == wanted:
                return True
        elif top.type in ("lexical_declaration", "variable_declaration"):
            for d in top.named_children:
                own, bound = d.child_by_field_name("name"), d.child_by_field_name("value")
                if own is not None and bound is not None and text_of(own, src) == wanted:
                    while bound is not None and bound.type in _JS_WRAPPERS:
                        bound = bound.named_children[0] if bound.named_children else None
                    return bound is not None and bound.type in _JS_FUNCTIONS
    return False


def _js_member(node: Node, caps: Captures, src: bytes) -> Found | None:
    """A function in an object literal bound to a name: ``const api = { get() {} }`` is
    api.get, ``module.exports = { parse() {} }`` the module's parse, ``Foo.prototype = {}``
    Foo's. Objects passed as arguments (options, props) hold no definitions."""
    name = caps["name"][0]
    obj = _js_object(caps["object"][0], src)
    kind = "method"
    if obj in _JS_EXPORTS:
        obj, kind = "", "function"
    elif obj.startswith(tuple(f"{head}." for head in _JS_EXPORTS)):
        obj = obj.split(".", 1)[1] if obj.startswith("exports.") else obj.split(".", 2)[-1]
    return Found(unquote(text_of(name, src)), kind, line_of(name),
                 obj.removesuffix(".prototype"))


def _ts(tag: str, node: Node, caps: Captures, src: bytes) -> Found | None:
    if tag == "assigned":
        return _js_assigned(node, caps, src)
    if tag == "member":
        return _js_member(node, caps, src)
    if tag == "wrapped":
        return _js_wrapped(node, caps, src)
    name = name_node(node, caps)
    if name is None:
        return None
    if name.type == "string":  # declare module "foo"
        return Found(unquote(text_of(name, src)), tag, line_of(name))
    if name.type == "nested_identifier":  # namespace A.B
        return from_parts(name, text_of(name, src).replace(" ", "").split("."), tag)
    return Found(text_of(name, src), tag, line_of(name))


# Queries ------------------------------------------------------------------------------

_JS_COMMON = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_body
  (method_definition name: [(property_identifier) (private_property_identifier)] @name)
  @def.method)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @def.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(assignment_expression
  left: (member_expression object: (_) @object property: (property_identifier) @name)
  right: [(function_expression) (generator_function) (arrow_function) (assignment_expression)]
  @value) @def.assigned
(arguments (function_expression name: (identifier) @name) @def.function)
(return_statement (function_expression name: (identifier) @name) @def.function)
(pair value: (function_expression name: (identifier) @name) @def.function)
(parenthesized_expression (function_expression name: (identifier) @name) @def.function)
(variable_declarator name: (identifier) @object value: (object [
  (pair key: [(property_identifier) (string)] @name
        value: [(arrow_function) (function_expression) (generator_function)]) @def.member
  (method_definition name: [(property_identifier) (string)] @name) @def.member]))
(assignment_expression left: (_) @object right: (object [
  (pair key: [(property_identifier) (string)] @name
        value: [(arrow_function) (function_expression) (generator_function)]) @def.member
  (method_definition name: [(property_identifier) (string)] @name) @def.member]))
"""

_JAVASCRIPT = (
    _JS_COMMON
    + """
(variable_declarator name: (identifier) @name value: (parenthesized_expression) @value)
  @def.wrapped
(class_declaration name: (identifier) @name) @def.class
(class_body
  (field_definition property: (property_identifier) @name
                    value: [(arrow_function) (function_expression)]) @def.method)
"""
)

_TYPESCRIPT = (
    _JS_COMMON
    + """
(variable_declarator
  name: (identifier) @name
  value: [(parenthesized_expression) (as_expression) (satisfies_expression)
          (non_null_expression)] @value) @def.wrapped
(function_signature name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(class_body
  (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name)
  @def.method)
(ambient_declaration (class_declaration body: (class_body
  (method_signature name: [(property_identifier) (private_property_identifier)] @name)
  @def.method)))
(class_body
  (public_field_definition name: [(property_identifier) (private_property_identifier)] @name
                           value: [(arrow_function) (function_expression)]) @def.method)
(interface_body (method_signature name: (property_identifier) @name) @def.method)
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(internal_module name: (_) @name) @def.module
(module name: (_) @name) @def.module
"""
)

# `<T>f` casts exist in TypeScript only: in TSX they would be JSX. A class's method signatures
# are its methods only in a declaration (`declare class`, .d.ts): elsewhere they are the
# overloads of a method defined right below them.
_TS_ONLY = """
(variable_declarator name: (identifier) @name value: (type_assertion) @value) @def.wrapped
"""

SPECS: dict[str, Spec] = {
    "typescript": Spec(_TYPESCRIPT + _TS_ONLY, _ts),
    "tsx": Spec(_TYPESCRIPT, _ts),
    "javascript": Spec(_JAVASCRIPT, _ts),
}
