"""Generated bad input for every portfolio parser: each manifest kind and the source-file
extractor of every language get garbage, truncations of real files, invalid UTF-8, huge
single lines and deep nesting. Nothing may escape, and a scan keeps indexing the good file
after a bad one while counting the bad one with its reason (real grammars, SQLite, git).

Generated inputs per run (hypothesis, bounded): 150 mangled, random or extreme texts and 60
invalid UTF-8 byte strings over 17 real manifests of the 9 package managers (package.json,
pyproject.toml, setup.cfg, requirements files, Package.swift, build.gradle(.kts), Cargo.toml,
go.mod, Gemfile, .gemspec, composer.json, pom.xml); 200 mangled or random
sources and 40 deep-nesting or long-line cases over the 16 grammars; 12 scans of a bad file
beside a good one. None escaped when these tests were written."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph.portfolio.definitions import LANGUAGES, DefinitionExtractor, ParseResult
from solograph.portfolio.manifests import Package, parse_manifest
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.portfolio import git_init, write_tree
from tests.unit.portfolio.test_manifests import GOOD_CASES

EXTRACTOR = DefinitionExtractor()
MANIFESTS = sorted({(name, text) for name, text, _ in GOOD_CASES.values()})
SOURCES = {
    "python": b"class A:\n    def f(self):\n        return [1, {2: (3,)}]\n",
    "swift": b"extension Date: P {\n    init?(x: Int) { nil }\n    func f() {}\n}\n",
    "typescript": b"export const create = ((s: S) => s) as Create\nclass A { m() {} }\n",
    "tsx": b"export function App() { return <div>{[1].map((x) => <i>{x}</i>)}</div>; }\n",
    "javascript": b"app.get = function get(p) {};\nmodule.exports = { parse() {} };\n",
    "kotlin": b"class A {\n    companion object {\n        fun make() = A()\n    }\n}\n",
    "rust": b"macro_rules! m { () => {} }\nimpl A { fn f(&self) {} }\n",
    "go": b"package a\n\ntype S struct{}\n\nfunc (s *S) M() {}\n",
    "java": b"class A { void m() { new Runnable() { public void run() {} }; } }\n",
    "ruby": b"module M\n  class A\n    def self.f; end\n  end\nend\n",
    "c": b"#if X\nint f(void)\n#else\nint g(void)\n#endif\n{ return 0; }\n",
    "cpp": b"namespace n { template <class T> struct B { void f(); }; }\nvoid n::B::f() {}\n",
    "php": b"<?php\nclass A { public function f() {} }\nfunction g() {}\n",
    "hcl": b'resource "a" "b" {\n  x = [1, {y = 2}]\n}\nlocals {\n  z = 1\n}\n',
    "bash": b'f() { echo "$(( 1 + 2 ))"; }\n@test "t" {\n  run f\n}\n',
    "sql": b"CREATE TABLE t (id INT);\nCREATE VIEW v AS SELECT 1;\n",
}
assert set(SOURCES) == set(LANGUAGES)

JUNK = st.sampled_from(list('{}[]()<>"\'`:;=#\\\n\t /*@$!?,.') + ["\x00", "\ufeff", "\udcff"])


def _mangled(text: str) -> st.SearchStrategy[str]:
    """A real file truncated, spliced with junk, or with a run of bytes deleted."""
    cut = st.integers(min_value=0, max_value=len(text))
    return st.one_of(
        cut.map(lambda i: text[:i]),
        st.tuples(cut, st.lists(JUNK, min_size=1, max_size=30)).map(
            lambda t: text[:t[0]] + "".join(t[1]) + text[t[0]:]),
        st.tuples(cut, st.integers(1, 40)).map(lambda t: text[:t[0]] + text[t[0] + t[1]:]),
    )


def _extreme(opener: str) -> st.SearchStrategy[str]:
    """Deep nesting and huge single lines."""
    return st.one_of(
        st.integers(100, 20_000).map(lambda n: opener * n),
        st.integers(50_000, 300_000).map(lambda n: "x" * n),
        st.integers(100, 5000).map(lambda n: '{"dependencies": ' + "[" * n + '"a"' + "]" * n
                                   + "}"),
    )


def _ok_manifest(packages: list[Package], error: str | None) -> None:
    assert isinstance(packages, list) and (error is None or isinstance(error, str))
    assert all(isinstance(p, Package) and p.name for p in packages)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(MANIFESTS).flatmap(
    lambda m: st.tuples(st.just(m[0]), st.one_of(_mangled(m[1]), st.text(max_size=400),
                                                 _extreme("[")))))
def test_manifests_never_raise_on_generated_text(case):
    filename, text = case
    _ok_manifest(*parse_manifest(filename, text))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MANIFESTS).map(lambda m: m[0]),
       st.binary(max_size=600).map(lambda b: b"\xff\xfe" + b + b"\xc3\x28"))
def test_manifests_never_raise_on_invalid_utf8(filename, data):
    packages, error = parse_manifest(filename, data)
    _ok_manifest(packages, error)
    assert error is not None


def _ok_parse(result: ParseResult) -> None:
    assert isinstance(result, ParseResult)
    assert all(isinstance(d.name, str) and d.name and d.line >= 1 for d in result.definitions)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(SOURCES)).flatmap(
    lambda lang: st.tuples(st.just(lang), st.one_of(
        _mangled(SOURCES[lang].decode()).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=500)))))
def test_the_extractor_never_raises_on_generated_source(case):
    language, data = case
    _ok_parse(EXTRACTOR.extract(language, data))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(SOURCES)), st.sampled_from(["{", "(", "[", "<", "\"", "/*"]),
       st.integers(2_000, 60_000))
def test_the_extractor_never_raises_on_deep_nesting_or_long_lines(language, opener, n):
    _ok_parse(EXTRACTOR.extract(language, (opener * n).encode()))
    _ok_parse(EXTRACTOR.extract(language, b"a" * (n * 5)))


BAD_FILES = st.one_of(
    st.sampled_from(sorted(SOURCES)).map(lambda lang: ("bad" + _EXT[lang], b"{" * 5000)),
    st.sampled_from(MANIFESTS).map(lambda m: (m[0], m[1][: len(m[1]) // 2].encode() + b"\xff")),
    st.binary(min_size=1, max_size=300).map(lambda b: ("bad.py", b"def x(:\n" + b)),
)
_EXT = {"python": ".py", "swift": ".swift", "typescript": ".ts", "tsx": ".tsx",
        "javascript": ".js", "kotlin": ".kt", "rust": ".rs", "go": ".go", "java": ".java",
        "ruby": ".rb", "c": ".c", "cpp": ".cpp", "php": ".php", "hcl": ".tf", "bash": ".sh",
        "sql": ".sql"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BAD_FILES)
def test_a_good_file_after_a_bad_one_is_indexed(bad):
    name, data = bad
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        config = Settings(home=base / "home", scan_paths=(base / "projects",))
        root = base / "projects" / "app"
        git_init(root)
        (root / "a").mkdir(parents=True)
        (root / "a" / name).write_bytes(data)
        write_tree(root, {"z/good.py": "def indexed_after_the_bad_one():\n    pass\n"})
        refresh_registry(config)
        report = scan_portfolio(config)
        hits = reads.symbol_search(config, "indexed_after_the_bad_one")["results"]
        assert hits and hits[0]["path"] == "z/good.py"
        stats = reads.project_info(config, "stats")
        problems = {f["path"]: f["status"] for f in stats["problems"]["files"]}
        bad_rel = f"a/{name}"
        if bad_rel in problems:  # a source file not read whole says why
            assert problems[bad_rel] in ("syntax_error", "too_deep", "too_slow", "binary")
            counted = (stats["parsed_in_part"] if problems[bad_rel] == "syntax_error"
                       else stats["skipped"][problems[bad_rel]])
            assert counted >= 1
        if report["manifest_errors"]:
            assert stats["problems"]["manifests"][0]["error"]
