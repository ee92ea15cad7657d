"""The languages definitions are extracted from, and which one a file path is written in."""

from __future__ import annotations

import re

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
    ".bats": "bash",
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


# A `.h` holding any of these is C++: `namespace x`, `template <`, `class X {`, an access
# specifier, `using namespace`. Read as C, its classes and members would be lost.
_CPP_MARKERS = re.compile(
    rb"(?m)^[ \t]*(?:namespace[ \t]+\w|template[ \t]*<|class[ \t]+\w+[^;\n]*(?:\{|:\s*$|$)"
    rb"|(?:public|private|protected)[ \t]*:|using[ \t]+namespace[ \t])")
SNIFF_BYTES = 65536


def language_for_content(language: str, path: str, head: bytes) -> str:
    """The grammar for a file whose extension is ambiguous, from its first bytes: a C++
    header named `.h` is read as C++."""
    if language == "c" and path.lower().endswith(".h") and _CPP_MARKERS.search(
            head[:SNIFF_BYTES]):
        return "cpp"
    return language
