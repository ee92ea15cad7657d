"""The extractor: runs a language's query, resolves each match, and nests the definitions
found by byte range to give each its scope."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tree_sitter import Parser, Query, QueryCursor
from tree_sitter_language_pack import get_language, get_parser

from solograph.portfolio.definitions import c_family, data, jvm, scripting, systems, web
from solograph.portfolio.definitions.languages import LANGUAGES
from solograph.portfolio.definitions.spec import Found, Spec


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


# Each language family's module contributes the specs of its languages.
_FAMILIES = (scripting, web, jvm, systems, c_family, data)
_SPECS: dict[str, Spec] = {
    language: spec for family in _FAMILIES for language, spec in family.SPECS.items()
}
assert set(_SPECS) == set(LANGUAGES)
assert sum(len(family.SPECS) for family in _FAMILIES) == len(_SPECS)  # none claimed twice


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

        found: list[tuple[int, int, Found]] = []
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
