"""The definitions suite: recall of definitions per language against Universal Ctags.

Real code of every language the index reads, fetched by package name and pinned (`PINS`):
sdists from PyPI (Python, C, C++, a little Go), npm tarballs (JavaScript, TypeScript, TSX,
SQL, Bash, and in react-native packages Swift, Kotlin and Java) and Debian's source packages
(`golang-*-dev`, `librust-*-dev`, `ruby-*`, `php-*`; the Terraform files of
`golang-github-hashicorp-terraform-json-dev`). Each file the scan would read is given to the
extractor and, forced to the same language, to `ctags`; a ctags definition counts as found
when the extractor reports the same name in that file within two lines of it. Only the kinds
both index are counted (`KINDS`: never variables, fields, constants, imports, or what ctags
invents, such as anonymous functions). Ctags 5.9 has no Swift or HCL parser: for those two,
and for bats' `@test` blocks, `definitions/reference.ctags` gives it line patterns.

    python evals/definitions.py              # recall per language
    python evals/definitions.py --grammars   # the same for each grammar source, side by side
    python evals/definitions.py --misses go  # what the extractor missed, per file

`evals/run.py` runs it as the suite `definitions` and gates each language at RECALL_FLOOR and
at its baseline figure.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `evals` importable
    sys.path.insert(0, str(ROOT))

from evals.fetch import Pin, ensure_corpus  # noqa: E402
from evals.scoring import Unavailable  # noqa: E402

REFERENCE = Path(__file__).resolve().parent / "definitions" / "reference.ctags"
RECALL_FLOOR = 0.97
BASELINE_SLACK = 0.002  # the measure is deterministic: this only absorbs rounding
LINE_SLACK = 2
CTAGS_TIMEOUT_S = 300

Log = Callable[[str], None]

PINS: tuple[Pin, ...] = (
    Pin("click", "pypi", "click", "8.1.7", "click-8.1.7.tar.gz",
        "ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de", "python"),
    Pin("requests", "pypi", "requests", "2.32.3", "requests-2.32.3.tar.gz",
        "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760", "python"),
    Pin("psutil", "pypi", "psutil", "6.0.0", "psutil-6.0.0.tar.gz",
        "8faae4f310b6d969fa26ca0545338b21f73c6b15db7c4a8d934a5482faa818f2", "c"),
    Pin("greenlet", "pypi", "greenlet", "3.1.1", "greenlet-3.1.1.tar.gz",
        "4ce3ac6cdb6adf7946475d7ef31777c26d94bccc377e070a7986bd2d5c515467", "cpp"),
    Pin("starlark-go", "pypi", "starlark-go", "1.0.1", "starlark_go-1.0.1.tar.gz",
        "c46911421e395971b2bf84e49a55475aee7e25a4de4963afbf6137db91509adc", "go"),
    Pin("express", "npm", "express", "4.19.2", "express-4.19.2.tgz",
        "1b18c90e7e9fc4cb3e4dfe6b5f11c21b85509162e88ca5c6b63b9c6b5ca085bf", "javascript"),
    Pin("commander", "npm", "commander", "12.1.0", "commander-12.1.0.tgz",
        "56affc6ddafe486f94b428ae2823d059cf60d4dae2f33eaaf1b1ec4306f73173", "javascript"),
    Pin("immer", "npm", "immer", "10.1.1", "immer-10.1.1.tgz",
        "946cc79684ad1e080b09d4f2da14247b272aa667f3aaa100f35846148689f08f", "typescript"),
    Pin("query-core", "npm", "@tanstack/query-core", "5.59.0",
        "tanstack-query-core-5.59.0.tgz",
        "2586579316ffc0957be3c4c33e2f9dfa7732b55c15013b7139244d2ab60d27fc", "typescript"),
    Pin("react-query", "npm", "@tanstack/react-query", "5.59.0",
        "tanstack-react-query-5.59.0.tgz",
        "9e3b1eb9ff4ca0daba9f269d2e3e2dd7f96d505d39de14342797fe8b18012729", "tsx"),
    Pin("zustand", "npm", "zustand", "4.5.5", "zustand-4.5.5.tgz",
        "fb4b9835f91e739dd6882a3dafc3a673be9e4c4f18aa8cabe9e855b237ac5c9b", "typescript"),
    Pin("expo-modules-core", "npm", "expo-modules-core", "1.12.26",
        "expo-modules-core-1.12.26.tgz",
        "6b1a51222c4c08dfe001f8e0dcf29001342202cef3ee840a415b173030d6cf23", "swift"),
    Pin("stripe-react-native", "npm", "@stripe/stripe-react-native", "0.38.6",
        "stripe-stripe-react-native-0.38.6.tgz",
        "d5649cf37c07b6d7b6edafe466adff3251431d16d27576b786156948e3946321", "kotlin"),
    Pin("graphile-worker", "npm", "graphile-worker", "0.16.6", "graphile-worker-0.16.6.tgz",
        "d3aed232f0b0af9d6c08b0d100e93afe3526d4acc8da16c7abcc6cefe61ec34d", "sql"),
    Pin("bats", "npm", "bats", "1.13.0", "bats-1.13.0.tgz",
        "b7ae290dbc7e44709d5e3430698f3048a978bef871c6063f5fca49a20e5aaf58", "bash"),
    Pin("bats-assert", "npm", "bats-assert", "2.2.4", "bats-assert-2.2.4.tgz",
        "86560ae56aea605102e8b0a1dc13ea9c367208e44fa4f63d6d173ca0bea361ec", "bash"),
    Pin("cobra", "debian", "golang-github-spf13-cobra-dev", "1.6.1-1",
        "golang-github-spf13-cobra-dev_1.6.1-1_all.deb",
        "4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2", "go"),
    Pin("go-tfe", "debian", "golang-github-hashicorp-go-tfe-dev",
        "0.11.1+git20201207.19dc0b8-3",
        "golang-github-hashicorp-go-tfe-dev_0.11.1+git20201207.19dc0b8-3_all.deb",
        "c7ea8dab399008eb6e19603d997a017aa8ac52eb77c30f0362d7195720e74c54", "go"),
    Pin("terraform-json", "debian", "golang-github-hashicorp-terraform-json-dev", "0.5.0-3",
        "golang-github-hashicorp-terraform-json-dev_0.5.0-3_all.deb",
        "d11be9acf4dacfe1c3efd5f31f145cd93c6cb1b119f5c27b38c4977c3f764f69", "hcl"),
    Pin("anyhow", "debian", "librust-anyhow-dev", "1.0.69-1",
        "librust-anyhow-dev_1.0.69-1_amd64.deb",
        "f877f024d95d8af3c3f62e2cf74e6ba5eb976a3cf27c920bda786cd32029b79d", "rust"),
    Pin("itertools", "debian", "librust-itertools-dev", "0.10.3-1",
        "librust-itertools-dev_0.10.3-1_amd64.deb",
        "3e13fc328508275c2c84270133f41a300ffb58b9b77001b89373ba7f7ab57fde", "rust"),
    Pin("log", "debian", "librust-log-dev", "0.4.17-3", "librust-log-dev_0.4.17-3_amd64.deb",
        "bd34d9fc5aaa80121cb1446f848ec99993f97c18f743bcb3f6c4824644c1d0cd", "rust"),
    Pin("serde-json", "debian", "librust-serde-json-dev", "1.0.87-1",
        "librust-serde-json-dev_1.0.87-1_amd64.deb",
        "2d053de630af6649c40a39d9ab6268d5469385289016a1205d0dec196e7b77d2", "rust"),
    Pin("thor", "debian", "ruby-thor", "1.2.1-2", "ruby-thor_1.2.1-2_all.deb",
        "509715d16039ee7336531718e2497d0f81ae125b9ee53f321dd909c2f03fd2e1", "ruby"),
    Pin("monolog", "debian", "php-monolog", "2.9.1-1", "php-monolog_2.9.1-1_all.deb",
        "f8a26688b521e33cf6ef73b75ae5eac0cb026d986a336161456dd37dbb710681", "php"),
)

# Our language -> the ctags language its files are forced to.
CTAGS_LANGUAGE = {
    "python": "Python", "swift": "SwiftRef", "typescript": "TypeScript", "tsx": "TypeScript",
    "javascript": "JavaScript", "kotlin": "Kotlin", "rust": "Rust", "go": "Go", "java": "Java",
    "ruby": "Ruby", "c": "C", "cpp": "C++", "php": "PHP", "hcl": "HCLRef", "bash": "Sh",
    "sql": "SQL",
}
_TS_KINDS = {"class", "function", "method", "enum", "interface", "namespace", "alias",
             "generator"}
# The ctags kinds the index also holds, per language (full kind names, `--fields=+K`).
KINDS: dict[str, set[str]] = {
    "python": {"class", "function", "member"},
    "swift": {"function", "class", "struct", "enum", "actor", "protocol", "extension", "init",
              "typealias"},
    "typescript": _TS_KINDS,
    "tsx": _TS_KINDS,
    "javascript": {"class", "function", "method", "generator", "getter", "setter"},
    "kotlin": {"class", "interface", "method", "object", "typealias"},
    "rust": {"macro", "method", "function", "enum", "interface", "module", "struct",
             "typedef"},
    "go": {"func", "interface", "struct", "type", "talias", "methodSpec"},
    "java": {"class", "enum", "interface", "annotation", "method"},
    "ruby": {"class", "module", "method", "singletonMethod"},
    "c": {"function", "struct", "union", "enum", "typedef"},
    "cpp": {"class", "function", "struct", "union", "enum", "namespace", "typedef"},
    "php": {"class", "function", "interface", "trait"},
    "hcl": {"resource", "data", "module", "variable", "output", "provider"},
    "bash": {"function", "test"},
    "sql": {"table", "view", "function", "index"},
}
# Swift words the line patterns can take for a name (`class func f`, `class var x`).
_SWIFT_KEYWORDS = {"func", "var", "let", "subscript", "init", "deinit", "case", "typealias",
                   "protocol", "extension", "class", "struct", "enum", "actor", "static"}


@dataclass(frozen=True)
class SourceFile:
    project: str
    rel: str
    path: Path
    language: str


@dataclass
class LanguageScore:
    language: str
    files: int = 0
    clean: int = 0  # files the grammar parsed without an error
    too_slow: int = 0
    reference: int = 0  # ctags definitions of the counted kinds
    found: int = 0  # of those, reported by the extractor
    ours: int = 0  # every definition the extractor reported
    misses: list[tuple[str, str, int, str]] = field(default_factory=list)  # "name (kind)"

    @property
    def recall(self) -> float:
        return self.found / self.reference if self.reference else 1.0

    @property
    def clean_share(self) -> float:
        return self.clean / self.files if self.files else 1.0

    def as_dict(self) -> dict:
        return {"files": self.files, "clean_share": round(self.clean_share, 4),
                "too_slow": self.too_slow, "reference": self.reference, "found": self.found,
                "recall": round(self.recall, 4), "definitions": self.ours}


def corpus(log: Log = print) -> list[SourceFile]:
    """Every file of the pinned projects the scan would read, with its language."""
    from solograph.portfolio.definitions import language_for_content, language_for_path
    from solograph.portfolio.files import list_files

    checkouts = ensure_corpus("definitions", PINS, log=log)
    files = []
    for pin in PINS:
        root = checkouts / pin.name
        for rel in list_files(root):
            language = language_for_path(rel)
            if language is None or not (root / rel).is_file():
                continue
            if language == "c" and _objective_c(root / rel):
                continue
            language = language_for_content(language, rel, (root / rel).read_bytes())
            files.append(SourceFile(pin.name, rel, root / rel, language))
    return files


def _objective_c(path: Path) -> bool:
    """A `.h` of an iOS package is Objective-C, which neither side reads as C."""
    head = path.read_bytes()[:65536]
    return any(marker in head for marker in (b"@interface", b"@protocol", b"#import", b"@end"))


def ctags_definitions(files: Iterable[SourceFile]) -> dict[Path, list[tuple[str, int, str]]]:
    """(name, line, kind) of each counted ctags definition, per file."""
    ctags = shutil.which("ctags")
    if ctags is None:
        raise Unavailable("Universal Ctags is not installed (apt-get install universal-ctags)")
    by_language: dict[str, list[SourceFile]] = defaultdict(list)
    for f in files:
        by_language[f.language].append(f)
    found: dict[Path, list[tuple[str, int, str]]] = defaultdict(list)
    for language, group in by_language.items():
        kinds = KINDS[language]
        cmd = [ctags, "--options=NONE", f"--options={REFERENCE}", "--output-format=json",
               "--fields=+nKs", "--extras=-F", f"--language-force={CTAGS_LANGUAGE[language]}",
               "-f", "-", "-L", "-"]
        listing = "\n".join(str(f.path) for f in group) + "\n"
        proc = subprocess.run(cmd, input=listing, capture_output=True, text=True,
                              timeout=CTAGS_TIMEOUT_S, check=False, errors="replace")
        for line in proc.stdout.splitlines():
            try:
                tag = json.loads(line)
            except ValueError:
                continue
            name, kind = tag.get("name", ""), tag.get("kind", "")
            if (tag.get("_type") != "tag" or kind not in kinds
                    or _invented(language, kind, name, tag.get("scope", ""))
                    or _object_literal(language, kind, tag.get("pattern", ""))):
                continue
            line_no = int(tag.get("line", 0))
            seen = found[Path(tag["path"])]
            # ctags may tag one definition twice (`app.x = function x()`: a class and a
            # function); the index holds it once.
            if not any(n == name and ln == line_no for n, ln, _k in seen):
                seen.append((name, line_no, kind))
    return found


def _object_literal(language: str, kind: str, pattern: str) -> bool:
    """ctags' JavaScript parser calls an object literal holding functions a class
    (`var app = exports = module.exports = {}`); it is a variable, which no index holds."""
    return language == "javascript" and kind == "class" and re.search(
        r"\bclass\s", pattern) is None


def _invented(language: str, kind: str, name: str, scope: str) -> bool:
    """What ctags reports that is no definition: anonymous functions, lambda parameters
    (Kotlin's `p0`, `_`), assignments its shell parser takes for functions (`x=`)."""
    if name.startswith(("Anonymous", "__anon", "anonymous")) or "__anon" in scope:
        return True
    if scope.endswith("<lambda>"):  # Kotlin: the parameters of a lambda
        return True
    if language == "swift" and name in _SWIFT_KEYWORDS and kind != "init":
        return True
    if kind == "test" or language == "hcl":
        return False
    plain = name.replace("$", "_").replace("::", "_").replace(".", "_")
    if language == "bash":
        plain = plain.replace("-", "_").replace(":", "_")
    return not plain.isidentifier()


def score(files: list[SourceFile], reference: dict[Path, list[tuple[str, int, str]]],
          sources: dict[str, str] | None = None) -> dict[str, LanguageScore]:
    from solograph.portfolio.definitions import DefinitionExtractor

    extractor = DefinitionExtractor(sources=sources)
    scores: dict[str, LanguageScore] = {}
    for f in files:
        s = scores.setdefault(f.language, LanguageScore(f.language))
        result = extractor.extract(f.language, f.path.read_bytes())
        s.files += 1
        s.clean += not result.has_error
        s.too_slow += result.too_slow or result.too_deep
        s.ours += len(result.definitions)
        ours: dict[str, list[int]] = defaultdict(list)
        for d in result.definitions:
            for name in _spellings(d.name, d.scope):
                ours[name].append(d.line)
        for name, line, kind in reference.get(f.path, []):
            s.reference += 1
            lines = ours.get(name, [])
            near = next((x for x in lines if abs(x - line) <= LINE_SLACK), None)
            if near is None:
                s.misses.append((f.project, f.rel, line, f"{name} ({kind})"))
            else:
                s.found += 1
                lines.remove(near)
    return dict(sorted(scores.items()))


def _spellings(name: str, scope: str) -> tuple[str, ...]:
    """The names a reference may give one definition: as the index holds it, and qualified
    by its scope (ctags names `Foo::bar` out-of-line C++ members by their qualified name)."""
    if not scope:
        return (name,)
    return (name, f"{scope}.{name}", f"{scope.replace('.', '::')}::{name}")


def measure(log: Log = print, sources: dict[str, str] | None = None
            ) -> dict[str, LanguageScore]:
    started = time.perf_counter()
    files = corpus(log)
    reference = ctags_definitions(files)
    scores = score(files, reference, sources)
    log(f"definitions: {len(files)} files of {len(PINS)} projects scored in "
        f"{time.perf_counter() - started:.1f}s")
    return scores


def check_figures(figures: dict[str, dict], baseline: dict[str, dict]) -> list[str]:
    """Each language's recall at or above RECALL_FLOOR and at or above its baseline figure
    (less BASELINE_SLACK); a language the baseline holds must still be measured."""
    failures = []
    for language, figure in figures.items():
        floor = RECALL_FLOOR
        recorded = baseline.get(language, {}).get("recall")
        if recorded is not None:
            floor = max(floor, recorded - BASELINE_SLACK)
        if figure["recall"] + 1e-9 < floor:
            failures.append(f"definitions: {language} recall {figure['recall']:.4f} is below "
                            f"{floor:.4f}")
    failures += [f"definitions: {language} is no longer measured"
                 for language in sorted(set(baseline) - set(figures))]
    return failures


def render_figures(figures: dict[str, dict]) -> str:
    lines = [f"{'definitions':<12}{'files':>7}{'clean':>8}{'ctags':>8}{'found':>8}"
             f"{'recall':>8}{'ours':>8}"]
    for language, f in figures.items():
        lines.append(f"{language:<12}{f['files']:>7}{f['clean_share']:>8.3f}{f['reference']:>8}"
                     f"{f['found']:>8}{f['recall']:>8.3f}{f['definitions']:>8}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grammars", action="store_true",
                        help="score every grammar source side by side")
    parser.add_argument("--misses", metavar="LANGUAGE", help="list what was missed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if args.grammars:
        from solograph.portfolio.definitions.grammars import SOURCES, WHEELS

        files = corpus(log)
        reference = ctags_definitions(files)
        table = {src: score(files, reference, dict.fromkeys(WHEELS, src)) for src in SOURCES}
        print(f"{'language':<12}" + "".join(f"{src + ' clean':>12}{src + ' recall':>13}"
                                            f"{src + ' defs':>11}" for src in SOURCES))
        for language in table[SOURCES[0]]:
            row = f"{language:<12}"
            for src in SOURCES:
                s = table[src][language]
                row += f"{s.clean_share:>12.3f}{s.recall:>13.4f}{s.ours:>11}"
            print(row)
        return 0
    scores = measure(log)
    if args.json:
        print(json.dumps({k: v.as_dict() for k, v in scores.items()}, indent=2))
    else:
        print(render_figures({k: v.as_dict() for k, v in scores.items()}))
    if args.misses:
        for project, rel, line, name in scores[args.misses].misses:
            print(f"{project}/{rel}:{line}: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
