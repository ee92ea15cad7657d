"""Gradle: dependency declarations in build.gradle (Groovy) and build.gradle.kts (Kotlin)."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import Package
from solograph.portfolio.manifests.scripts import MAX_CALL, STRING, paren_pairs, strip_comments

_STATEMENT_END = re.compile(r"[\n;{}]")

_GRADLE_CONFIGS = frozenset({
    "implementation", "api", "compileOnly", "compileOnlyApi", "runtimeOnly", "kapt", "ksp",
    "annotationProcessor", "compile", "runtime", "classpath", "coreLibraryDesugaring",
})
_GRADLE_CONFIG_SUFFIX = re.compile(
    r"[a-z]\w*(?:Implementation|Api|CompileOnly|RuntimeOnly|AnnotationProcessor|Compile)"
    r"|(?:kapt|ksp)[A-Z]\w*")
_GRADLE_CALL = re.compile(r"(?<![\w.$])([a-z]\w*)(?:\s*(\()|[ \t]+(?=[\"'\w]))")
_COORDINATE = re.compile(r"([^:\s@/]+):([^:\s@]+)(?::([^:\s@]*))?(?::[^:\s@]*)?(?:@\w+)?")
_GRADLE_PATTERNS = (
    # (pattern, how a match becomes (name, spec))
    (re.compile(r"\bproject\s*\(\s*(?:path\s*[:=]\s*)?[\"']([^\"']+)[\"']"),
     lambda m: (m.group(1), "project")),
    (re.compile(r"(?<![\w.])(projects(?:\.\w+)+)"), lambda m: (m.group(1), "project")),
    (re.compile(r"\bkotlin\s*\(\s*\"([^\"]+)\"(?:\s*,\s*\"([^\"]*)\")?"),
     lambda m: (f"org.jetbrains.kotlin:kotlin-{m.group(1)}", m.group(2) or "")),
    (re.compile(r"(?<![\w.])(libs(?:\.(?!versions\b|plugins\b)\w+)+?)(?:\.get\(\))?(?![\w.])"),
     lambda m: (m.group(1), "catalog")),
)


def _gradle_dev(config: str) -> bool | None:
    """None when `config` is not a dependency configuration, else whether it is dev-only."""
    if config not in _GRADLE_CONFIGS and not _GRADLE_CONFIG_SUFFIX.fullmatch(config):
        return None
    lower = config.lower()
    return "test" in lower or "debug" in lower or config == "classpath"


def parse_gradle(text: str) -> list[Package]:
    text = strip_comments(text)
    pairs = paren_pairs(text)
    out: list[Package] = []
    pos = 0
    # Each declaration is read once and the scan resumes after it, which keeps it linear.
    while m := _GRADLE_CALL.search(text, pos):
        pos = m.end()
        dev = _gradle_dev(m.group(1))
        if dev is None:
            continue
        if m.group(2):
            close = pairs.get(m.end() - 1)
            if close is None or close - m.end() > MAX_CALL:
                continue
            args, pos = text[m.end():close], close + 1
        else:  # Groovy without parentheses: up to the end of the statement or a closure
            end = _STATEMENT_END.search(text, m.end(), m.end() + MAX_CALL)
            pos = end.start() if end else min(len(text), m.end() + MAX_CALL)
            args = text[m.end():pos]
        out.extend(Package("gradle", name, spec, dev) for name, spec in _gradle_notations(args))
    return out


def _gradle_notations(args: str) -> list[tuple[str, str]]:
    def named(key: str) -> str:
        m = re.search(rf"\b{key}\s*[:=]\s*[\"']([^\"']*)[\"']", args)
        return m.group(1) if m else ""

    if named("group") and named("name"):
        return [(f"{named('group')}:{named('name')}", named("version"))]
    found: list[tuple[int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern, convert in _GRADLE_PATTERNS:
        for m in pattern.finditer(args):
            found.append((m.start(), *convert(m)))
            taken.append(m.span())
    for m in re.finditer(STRING, args):
        coordinate = _COORDINATE.fullmatch(m.group()[1:-1])
        if coordinate and not any(a <= m.start() < b for a, b in taken):
            name = f"{coordinate.group(1)}:{coordinate.group(2)}"
            found.append((m.start(), name, coordinate.group(3) or ""))
    return [(name, spec) for _, name, spec in sorted(found)]
