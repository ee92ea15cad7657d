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

Grammars come from each language's PyPI wheel, measured per language against the bundle of
``tree-sitter-language-pack`` 0.13.0 (see grammars). A file that does not parse cleanly still
yields every definition outside its broken region: such regions are parsed again alone
(recovery). Parsing has a time budget, and a file nested too deep is not queried.

Modules, one concept each: languages (which grammar reads a file), grammars (where each
grammar comes from), spec (what a language spec holds and the helpers its resolver uses),
extractor (parsing, matching and scope nesting), recovery (what to re-parse around an
error), and the queries and resolvers of each language family: scripting (Python, Ruby,
PHP, Bash), web (JavaScript, TypeScript, TSX), jvm (Java, Kotlin), systems (Go, Rust,
Swift), c_family (C, C++) and data (HCL, SQL).
"""

from __future__ import annotations

from solograph.portfolio.definitions.extractor import (
    Definition,
    DefinitionExtractor,
    ParseResult,
)
from solograph.portfolio.definitions.languages import (
    LANGUAGES,
    language_for_content,
    language_for_path,
)

__all__ = [
    "LANGUAGES",
    "Definition",
    "DefinitionExtractor",
    "ParseResult",
    "language_for_content",
    "language_for_path",
]
