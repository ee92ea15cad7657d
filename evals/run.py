"""Run the search-quality suites and compare them with the committed baseline.

    python evals/run.py                      # every suite, metrics overall and per tag
    python evals/run.py --suite portfolio -v # one suite, with each miss and what ranked instead
    python evals/run.py --check              # exit 1 when a metric fell > 0.03 below baseline
    python evals/run.py --write-baseline     # record this run in evals/baseline.json
    python evals/run.py --suite portfolio --cases exported.jsonl   # score other cases
    python evals/run.py --suite definitions  # definition recall per language against ctags

A suite whose data is not here is skipped with a message and does not fail the run.
Exit codes: 0 fine, 1 a metric dropped (with --check), 2 bad usage, bad cases or a suite error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `evals` importable
    sys.path.insert(0, str(ROOT))

from evals import agents, definitions, kb, portfolio, semantic, sessions  # noqa: E402
from evals.scoring import (  # noqa: E402
    METRICS,
    TOLERANCE,
    Case,
    CaseError,
    CaseResult,
    QueryRefused,
    Unavailable,
    baseline_metrics,
    compare,
    load_baseline,
    load_cases,
    score_case,
    summarize,
    summarize_by_tag,
    write_baseline,
)

BASELINE = ROOT / "evals" / "baseline.json"
SHOW_INSTEAD = 5

Log = Callable[[str], None]


class Runner(Protocol):
    def search(self, case: Case) -> list[str]: ...


@dataclass(frozen=True)
class Suite:
    name: str
    cases: Path
    open: Callable[[Log], AbstractContextManager[Runner]]  # raises Unavailable to skip
    about: str


# Add a suite here: its cases file and a context manager that yields its runner.
SUITES: dict[str, Suite] = {
    s.name: s for s in (
        Suite("portfolio", portfolio.CASES, portfolio.open_runner,
              "symbol search over pinned open-source projects (PyPI and npm)"),
        Suite("sessions", sessions.CASES, sessions.open_runner,
              "session search over real Claude Code transcripts (SOLOGRAPH_CORPORA)"),
        Suite("agents", agents.CASES, agents.open_runner,
              "session search over the other agents' sessions (SOLOGRAPH_CORPORA/agents)"),
        Suite("kb", kb.CASES, kb.open_runner,
              "KB search over the two real wikis, with hand-kept alias tables "
              "(SOLOGRAPH_CORPORA)"),
        Suite("kb-noalias", kb.CASES, kb.open_runner_noalias,
              "the same KB cases without any alias table"),
        Suite("kb-suggested", kb.CASES, kb.open_runner_suggested,
              "the same KB cases with the groups `kb-aliases --suggest` proposes"),
        Suite("sessions-questions", sessions.QUESTIONS, sessions.open_runner,
              "questions about the real sessions as people ask them: other words, Russian"),
        Suite("kb-questions", kb.QUESTIONS, kb.open_runner_suggested,
              "paraphrased and Russian questions over the wikis (suggested aliases)"),
        Suite("kb-bilingual", kb.BILINGUAL, kb.open_runner_bilingual,
              "Russian titles find their English twin, `pages: wiki-en/` with wiki-ru/ "
              "beside it, with the groups `kb-aliases --suggest` proposes"),
        Suite("kb-aliasnames", kb.BILINGUAL, kb.open_runner_aliasnames,
              "the same, no table: each English page lists its twin's Russian title in "
              "its frontmatter aliases"),
    )
}

# The meaning lane (the `semantic` extra): each suite's cases read with BM25 and the lane
# fused, at each share of the store embedded (`name@share`; `name` alone is all of it), and the
# lexical suite each is held to (GATE: fused at any share >= lexical - FUSED_SLACK recall@1).
FUSED = (
    ("sessions-fused", "sessions", sessions.CASES, sessions.open_runner_fused, (),
     "the sessions cases, BM25 and the meaning lane fused"),
    ("sessions-questions-fused", "sessions-questions", sessions.QUESTIONS,
     sessions.open_runner_fused, (), "the session questions, BM25 and the meaning lane fused"),
    ("kb-fused", "kb", kb.CASES, kb.open_runner_fused, ("hand",),
     "the KB cases (hand-kept aliases), BM25 and the meaning lane fused"),
    ("kb-noalias-fused", "kb-noalias", kb.CASES, kb.open_runner_fused, ("none",),
     "the KB cases without an alias table, BM25 and the meaning lane fused"),
    ("kb-suggested-fused", "kb-suggested", kb.CASES, kb.open_runner_fused, ("suggested",),
     "the KB cases with suggested aliases, BM25 and the meaning lane fused"),
    ("kb-questions-fused", "kb-questions", kb.QUESTIONS, kb.open_runner_fused, ("suggested",),
     "the KB questions, BM25 and the meaning lane fused"),
)
FUSED_SLACK = 0.02
LEXICAL_OF: dict[str, str] = {}
for _name, _lexical, _cases, _opener, _args, _about in FUSED:
    for _share in reversed(semantic.SHARES):
        _full = _name if _share == 100 else f"{_name}@{_share}"
        SUITES[_full] = Suite(_full, _cases, _opener(*_args, share=_share),
                              f"{_about}, {_share}% of the store embedded")
        LEXICAL_OF[_full] = _lexical


@dataclass(frozen=True)
class Measure:
    """A suite measured per part rather than scored by cases: `definitions`, recall of
    definitions per language, gated at a floor and at each part's baseline figure."""
    name: str
    about: str


MEASURES: dict[str, Measure] = {
    "definitions": Measure("definitions", "definition recall per language against Universal "
                                          "Ctags, on pinned packages (PyPI, npm, Debian)"),
}


@dataclass
class SuiteRun:
    suite: str
    cases_file: Path
    cases_sha256: str
    results: list[CaseResult]
    seconds: float
    missing: dict[str, list[str]]  # case id -> expected ids the index does not hold

    @property
    def metrics(self) -> dict[str, float]:
        return summarize(self.results)

    @property
    def tags(self) -> dict[str, dict[str, float]]:
        return summarize_by_tag(self.results)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_definitions(log: Log = _log) -> dict[str, dict] | None:
    """Per-language figures of the definitions measure; None when it is skipped."""
    try:
        scores = definitions.measure(log)
    except Unavailable as exc:
        log(f"skip definitions: {exc}")
        return None
    return {language: s.as_dict() for language, s in scores.items()}


def check_definitions(figures: dict[str, dict], baseline: dict, out: Log) -> int:
    recorded = baseline.get("measures", {}).get("definitions", {})
    failures = definitions.check_figures(figures, recorded)
    for failure in failures:
        out(f"REGRESSION {failure}")
    for language, figure in figures.items():
        before = recorded.get(language, {}).get("recall")
        if before is not None and figure["recall"] > before + 0.005:
            out(f"check definitions: {language} recall rose to {figure['recall']:.4f} from "
                f"{before:.4f}; consider `make eval-baseline`")
    if not failures:
        out(f"check: ok (definitions; every language at or above "
            f"{definitions.RECALL_FLOOR} and its baseline)")
    return 1 if failures else 0


def run_suite(suite: Suite, cases_file: Path, log: Log = _log) -> SuiteRun | None:
    """Score every case of `cases_file` with the suite's runner; None when it is skipped."""
    cases = load_cases(cases_file)
    started = time.perf_counter()
    try:
        with suite.open(log) as runner:
            results = []
            for case in cases:
                try:
                    results.append(score_case(case, runner.search(case)))
                except QueryRefused as exc:
                    results.append(score_case(case, [], error=str(exc)))
            missing: dict[str, list[str]] = {}
            indexed = getattr(runner, "indexed", None)
            if indexed is not None:
                for r in results:
                    if not r.hit:
                        present = indexed(r.case.expected)
                        missing[r.case.id] = [e for e in r.case.expected if e not in present]
    except Unavailable as exc:
        log(f"skip {suite.name}: {exc}")
        return None
    digest = hashlib.sha256(cases_file.read_bytes()).hexdigest()
    return SuiteRun(suite.name, cases_file, digest, results, time.perf_counter() - started,
                    missing)


# --------------------------------------------------------------------------- output


def _row(label: str, m: dict[str, float]) -> str:
    values = "".join(f"{m[k]:>10.3f}" for k in METRICS)
    return f"{label:<24}{int(m['cases']):>6}{values}"


def render(run: SuiteRun, verbose: bool) -> str:
    lines = [f"{'suite / tag':<24}{'cases':>6}" + "".join(f"{k:>10}" for k in METRICS),
             _row(run.suite, run.metrics)]
    lines += [_row(f"  {tag}", m) for tag, m in run.tags.items()]
    misses = [r for r in run.results if not r.hit or r.rank != 1]
    lines.append(f"{run.suite}: {len(run.results)} cases in {run.seconds:.1f}s, "
                 f"{sum(not r.hit for r in run.results)} not found in the results, "
                 f"{sum(r.hit and r.rank != 1 for r in run.results)} found below rank 1")
    if verbose:
        for r in misses:
            where = f"rank {r.rank}" if r.hit else "MISS"
            scope = f" [project {r.case.project}]" if r.case.project else ""
            tags = f" ({','.join(r.case.tags)})" if r.case.tags else ""
            lines.append(f"\n{where:<8} {r.case.id}: {r.case.query!r}{scope}{tags}")
            lines.append(f"  expected  {' | '.join(r.case.expected)}")
            if r.error:
                lines.append(f"  refused   {r.error}")
            gone = run.missing.get(r.case.id)
            if gone:
                lines.append(f"  not in the index: {' | '.join(gone)}")
            for i, result in enumerate(r.results[:SHOW_INSTEAD], 1):
                lines.append(f"  {i:>2}. {result}")
            if not r.results and not r.error:
                lines.append("  (no results)")
    return "\n".join(lines)


def as_json(run: SuiteRun) -> dict:
    return {
        "suite": run.suite, "cases_file": str(run.cases_file), "seconds": round(run.seconds, 3),
        "metrics": run.metrics, "tags": run.tags,
        "cases": [{"id": r.case.id, "query": r.case.query, "project": r.case.project,
                   "tags": list(r.case.tags), "expected": list(r.case.expected),
                   "rank": r.rank, "error": r.error or None,
                   "not_indexed": run.missing.get(r.case.id, []),
                   "results": list(r.results[:SHOW_INSTEAD])} for r in run.results],
    }


# --------------------------------------------------------------------------- baseline


def baseline_entry(run: SuiteRun) -> dict:
    return {"cases": len(run.results), "cases_sha256": run.cases_sha256,
            "metrics": {k: v for k, v in run.metrics.items() if k != "cases"},
            "tags": run.tags}


def check(runs: Sequence[SuiteRun], baseline: dict, out: Log) -> int:
    recorded = baseline_metrics(baseline)
    current = {r.suite: r.metrics for r in runs}
    for run in runs:
        entry = baseline["suites"].get(run.suite)
        if entry is None:
            out(f"check {run.suite}: no baseline yet (run `make eval-baseline`)")
            continue
        if entry.get("cases_sha256") not in (None, run.cases_sha256):
            out(f"check {run.suite}: the cases changed since the baseline was written; "
                f"if that is intended, re-run `make eval-baseline` and commit it")
        for metric in METRICS:
            gain = round(current[run.suite][metric] - recorded[run.suite].get(metric, 0), 6)
            if gain > TOLERANCE:
                out(f"check {run.suite}: {metric} rose {gain:.4f} above the baseline; "
                    f"consider `make eval-baseline`")
    drops = [f"{d} (tolerance {TOLERANCE})" for d in compare(recorded, current, TOLERANCE)]
    drops += fused_below_words(current)
    for drop in drops:
        out(f"REGRESSION {drop}")
    if not drops:
        checked = [r.suite for r in runs if r.suite in recorded]
        out(f"check: ok ({', '.join(checked) or 'no suite compared'}; tolerance {TOLERANCE})")
    return 1 if drops else 0


def fused_below_words(current: dict[str, dict[str, float]]) -> list[str]:
    """Each fused suite whose recall@1 fell more than FUSED_SLACK below its lexical suite's,
    in this run: the lane must never answer worse than words alone, at any share embedded."""
    out = []
    for name, lexical in LEXICAL_OF.items():
        if name in current and lexical in current:
            fused, words = current[name]["recall@1"], current[lexical]["recall@1"]
            if round(words - fused, 6) > FUSED_SLACK:
                out.append(f"{name}: recall@1 {fused:.4f} is below {lexical}'s {words:.4f} by "
                           f"more than {FUSED_SLACK} (fused must not answer worse than words)")
    return out


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="append", choices=sorted([*SUITES, *MEASURES]),
                        help="run only this suite (repeatable); default: all")
    parser.add_argument("--cases", type=Path,
                        help="score this JSONL file instead of the suite's own cases "
                             "(one --suite; not with --check or --write-baseline)")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when a metric fell more than {TOLERANCE} below "
                             f"evals/baseline.json")
    parser.add_argument("--write-baseline", action="store_true",
                        help="write this run's metrics to evals/baseline.json")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list each case not found at rank 1 and what ranked instead")
    args = parser.parse_args(argv)

    if args.check and args.write_baseline:
        parser.error("--check and --write-baseline do not go together")
    names = list(dict.fromkeys(args.suite or [*SUITES, *MEASURES]))
    measures = [n for n in names if n in MEASURES]
    names = [n for n in names if n in SUITES]
    if args.cases is not None and (len(names) != 1 or measures or args.check
                                   or args.write_baseline):
        parser.error("--cases needs exactly one --suite and neither --check nor "
                     "--write-baseline")

    runs: list[SuiteRun] = []
    measured: dict[str, dict[str, dict]] = {}
    try:
        for name in measures:
            figures = run_definitions()
            if figures is not None:
                measured[name] = figures
                if not args.json:
                    print(definitions.render_figures(figures), flush=True)
                    print()
        for name in names:
            suite = SUITES[name]
            run = run_suite(suite, args.cases or suite.cases)
            if run is not None:
                runs.append(run)
                if not args.json:
                    print(render(run, args.verbose), flush=True)
                    print()
        baseline = load_baseline(args.baseline)
    except CaseError as exc:
        _log(f"error: {exc}")
        return 2
    except portfolio.FetchError as exc:
        _log(f"error: {exc}\n(set SOLOGRAPH_EVAL_OFFLINE=1 to skip suites that cannot fetch)")
        return 2

    if args.json:
        print(json.dumps({"suites": [as_json(r) for r in runs], "measures": measured},
                         indent=2))
    out = _log if args.json else print
    if args.write_baseline:
        if not runs and not measured:
            out("no suite ran: baseline left as it was")
        else:
            baseline.setdefault("suites", {})
            baseline["tolerance"] = TOLERANCE
            for run in runs:
                baseline["suites"][run.suite] = baseline_entry(run)
            for name, figures in measured.items():
                baseline.setdefault("measures", {})[name] = figures
            write_baseline(args.baseline, baseline)
            shown = (args.baseline.relative_to(ROOT) if args.baseline.is_relative_to(ROOT)
                     else args.baseline)
            out(f"wrote {shown} ({', '.join([*(r.suite for r in runs), *measured])})")
    if args.check:
        code = check(runs, baseline, out) if runs or not measured else 0
        if "definitions" in measured:
            code = max(code, check_definitions(measured["definitions"], baseline, out))
        return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
