"""The extractor: parses a file within a time budget, runs its language's query, resolves each
match, recovers what surrounds a parse error, and nests the definitions found by byte range to
give each its scope."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree

from solograph.portfolio.definitions import c_family, data, jvm, scripting, systems, web
from solograph.portfolio.definitions.grammars import CHOSEN, grammar
from solograph.portfolio.definitions.languages import LANGUAGES
from solograph.portfolio.definitions.recovery import MAX_DEPTH, broken_regions, point_at
from solograph.portfolio.definitions.spec import Found, Spec

# A file's parses get this long; a file past it is counted `too_slow`.
BUDGET_S = 3.0
# Not queried: a tree deeper than this, or a run of more opening brackets in a row (which
# tree-sitter leaves unmatched side by side). Query work grows with the square of either (a
# 300 KB file of `{` took a minute), and the query cursor has no usable time limit (its
# progress callback crashes py-tree-sitter 0.26.1). Real code stays far below: the deepest
# tree of the 1,924 files of the definitions eval is 48 nodes deep. Both are only measured
# when the file's brackets could nest that deep (an upper bound: brackets in strings and
# comments count too).
MAX_NESTING = 1000
_OPENER_RUN = re.compile(rb"(?:[\[{(][ \t\r\n]*){%d}" % (MAX_NESTING + 1))
_BRACKETS = bytes(range(256)).translate(None, b"([{}])")
_DEPTH_STEP = bytes(2 if chr(b) in "([{" else 0 for b in range(256))
# Pieces of broken regions parsed again, at most, per file.
MAX_REPARSES = 2000
_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Definition:
    name: str  # the defined name as written, e.g. "AuthMiddleware"
    kind: str  # function, method, class, struct, interface, ...; sql: table, view; hcl: block type
    line: int  # 1-based line of the definition's name
    scope: str  # enclosing definitions' names joined with ".", "" at top level
    terms: str = ""  # more words it is found by, not part of its name (Swift conformances)


@dataclass(frozen=True, slots=True)
class ParseResult:
    definitions: list[Definition]
    has_error: bool  # the tree had ERROR/MISSING nodes; what parsed is still returned
    too_slow: bool = False  # the time budget ran out; definitions found before it are kept
    too_deep: bool = False  # its tree is deeper than MAX_NESTING: not queried


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
    return Query(grammar(language, source), _SPECS[language].query_for(source))


def nesting(source: bytes) -> int:
    """How deep brackets nest, counted without regard to strings and comments (an upper
    bound is all the guard needs); cheap when a file holds fewer brackets than the limit."""
    brackets = source.translate(None, _BRACKETS)
    if len(brackets) <= MAX_NESTING:
        return len(brackets)
    return max(0, *accumulate(b - 1 for b in brackets.translate(_DEPTH_STEP)))


def tree_depth(root: Node, limit: int) -> int:
    """How deep the tree is, walked without recursion; stops once past `limit`."""
    cursor = root.walk()
    depth = deepest = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1


class _Clock:
    def __init__(self, budget_s: float) -> None:
        self.deadline = time.monotonic() + budget_s
        self.out = False

    def parse_check(self, _offset: int, _has_error: bool) -> bool:
        self.out = self.out or time.monotonic() > self.deadline
        return self.out


@dataclass
class _Loaded:
    parser: Parser
    region_parser: Parser  # parses one broken region at a time (its included range)
    query: Query
    spec: Spec


class DefinitionExtractor:
    """Extracts definitions; caches one Parser and one Query per language (not thread-safe).

    `sources` picks a grammar source per language (see definitions.grammars) instead of the
    chosen one; the definitions eval uses it to compare them."""

    def __init__(self, *, budget_s: float = BUDGET_S,
                 sources: dict[str, str] | None = None) -> None:
        self.budget_s = budget_s
        self._sources = {**CHOSEN, **(sources or {})}
        self._loaded: dict[str, _Loaded] = {}

    def _load(self, language: str) -> _Loaded:
        loaded = self._loaded.get(language)
        if loaded is None:
            spec = _SPECS.get(language)
            if spec is None:
                raise ValueError(f"unsupported language: {language!r}")
            source = self._sources[language]
            lang = grammar(language, source)
            loaded = _Loaded(Parser(lang), Parser(lang), _compiled_query(language, source), spec)
            self._loaded[language] = loaded
        return loaded

    def extract(self, language: str, source: bytes) -> ParseResult:
        """Definitions in document order. Raises ValueError only for an unknown language."""
        loaded = self._load(language)
        clock = _Clock(self.budget_s)
        tree = self._parse(loaded.parser, source, clock)
        if tree is None:
            return ParseResult([], True, too_slow=True)
        root = tree.root_node
        if nesting(source) > MAX_NESTING and (_OPENER_RUN.search(source) is not None
                                              or tree_depth(root, MAX_NESTING) > MAX_NESTING):
            return ParseResult([], root.has_error, too_deep=True)
        found: list[tuple[int, int, Found]] = []
        seen: set[tuple[int, int, int, int]] = set()
        self._collect(loaded, root, source, clock, found, seen)
        if root.has_error and not clock.out:
            self._second_reading(loaded, root, source, clock, found, seen)
        return ParseResult(_nest(found, loaded.spec), root.has_error, too_slow=clock.out)

    def _second_reading(self, loaded: _Loaded, root: Node, source: bytes, clock: _Clock,
                        found: list[tuple[int, int, Found]],
                        seen: set[tuple[int, int, int, int]]) -> None:
        rewrite = loaded.spec.rewrite
        if rewrite is not None:
            rewritten = rewrite(source)
            if rewritten != source:
                tree = self._parse(loaded.parser, rewritten, clock)
                if tree is None:
                    return
                self._collect(loaded, tree.root_node, rewritten, clock, found, seen)
                if tree.root_node.has_error and not clock.out:
                    self._recover(loaded, tree.root_node, rewritten, clock, found, seen)
                return
        self._recover(loaded, root, source, clock, found, seen)

    @staticmethod
    def _parse(parser: Parser, source: bytes, clock: _Clock) -> Tree | None:
        try:
            return parser.parse(lambda at, _point: source[at:at + _CHUNK],
                                progress_callback=clock.parse_check)
        except ValueError:  # the progress callback stopped it
            return None

    def _collect(self, loaded: _Loaded, node: Node, source: bytes, clock: _Clock,
                 found: list[tuple[int, int, Found]],
                 seen: set[tuple[int, int, int, int]]) -> None:
        matches = QueryCursor(loaded.query).matches(node)
        lines = {(f.name, f.line) for _s, _e, f in found}
        for _, caps in matches:
            tag = def_node = None
            for capture, nodes in caps.items():
                if capture.startswith("def."):
                    tag, def_node = capture[4:], nodes[0]
                    break
            if def_node is None or tag is None:
                continue
            decl = caps.get("decl")  # one typedef may declare several names
            key = (def_node.start_byte, def_node.end_byte, def_node.kind_id,
                   decl[0].start_byte if decl else -1)
            if key in seen:
                continue
            try:
                item = loaded.spec.resolver(tag, def_node, caps, source)
            except Exception:  # odd trees from broken input must never abort a scan
                item = None
            if item is None or not item.name:
                continue
            seen.add(key)
            if (item.name, item.line) in lines:  # found again in a re-parsed region
                continue
            lines.add((item.name, item.line))
            start, end = item.span or (def_node.start_byte, def_node.end_byte)
            found.append((start, end, item))

    def _recover(self, loaded: _Loaded, root: Node, source: bytes, clock: _Clock,
                 found: list[tuple[int, int, Found]],
                 seen: set[tuple[int, int, int, int]]) -> None:
        """Re-parse each region an error swallowed, piece by piece, so the definitions after
        the error are found as if the broken part were not there."""
        todo = list(reversed(list(broken_regions(root, source))))
        reparses = 0
        while todo and reparses < MAX_REPARSES and not clock.out:
            start, end, depth, body_end = todo.pop()
            reparses += 1
            parser = loaded.region_parser
            parser.included_ranges = [Range(point_at(source, start), point_at(source, end),
                                            start, end)]
            tree = self._parse(parser, source, clock)
            if tree is None:
                break
            sub = tree.root_node
            before = len(found)
            self._collect(loaded, sub, source, clock, found, seen)
            if body_end is not None:
                _stretch_head(found, before, body_end, loaded.spec)
            if sub.has_error and depth < MAX_DEPTH:
                todo.extend(reversed(list(broken_regions(sub, source, depth,
                                                         within=(start, end)))))


def _stretch_head(found: list[tuple[int, int, Found]], since: int, body_end: int,
                  spec: Spec) -> None:
    """The outermost class-like definition found in the head of a broken body spans the
    whole body, as it does in the source: its members, found in other pieces, nest in it."""
    heads = [i for i in range(since, len(found))
             if found[i][2].kind in spec.class_like or not found[i][2].emit]
    if heads:
        i = min(heads, key=lambda j: found[j][0])
        start, end, item = found[i]
        found[i] = (start, max(end, body_end), item)


def _nest(found: list[tuple[int, int, Found]], spec: Spec) -> list[Definition]:
    """Outer definitions first; a definition nests in the nearest one containing it."""
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
            definitions.append(Definition(item.name, kind, item.line, scope, item.terms))
    return definitions
