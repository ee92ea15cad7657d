"""The definitions people search for beyond functions and classes, what is kept around a
parse error, and the limits a file cannot pass (real grammars, no mocks)."""

from __future__ import annotations

import pytest

from solograph.portfolio.definitions import (
    DefinitionExtractor,
    ParseResult,
    language_for_content,
    language_for_path,
)
from solograph.portfolio.definitions.c_family import first_branches
from solograph.portfolio.definitions.extractor import MAX_NESTING, nesting


@pytest.fixture(scope="module")
def extractor() -> DefinitionExtractor:
    return DefinitionExtractor()


def _tuples(result: ParseResult) -> set[tuple[str, str, int, str]]:
    return {(d.name, d.kind, d.line, d.scope) for d in result.definitions}


# --------------------------------------------------------------------------- kinds


def test_swift_extension_is_named_after_the_extended_type(extractor):
    source = b"""\
import ArgumentParser

extension Date: ExpressibleByArgument, @unchecked Sendable {
    public init?(argument: String) {
        return nil
    }
    func iso() -> String { "" }
}

extension Parser.Options where Value: Codable {
    convenience init(name: String) { self.init() }
}
"""
    result = extractor.extract("swift", source)
    assert _tuples(result) == {
        ("Date", "extension", 3, ""),
        ("init", "method", 4, "Date"),
        ("iso", "method", 7, "Date"),
        ("Options", "extension", 10, "Parser"),
        ("init", "method", 11, "Parser.Options"),
    }
    date = next(d for d in result.definitions if d.name == "Date")
    assert "ExpressibleByArgument" in date.terms and "Sendable" in date.terms


def test_swift_typed_throws_and_if_inside_a_type_still_yield_members(extractor):
    source = b"""\
struct Parser {
    func parse(_ text: String) throws(ParserError) -> Int { 0 }
#if os(macOS)
    func mac() {}
#endif
    func after() {}
}
"""
    names = {d.name for d in extractor.extract("swift", source).definitions}
    assert {"Parser", "parse", "mac", "after"} <= names


def test_rust_macro_rules(extractor):
    source = b"""\
#[macro_export]
macro_rules! bail {
    ($msg:literal) => { return Err(anyhow!($msg)) };
}

mod inner {
    macro_rules! local_helper { () => {} }
}
"""
    assert _tuples(extractor.extract("rust", source)) == {
        ("bail", "macro", 2, ""),
        ("inner", "module", 6, ""),
        ("local_helper", "macro", 7, "inner"),
    }


def test_typescript_function_values_bound_to_a_name(extractor):
    source = b"""\
export const create = (<T,>(createState: StateCreator<T>) =>
  createState ? createImpl(createState) : createImpl) as Create

const persist = ((config, baseOptions) => (set, get, api) => {}) as Persist
export const devtools = devtoolsImpl as unknown as Devtools
const shallow = function shallow(a, b) { return a === b }
const checked = ((x: number) => x) satisfies Check
const cast = <Handler>((e) => e)
const api = {
  getState() { return state },
  setState: (partial) => {},
}
const immerImpl: ImmerImpl = (initializer) => (set, get, store) => initializer(set, get, store)
export const immer = immerImpl as unknown as Immer
function reduxImpl(reducer, initial) { return reducer }
export const redux = reduxImpl satisfies Redux
const el = document.body as HTMLElement
const settings = defaults as Settings
function handler() { const local = immerImpl as unknown as Immer; return local }
"""
    # A const casting a function of the module (zustand's `persist = persistImpl as unknown
    # as Persist`) defines the name callers use; casting a value, or one the module does not
    # define (`devtoolsImpl` above), or inside a function, does not.
    assert _tuples(extractor.extract("typescript", source)) == {
        ("create", "function", 1, ""),
        ("persist", "function", 4, ""),
        ("shallow", "function", 6, ""),
        ("checked", "function", 7, ""),
        ("cast", "function", 8, ""),
        ("getState", "method", 10, "api"),
        ("setState", "method", 11, "api"),
        ("immerImpl", "function", 13, ""),
        ("immer", "function", 14, ""),
        ("reduxImpl", "function", 15, ""),
        ("redux", "function", 16, ""),
        ("handler", "function", 19, ""),
    }


def test_typescript_declared_class_methods_but_not_overloads(extractor):
    source = b"""\
export declare class EventEmitter {
  constructor();
  release(): void;
}
class Impl {
  emit(name: string): void;
  emit(name: unknown) {}
}
"""
    assert _tuples(extractor.extract("typescript", source)) == {
        ("EventEmitter", "class", 1, ""),
        ("constructor", "method", 2, "EventEmitter"),
        ("release", "method", 3, "EventEmitter"),
        ("Impl", "class", 5, ""),
        ("emit", "method", 7, "Impl"),
    }


def test_javascript_named_functions_passed_and_returned(extractor):
    source = b"""\
defineGetter(req, 'protocol', function protocol() {
  return 'http';
});

var canAdd = function () {
  return function canAddCardToWallet(params) {};
}();

module.exports = {
  parse: function parse(str) {},
  stringify(obj) {},
};
"""
    assert _tuples(extractor.extract("javascript", source)) == {
        ("protocol", "function", 1, ""),
        ("canAddCardToWallet", "function", 6, ""),  # canAdd holds a call's result
        ("parse", "function", 10, ""),
        ("stringify", "function", 11, ""),
    }


def test_bats_files_and_their_tests(extractor):
    assert language_for_path("test/cli.bats") == "bash"
    source = b"""\
#!/usr/bin/env bats
load test_helper

setup() {
  export PATH="$BATS_TEST_DIRNAME/../bin:$PATH"
}

@test "prints the version" {
  run mytool --version
  [ "$status" -eq 0 ]
}

@test 'fails on a missing file' {
  run mytool nope
}

teardown() { rm -rf "$TMP"; }
"""
    assert _tuples(extractor.extract("bash", source)) == {
        ("setup", "function", 4, ""),
        ("prints the version", "test", 8, ""),
        ("fails on a missing file", "test", 13, ""),
        ("teardown", "function", 17, ""),
    }


def test_terraform_definitions_are_named_by_address(extractor):
    source = b"""\
resource "aws_subnet" "intra" {
  count = 3
  dynamic "tag" {
    for_each = var.tags
  }
}

data "aws_iam_policy_document" "this" {}
module "vpc" { source = "terraform-aws-modules/vpc/aws" }
variable "cidr" { type = string }
output "vpc_id" { value = module.vpc.vpc_id }
locals {
  azs = ["a", "b"]
}
source "amazon-ebs" "ubuntu" {}
"""
    assert _tuples(extractor.extract("hcl", source)) == {
        ("aws_subnet.intra", "resource", 1, ""),
        ("data.aws_iam_policy_document.this", "data", 8, ""),
        ("module.vpc", "module", 9, ""),
        ("var.cidr", "variable", 10, ""),
        ("output.vpc_id", "output", 11, ""),
        ("local.azs", "local", 13, ""),
        ("source.amazon-ebs.ubuntu", "source", 15, ""),
    }


def test_kotlin_companion_objects(extractor):
    source = b"""\
class Registry {
    companion object {
        fun create(): Registry = Registry()
    }
}

class Named {
    companion object Factory {
        fun make() = Named()
    }
}
"""
    assert _tuples(extractor.extract("kotlin", source)) == {
        ("Registry", "class", 1, ""),
        ("Companion", "class", 2, "Registry"),
        ("create", "method", 3, "Registry.Companion"),
        ("Named", "class", 7, ""),
        ("Factory", "class", 8, "Named"),
        ("make", "method", 9, "Named.Factory"),
    }


def test_kotlin_annotation_class_without_a_body(extractor):
    source = b"@Target(AnnotationTarget.PROPERTY)\nannotation class Required\nval x = a infix b\n"
    assert _tuples(extractor.extract("kotlin", source)) == {("Required", "class", 2, "")}


@pytest.mark.parametrize(("head", "language"), [
    (b"namespace expo {\nclass JSIContext;\n}\n", "cpp"),
    (b"template <typename T>\nstruct Box { T v; };\n", "cpp"),
    (b"class Widget {\npublic:\n  void draw();\n};\n", "cpp"),
    (b"#include <stdio.h>\nstruct ring { int head; };\nint ring_push(struct ring *r);\n", "c"),
    (b"/* the class of a node */\ntypedef struct node node;\n", "c"),
])
def test_a_cpp_header_named_h_is_read_as_cpp(head, language):
    assert language_for_content("c", "include/x.h", head) == language
    assert language_for_content("c", "src/x.c", head) == "c"


# --------------------------------------------------------------------------- around errors


def test_bash_keeps_every_function_after_a_construct_it_cannot_parse(extractor):
    functions = "\n".join(f"helper_{i}() {{\n  echo {i}\n}}\n" for i in range(20))
    source = (b"first() { :; }\n\n"
              b"broken() {\n  case $x in\n    a) echo ;;\n  esac <<< (( \n}\n\n"
              + functions.encode())
    result = extractor.extract("bash", source)
    names = {d.name for d in result.definitions}
    assert result.has_error
    assert {"first", *(f"helper_{i}" for i in range(20))} <= names


def test_python_definitions_after_a_broken_statement_are_kept(extractor):
    source = b"""\
def before():
    pass


def broken(:
    return 1


class After:
    def method(self):
        pass


def last():
    pass
"""
    result = extractor.extract("python", source)
    assert result.has_error
    assert {("before", "function", 1, ""), ("After", "class", 9, ""),
            ("method", "method", 10, "After"), ("last", "function", 14, "")} <= _tuples(result)


def test_members_after_a_broken_one_keep_their_class(extractor):
    source = b"""\
@objc(EXAppContext)
public final class AppContext: NSObject {
  internal static func create() -> AppContext {
    return AppContext()
  }

  func broken(_ x: Int { let = }

  public init(config: Int) {
    super.init()
  }

  func after() {}
}
"""
    result = extractor.extract("swift", source)
    assert result.has_error
    assert {("AppContext", "class", 2, ""), ("create", "method", 3, "AppContext"),
            ("init", "method", 9, "AppContext"),
            ("after", "method", 13, "AppContext")} <= _tuples(result)


def test_c_function_header_split_by_the_preprocessor(extractor):
    source = b"""\
static PyMethodDef methods[] = {
#ifdef HAVE_IOPRIO
    {"ioprio_get", ioprio_get, METH_VARARGS},
#endif
    {NULL, NULL, 0, NULL}
};

#if PY_MAJOR_VERSION >= 3
    PyObject *PyInit__psutil_linux(void)
#else
    void init_psutil_linux(void)
#endif
{
    return NULL;
}

int after(void) { return 0; }
"""
    names = {d.name for d in extractor.extract("c", source).definitions}
    assert {"PyInit__psutil_linux", "after"} <= names


def test_cpp_class_with_an_export_macro(extractor):
    source = (b"namespace expo {\nclass JSI_EXPORT NativeState : public jsi::NativeState {\n"
              b"public:\n  using Shared = std::shared_ptr<NativeState>;\n  void emit();\n};\n}\n")
    assert {("NativeState", "class", 2, "expo"), ("Shared", "type", 4, "expo.NativeState"),
            ("emit", "method", 5, "expo.NativeState")} <= _tuples(extractor.extract("cpp", source))


def test_first_branches_keeps_offsets_and_lines():
    source = b"a;\n#if X\nb;\n#elif Y\nc;\n#else \\\n  Z\nd;\n#endif\ne;\n"
    out = first_branches(source)
    assert len(out) == len(source) and out.count(b"\n") == source.count(b"\n")
    assert out.split(b"\n")[2] == b"b;" and b"c;" not in out and b"d;" not in out
    assert out.rstrip().endswith(b"e;")


# --------------------------------------------------------------------------- limits


def test_a_file_of_braces_is_too_deep_and_costs_nothing(extractor):
    """Regression: 300 KB of `{` (under the 1 MB limit) held one scan for 74 s."""
    source = b"{" * 300_000
    assert nesting(source) > MAX_NESTING
    for language in ("javascript", "c", "python", "rust", "bash"):
        result = extractor.extract(language, source)
        assert result.too_deep and result.definitions == []


def test_unbalanced_brackets_in_a_shallow_tree_are_still_read(extractor):
    source = b"".join(b'def f%d():\n    return "(("\n\n' % i for i in range(800))
    assert nesting(source) > MAX_NESTING
    result = extractor.extract("python", source)
    assert not result.too_deep and len(result.definitions) == 800


def test_nesting_counts_brackets():
    assert nesting(b"f(a[1], {b: (2)})") <= MAX_NESTING
    deep = b"(" * (MAX_NESTING + 5) + b")" * (MAX_NESTING + 5)
    assert nesting(deep) == MAX_NESTING + 5
    assert nesting(b"()" * (MAX_NESTING * 2)) == 1


def test_a_parse_past_its_budget_is_too_slow():
    source = b"def f():\n    pass\n" * 20_000
    result = DefinitionExtractor(budget_s=0.0).extract("python", source)
    assert result.too_slow and result.definitions == []


@pytest.mark.parametrize("source", ["pack", "wheel"])
def test_both_grammar_sources_extract(source):
    if source == "pack":
        pytest.importorskip("tree_sitter_language_pack")  # a dev dependency only
    extractor = DefinitionExtractor(sources={"kotlin": source, "swift": source})
    kotlin = extractor.extract("kotlin", b"class A {\n    fun b() {}\n}\n")
    assert _tuples(kotlin) == {("A", "class", 1, ""), ("b", "method", 2, "A")}
    swift = extractor.extract("swift", b"struct P {\n    func q() {}\n}\n")
    assert _tuples(swift) == {("P", "struct", 1, ""), ("q", "method", 2, "P")}
