"""Definitions (never calls or references) found in source files with tree-sitter.

One compiled query per language finds the definition nodes; each match names its
definition node with a ``def.<tag>`` capture and usually its name node with ``name``.
A small per-language resolver turns a match into a name, a kind and an optional scope
prefix (a Go receiver, a C++ ``Widget::`` qualifier, a SQL schema, the earlier labels of
an HCL block). Scope is then computed without walking parents: definitions are sorted
by byte range and nested with a stack, so a definition's scope is the qualified name of
the nearest definition whose range contains it, followed by its own prefix (a JavaScript
``this.x = function`` nests in the nearest enclosing class instead). Some nodes only open
a scope and are not reported themselves (a Rust ``impl``, a Swift ``extension``).

Grammars come from ``tree-sitter-language-pack`` 0.13.0, which bundles them (the 1.x
releases download grammars at run time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from tree_sitter import Node, Parser, Query, QueryCursor
from tree_sitter_language_pack import get_language, get_parser

__all__ = [
    "LANGUAGES",
    "Definition",
    "DefinitionExtractor",
    "ParseResult",
    "language_for_path",
]


@dataclass(frozen=True, slots=True)
class Definition:
    name: str  # the defined name as written, e.g. "AuthMiddleware"
    kind: str  # function, method, class, struct, interface, ...; sql: table, view; hcl: block type
    line: int  # 1-based line of the definition's name
    scope: str  # enclosing definitions' names joined with ".", "" at top level


@dataclass(frozen=True, slots=True)
class ParseResult:
    definitions: list[Definition]
    has_error: bool  # the tree had ERROR/MISSING nodes; what parsed is still returned


LANGUAGES: tuple[str, ...] = (
    "python",
    "swift",
    "typescript",
    "tsx",
    "javascript",
    "kotlin",
    "rust",
    "go",
    "java",
    "ruby",
    "c",
    "cpp",
    "php",
    "hcl",
    "bash",
    "sql",
)

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".swift": "swift",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".rb": "ruby",
    ".rake": "ruby",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".php": "php",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".tfvars": "hcl",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".sql": "sql",
}
_FILE_NAMES: dict[str, str] = {"rakefile": "ruby", "gemfile": "ruby"}


def language_for_path(path: str) -> str | None:
    """The grammar name for a file path, by extension (case-insensitive), or None."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if base in _FILE_NAMES:
        return _FILE_NAMES[base]
    dot = base.rfind(".")
    if dot <= 0:  # no extension, or a dot file such as ".bashrc"
        return None
    return _EXTENSIONS.get(base[dot:])


# --------------------------------------------------------------------------- resolvers


class _Found(NamedTuple):
    name: str
    kind: str
    line: int  # 1-based
    prefix: str = ""  # scope parts of the definition's own, joined with "."
    emit: bool = True  # False: only opens a scope (Rust impl, Swift extension)
    span: tuple[int, int] | None = None  # byte range used for nesting, if not the node's
    of_class: bool = False  # scoped by the nearest enclosing class-like (JS this.x = ...)


Captures = dict[str, list[Node]]
Resolver = Callable[[str, Node, Captures, bytes], "_Found | None"]


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _first_named(node: Node) -> Node | None:
    return node.named_children[0] if node.named_child_count else None


def _unquote(text: str) -> str:
    if len(text) >= 2 and (text[0], text[-1]) in {('"', '"'), ("'", "'"), ("`", "`"), ("[", "]")}:
        return text[1:-1]
    return text


def _name_node(node: Node, caps: Captures) -> Node | None:
    found = caps.get("name")
    return found[0] if found else node.child_by_field_name("name")


def _simple(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    name = _name_node(node, caps)
    if name is None:
        return None
    return _Found(_text(name, src), tag, _line(name))


def _split(name_node: Node, parts: list[str], kind: str) -> _Found | None:
    parts = [p for p in parts if p]
    if not parts:
        return None
    return _Found(parts[-1], kind, _line(name_node), ".".join(parts[:-1]))


# Swift ------------------------------------------------------------------------------

_SWIFT_KINDS = {"class": "class", "struct": "struct", "enum": "enum", "actor": "class"}


def _swift(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if tag != "swift_type":
        return _simple(tag, node, caps, src)
    keyword = node.child_by_field_name("declaration_kind")
    name = node.child_by_field_name("name")
    if keyword is None or name is None:
        return None
    if keyword.type == "extension":
        idents = [_text(c, src) for c in name.named_children if c.type == "type_identifier"]
        text = ".".join(idents) if idents else _text(name, src)
        return _Found(text, "class", _line(name), emit=False)
    kind = _SWIFT_KINDS.get(keyword.type)
    return _Found(_text(name, src), kind, _line(name)) if kind else None


# TypeScript / JavaScript ---------------------------------------------------------------


_JS_FUNCTIONS = frozenset({"function_expression", "generator_function", "arrow_function"})
_JS_EXPORTS = ("module.exports", "exports")


def _js_object(node: Node, src: bytes) -> str:
    """``Router.prototype`` as written, without the spaces and line breaks of a chain."""
    parts: list[str] = []
    for _ in range(32):
        prop = node.child_by_field_name("property") if node.type == "member_expression" else None
        inner = node.child_by_field_name("object") if prop is not None else None
        if prop is None or inner is None:
            break
        parts.append(_text(prop, src))
        node = inner
    parts.append(" ".join(_text(node, src).split()))
    return ".".join(parts[::-1])


def _js_assigned(node: Node, caps: Captures, src: bytes) -> _Found | None:
    """``obj.name = function () {}``: a method of obj (``Router.prototype.route`` is Router's,
    ``this.name`` the enclosing class's, else the enclosing constructor function's), or a
    function when obj is the module's exports; ``module.exports = function f() {}`` defines
    ``f``. Functions passed as arguments (callbacks) are never matched, named or not.

    In a chain (``req.get = req.header = function header() {}``) the outer names only span
    their left side, so what the function defines nests in the innermost name alone."""
    name, value = caps["name"][0], caps["value"][0]
    span = (node.start_byte, name.end_byte) if value.type == "assignment_expression" else None
    for _ in range(16):
        if value is None or value.type != "assignment_expression":
            break
        value = value.child_by_field_name("right")
    if value is None or value.type not in _JS_FUNCTIONS:
        return None
    obj = _js_object(caps["object"][0], src)
    if obj == "module" and _text(name, src) == "exports":
        own = value.child_by_field_name("name")
        return None if own is None else _Found(_text(own, src), "function", _line(own), span=span)
    kind, of_class = "method", False
    for head in (*_JS_EXPORTS, "this"):
        if obj == head or obj.startswith(head + "."):
            of_class = head == "this"
            if obj == head and not of_class:
                kind = "function"
            obj = obj[len(head) + 1 :]
            break
    prefix = obj.removesuffix(".prototype")
    return _Found(_text(name, src), kind, _line(name), prefix, span=span, of_class=of_class)


def _ts(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if tag == "assigned":
        return _js_assigned(node, caps, src)
    name = _name_node(node, caps)
    if name is None:
        return None
    if name.type == "string":  # declare module "foo"
        return _Found(_unquote(_text(name, src)), tag, _line(name))
    if name.type == "nested_identifier":  # namespace A.B
        return _split(name, _text(name, src).replace(" ", "").split("."), tag)
    return _Found(_text(name, src), tag, _line(name))


# Kotlin -------------------------------------------------------------------------------


def _kotlin(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if tag != "kotlin_class":
        return _simple(tag, node, caps, src)
    name = caps["name"][0]
    kind = "class"
    for child in node.children:
        if child.type == "interface":
            kind = "interface"
        elif child.type == "enum":
            kind = "enum"
        elif child.is_named and child.type != "modifiers":
            break
    return _Found(_text(name, src), kind, _line(name))


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


def _rust(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if tag != "impl":
        return _simple(tag, node, caps, src)
    name = _rust_type_name(node.child_by_field_name("type"), src)
    if name is None:
        return None
    return _Found(_text(name, src), "class", _line(name), emit=False)


# Go -----------------------------------------------------------------------------------

_GO_TYPE_KINDS = {"struct_type": "struct", "interface_type": "interface"}


def _go(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    name = caps["name"][0]
    if tag == "go_type":
        kind = _GO_TYPE_KINDS.get(caps["type"][0].type, "type")
        return _Found(_text(name, src), kind, _line(name))
    if tag == "go_method":
        recv = caps["recv"][0]
        for _ in range(8):
            if recv.type in ("pointer_type", "parenthesized_type"):
                inner = _first_named(recv)
            elif recv.type == "generic_type":
                inner = recv.child_by_field_name("type")
            elif recv.type == "qualified_type":
                inner = recv.child_by_field_name("name")
            else:
                break
            if inner is None:
                break
            recv = inner
        return _Found(_text(name, src), "method", _line(name), _text(recv, src))
    return _Found(_text(name, src), tag, _line(name))


# Ruby ---------------------------------------------------------------------------------


def _ruby_parts(node: Node | None, src: bytes) -> list[str]:
    parts: list[str] = []
    while node is not None and node.type == "scope_resolution":
        parts.append(_text(node.child_by_field_name("name") or node, src))
        node = node.child_by_field_name("scope")
    if node is not None:
        parts.append(_text(node, src))
    return parts[::-1]


def _ruby(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    name = caps["name"][0]
    if name.type == "scope_resolution":  # class Outer::Inner
        return _split(name, _ruby_parts(name, src), tag)
    return _Found(_text(name, src), tag, _line(name))


# C / C++ ------------------------------------------------------------------------------

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
        node = inner if inner is not None else _first_named(node)
    return None


def _c_typedef_name(decl: Node | None) -> Node | None:
    node = decl
    for _ in range(16):
        if node is None or node.type == "type_identifier":
            return node
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else _first_named(node)
    return None


def _cpp_simple(node: Node, src: bytes) -> str:
    if node.type in ("template_type", "template_function"):
        name = node.child_by_field_name("name")
        if name is not None:
            return _text(name, src)
    return _text(node, src)


def _cpp_parts(node: Node | None, src: bytes) -> list[str]:
    parts: list[str] = []
    for _ in range(32):
        if node is None or node.type not in ("qualified_identifier", "nested_namespace_specifier"):
            break
        if node.type == "nested_namespace_specifier":  # namespace a::b
            return parts + [_text(c, src) for c in node.named_children]
        scope = node.child_by_field_name("scope")
        if scope is not None:
            parts.append(_cpp_simple(scope, src))
        node = node.child_by_field_name("name")
    if node is not None:
        parts.append(_cpp_simple(node, src))
    return parts


def _c_family(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if tag in ("function", "member"):
        name = _c_function_name(caps["decl"][0])
        if name is None:
            return None
        found = _split(name, _cpp_parts(name, src), "method" if tag == "member" else "function")
        if found is not None and found.prefix:  # void Widget::draw() {}
            found = found._replace(kind="method")
        return found
    if tag == "typedef":
        name = _c_typedef_name(caps["decl"][0])
        if name is None:
            return None
        return _Found(_text(name, src), "type", _line(name), span=(name.start_byte, name.end_byte))
    name = caps["name"][0]
    return _split(name, _cpp_parts(name, src), tag)


# HCL ----------------------------------------------------------------------------------


def _hcl(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    block_type: str | None = None
    labels: list[Node] = []
    for child in node.children:
        if child.type == "identifier":
            if block_type is None:
                block_type = _text(child, src)
            else:
                labels.append(child)
        elif child.type == "string_lit":
            labels.append(child)
        elif child.type in ("block_start", "{"):
            break
    if block_type is None or not labels:
        return None
    texts = [_unquote(_text(label, src)) for label in labels]
    return _Found(texts[-1], block_type, _line(labels[-1]), ".".join(t for t in texts[:-1] if t))


# SQL ----------------------------------------------------------------------------------


def _sql(tag: str, node: Node, caps: Captures, src: bytes) -> _Found | None:
    if "ref" not in caps:
        return _Found(_unquote(_text(caps["name"][0], src)), tag, _line(caps["name"][0]))
    ref = caps["ref"][0]
    name = ref.child_by_field_name("name")
    if name is None:
        return None
    prefix = [
        _unquote(_text(part, src))
        for field in ("database", "schema")
        if (part := ref.child_by_field_name(field)) is not None
    ]
    return _Found(_unquote(_text(name, src)), tag, _line(name), ".".join(prefix))


# --------------------------------------------------------------------------- queries

_PYTHON = """
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
"""

_SWIFT = """
(class_declaration) @def.swift_type
(protocol_declaration name: (type_identifier) @name) @def.protocol
(function_declaration) @def.function
(protocol_function_declaration) @def.method
(init_declaration) @def.method
(typealias_declaration) @def.type
"""

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
"""

_JAVASCRIPT = (
    _JS_COMMON
    + """
(class_declaration name: (identifier) @name) @def.class
(class_body
  (field_definition property: (property_identifier) @name
                    value: [(arrow_function) (function_expression)]) @def.method)
"""
)

_TYPESCRIPT = (
    _JS_COMMON
    + """
(function_signature name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(class_body
  (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name)
  @def.method)
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

_KOTLIN = """
(function_declaration (simple_identifier) @name) @def.function
(class_declaration (type_identifier) @name) @def.kotlin_class
(object_declaration (type_identifier) @name) @def.class
(type_alias (type_identifier) @name) @def.type
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

_RUBY = """
(method name: (_) @name) @def.function
(singleton_method name: (_) @name) @def.method
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
"""

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

_PHP = """
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
"""

_HCL = """
(config_file (body (block) @def.block))
"""

_BASH = """
(function_definition name: (word) @name) @def.function
"""

_SQL = """
(create_table (object_reference) @ref) @def.table
(create_view (object_reference) @ref) @def.view
(create_materialized_view (object_reference) @ref) @def.view
(create_function (object_reference) @ref) @def.function
(create_type (object_reference) @ref) @def.type
(create_index column: (identifier) @name) @def.index
"""

_CLASS_LIKE = frozenset({"class", "struct", "interface", "protocol", "enum", "trait"})


@dataclass(frozen=True, slots=True)
class _Spec:
    query: str
    resolver: Resolver = _simple
    class_like: frozenset[str] = _CLASS_LIKE  # a "function" directly inside one is a method


_SPECS: dict[str, _Spec] = {
    "python": _Spec(_PYTHON),
    "swift": _Spec(_SWIFT, _swift),
    "typescript": _Spec(_TYPESCRIPT, _ts),
    "tsx": _Spec(_TYPESCRIPT, _ts),
    "javascript": _Spec(_JAVASCRIPT, _ts),
    "kotlin": _Spec(_KOTLIN, _kotlin),
    "rust": _Spec(_RUST, _rust),
    "go": _Spec(_GO, _go),
    "java": _Spec(_JAVA),
    "ruby": _Spec(_RUBY, _ruby, _CLASS_LIKE | {"module"}),
    "c": _Spec(_C, _c_family),
    "cpp": _Spec(_CPP, _c_family),
    "php": _Spec(_PHP),
    "hcl": _Spec(_HCL, _hcl),
    "bash": _Spec(_BASH),
    "sql": _Spec(_SQL, _sql),
}
assert set(_SPECS) == set(LANGUAGES)


# --------------------------------------------------------------------------- extractor


def _join(a: str, b: str) -> str:
    return f"{a}.{b}" if a and b else a or b


@cache
def _compiled_query(language: str, source: str) -> Query:
    """Queries are immutable and cost milliseconds to compile: once per process."""
    return Query(get_language(language), source)


class DefinitionExtractor:
    """Extracts definitions; caches one Parser and one Query per language (not thread-safe)."""

    def __init__(self) -> None:
        self._loaded: dict[str, tuple[Parser, Query]] = {}

    def _load(self, language: str) -> tuple[Parser, Query]:
        loaded = self._loaded.get(language)
        if loaded is None:
            spec = _SPECS.get(language)
            if spec is None:
                raise ValueError(f"unsupported language: {language!r}")
            loaded = (get_parser(language), _compiled_query(language, spec.query))
            self._loaded[language] = loaded
        return loaded

    def extract(self, language: str, source: bytes) -> ParseResult:
        """Definitions in document order. Raises ValueError only for an unknown language."""
        parser, query = self._load(language)
        spec = _SPECS[language]
        tree = parser.parse(source)
        root = tree.root_node

        found: list[tuple[int, int, _Found]] = []
        seen: set[tuple[int, int, int, int]] = set()
        for _, caps in QueryCursor(query).matches(root):
            tag = node = None
            for capture, nodes in caps.items():
                if capture.startswith("def."):
                    tag, node = capture[4:], nodes[0]
                    break
            if node is None or tag is None:
                continue
            decl = caps.get("decl")  # one typedef may declare several names
            key = (node.start_byte, node.end_byte, node.kind_id, decl[0].start_byte if decl else -1)
            if key in seen:
                continue
            try:
                item = spec.resolver(tag, node, caps, source)
            except Exception:  # odd trees from broken input must never abort a scan
                item = None
            if item is None or not item.name:
                continue
            seen.add(key)
            start, end = item.span or (node.start_byte, node.end_byte)
            found.append((start, end, item))

        # Outer definitions first; a definition nests in the nearest one containing it.
        found.sort(key=lambda f: (f[0], -f[1]))
        definitions: list[Definition] = []
        stack: list[tuple[int, str, str]] = []  # (end byte, qualified name, kind)
        for _start, end, item in found:
            while stack and stack[-1][0] < end:
                stack.pop()
            outer_name, outer_kind = (stack[-1][1], stack[-1][2]) if stack else ("", "")
            if item.of_class:  # this.x = ... in a class method belongs to the class
                outer_name, outer_kind = next(
                    ((q, k) for _e, q, k in reversed(stack) if k in spec.class_like),
                    (outer_name, outer_kind),
                )
            scope = _join(outer_name, item.prefix)
            kind = item.kind
            if kind == "function" and outer_kind in spec.class_like:
                kind = "method"
            stack.append((end, _join(scope, item.name), kind))
            if item.emit:
                definitions.append(Definition(item.name, kind, item.line, scope))
        return ParseResult(definitions, root.has_error)
