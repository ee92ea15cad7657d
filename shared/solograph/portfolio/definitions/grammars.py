"""Where each language's grammar comes from: the bundle of tree-sitter-language-pack 0.13.0
("pack") or the language's own PyPI wheel ("wheel"). Both ship compiled grammars, so either
works offline (every 1.x release of the pack downloads grammars at run time instead).

The choice per language is the source that reads real code best, measured by
`evals/definitions.py --grammars` on the pinned projects of every language: more of Universal
Ctags' definitions found, then more files parsed without a syntax error; where both read the
same (the same grammar release), the wheel, the one that is updated. Measured (share of files
clean, recall; pack -> wheel): swift .891/1.000 -> .931/1.000, kotlin .981/.9940 ->
1.000/.9940, bash .962/.9901 -> 1.000/1.000, cpp .913/.9836 -> .893/.9848; the other eleven
read the same. So every language loads its wheel.
"""

from __future__ import annotations

import importlib
from functools import cache

from tree_sitter import Language

# language -> (module, function) of its PyPI wheel.
WHEELS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "javascript": ("tree_sitter_javascript", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "hcl": ("tree_sitter_hcl", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "sql": ("tree_sitter_sql", "language"),
}

SOURCES = ("pack", "wheel")

# The measured best source per language (see the module docstring).
CHOSEN: dict[str, str] = {language: "wheel" for language in WHEELS}


@cache
def grammar(language: str, source: str | None = None) -> Language:
    """The compiled grammar of `language` from `source` (default: the chosen one)."""
    source = source or CHOSEN[language]
    if source == "pack":
        from tree_sitter_language_pack import get_language

        return get_language(language)  # type: ignore[arg-type]
    if source != "wheel":
        raise ValueError(f"unknown grammar source: {source!r}")
    module, function = WHEELS[language]
    return Language(getattr(importlib.import_module(module), function)())
