"""The definitions measure: its pins, its gate, and its ctags reference on files written here
(the reference tests need Universal Ctags and skip cleanly without it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from evals import definitions, run
from evals.fetch import REGISTRIES, fetch_command


def test_pins_name_every_language_and_are_exact():
    from solograph.portfolio.definitions import LANGUAGES

    assert {p.language for p in definitions.PINS} <= set(LANGUAGES)
    assert set(definitions.KINDS) == set(LANGUAGES) == set(definitions.CTAGS_LANGUAGE)
    names = [p.name for p in definitions.PINS]
    assert len(names) == len(set(names))
    for pin in definitions.PINS:
        assert pin.registry in REGISTRIES and len(pin.sha256) == 64, pin
        assert pin.version in pin.archive.replace("%3a", ":"), pin
        assert fetch_command(pin, "/tmp")[-1].endswith(pin.version)


def _figures(**recalls: float) -> dict[str, dict]:
    return {lang: {"files": 1, "clean_share": 1.0, "too_slow": 0, "reference": 100,
                   "found": round(r * 100), "recall": r, "definitions": 100}
            for lang, r in recalls.items()}


def test_the_gate_holds_every_language_at_the_floor_and_its_baseline():
    baseline = _figures(go=1.0, swift=0.99, sql=0.98)
    assert definitions.check_figures(_figures(go=1.0, swift=0.989, sql=0.99), baseline) == []
    failures = definitions.check_figures(_figures(go=0.99, swift=0.96, sql=0.979), baseline)
    assert [f.split()[1] for f in failures] == ["go", "swift"]
    assert definitions.check_figures(_figures(go=1.0), baseline) == [
        "definitions: sql is no longer measured", "definitions: swift is no longer measured"]
    assert definitions.check_figures(_figures(rust=0.969), {}) != []


def test_run_check_reads_the_measure_from_the_baseline(tmp_path: Path, monkeypatch,
                                                      capsys: pytest.CaptureFixture):
    monkeypatch.setattr(run, "SUITES", {})
    monkeypatch.setattr(run, "run_definitions", lambda log=None: _figures(go=0.95))
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"suites": {}, "measures": {
        "definitions": _figures(go=1.0)}}))
    assert run.main(["--suite", "definitions", "--check", "--baseline", str(baseline)]) == 1
    assert "REGRESSION definitions: go recall 0.9500 is below 0.9980" in capsys.readouterr().out
    assert run.main(["--suite", "definitions", "--write-baseline", "--baseline",
                     str(baseline)]) == 0
    assert json.loads(baseline.read_text())["measures"]["definitions"]["go"]["recall"] == 0.95


needs_ctags = pytest.mark.skipif(shutil.which("ctags") is None,
                                 reason="Universal Ctags is not installed")


@needs_ctags
def test_the_reference_covers_swift_terraform_and_bats(tmp_path: Path):
    files = {
        "a.swift": ("/* the class for x */\npublic extension Date: ExpressibleByArgument {\n"
                    "  @objc(f:) public static func make() -> Int { 1 }\n"
                    "  class func foo() {}\n  init?(argument: String) { nil }\n}\n", "swift"),
        "main.tf": ('resource "aws_subnet" "intra" {}\ndata "aws_iam_policy_document" "this" {}\n'
                    'module "vpc" {}\nvariable "cidr" {}\noutput "vpc_id" {}\n', "hcl"),
        "cli.bats": ('setup() { :; }\n@test "prints the version" {\n  run x\n}\n', "bash"),
    }
    sources = []
    for name, (text, language) in files.items():
        (tmp_path / name).write_text(text)
        sources.append(definitions.SourceFile("p", name, tmp_path / name, language))
    found = definitions.ctags_definitions(sources)
    names = {path.name: sorted(n for n, _line, _kind in tags) for path, tags in found.items()}
    assert names == {
        "a.swift": ["Date", "foo", "init", "make"],
        "main.tf": ["aws_subnet.intra", "data.aws_iam_policy_document.this", "module.vpc",
                    "output.vpc_id", "var.cidr"],
        "cli.bats": ["prints the version", "setup"],
    }
    scores = definitions.score(sources, found)
    assert {lang: s.recall for lang, s in scores.items()} == {"bash": 1.0, "hcl": 1.0,
                                                              "swift": 1.0}


@needs_ctags
def test_what_ctags_invents_is_left_out(tmp_path: Path):
    (tmp_path / "a.js").write_text("var app = exports = module.exports = {};\n"
                                   "app.init = function init() {};\n"
                                   "[1].map(function () {});\n")
    (tmp_path / "b.kt").write_text("fun f() {\n  listOf(1).map { x -> x }\n}\n")
    sources = [definitions.SourceFile("p", "a.js", tmp_path / "a.js", "javascript"),
               definitions.SourceFile("p", "b.kt", tmp_path / "b.kt", "kotlin")]
    found = definitions.ctags_definitions(sources)
    names = {path.name: sorted(n for n, _line, _kind in tags) for path, tags in found.items()}
    assert names == {"a.js": ["init"], "b.kt": ["f"]}
