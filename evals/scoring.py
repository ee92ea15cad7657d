"""Scoring known-answer search cases: loading them, the metrics, and the baseline gate.

A suite is a JSONL file of cases plus a runner that returns ranked result ids for each case.
This module knows nothing about what the ids mean: a case is a hit at rank r when the r-th
returned id is one of the case's `expected` ids (several ids are alternatives, any one counts),
so any suite (symbols, sessions, the KB, exported usage-log queries) is scored the same way.

Metrics, each averaged over the cases (binary relevance, one answer per case):
  recall@k  1 if an expected id is within the first k results, else 0
  mrr       1/r for the first expected id at rank r in the returned list, else 0
  ndcg@5    1/log2(r + 1) for that first hit when r <= 5, else 0; the ideal list holds the
            answer at rank 1, so the ideal DCG is 1
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

METRICS: tuple[str, ...] = ("recall@1", "recall@5", "mrr", "ndcg@5")
TOLERANCE = 0.03
NDCG_K = 5
_CASE_KEYS = frozenset({"id", "query", "expected", "project", "tags", "notes", "meta"})
_TAG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class CaseError(ValueError):
    """A cases file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Case:
    id: str
    query: str
    expected: tuple[str, ...]
    project: str | None = None
    tags: tuple[str, ...] = ()
    notes: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    line: int = 0


@dataclass(frozen=True)
class CaseResult:
    case: Case
    results: tuple[str, ...]
    rank: int | None  # 1-based rank of the first expected id, None when none was returned
    error: str = ""  # the runner refused the query (its message); scored as a miss

    @property
    def hit(self) -> bool:
        return self.rank is not None


# --------------------------------------------------------------------------- cases


def parse_cases(text: str, source: str = "<cases>") -> list[Case]:
    """Cases from JSONL text: one JSON object per line; blank lines are skipped.

    Required: "id" and "query" (non-empty strings), "expected" (a non-empty list of ids).
    Optional: "project" (string or null), "tags" (list of lowercase words), "notes" (string),
    "meta" (an object for anything else, e.g. where an exported query came from).
    Raises CaseError naming `source` and the line number of the first bad line.
    """
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{source}:{number}"
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CaseError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
        case = _case(data, where, number)
        if case.id in seen:
            raise CaseError(f"{where}: duplicate id {case.id!r} (first on line {seen[case.id]})")
        seen[case.id] = number
        cases.append(case)
    return cases


def load_cases(path: Path) -> list[Case]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_cases(text, str(path))


def _case(data: object, where: str, line: int) -> Case:
    if not isinstance(data, dict):
        raise CaseError(f"{where}: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _CASE_KEYS)
    if unknown:
        raise CaseError(f"{where}: unknown field(s) {', '.join(unknown)}; "
                        f"put anything extra under \"meta\"")
    for key in ("id", "query"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise CaseError(f"{where}: {key!r} must be a non-empty string")
    expected = data.get("expected")
    if (not isinstance(expected, list) or not expected
            or not all(isinstance(e, str) and e.strip() for e in expected)):
        raise CaseError(f"{where}: 'expected' must be a non-empty list of non-empty strings")
    project = data.get("project")
    if project is not None and (not isinstance(project, str) or not project.strip()):
        raise CaseError(f"{where}: 'project' must be a non-empty string or null")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and _TAG.match(t) for t in tags):
        raise CaseError(f"{where}: 'tags' must be a list of lowercase words")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise CaseError(f"{where}: 'notes' must be a string")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise CaseError(f"{where}: 'meta' must be an object")
    return Case(id=data["id"], query=data["query"], expected=tuple(dict.fromkeys(expected)),
                project=project, tags=tuple(dict.fromkeys(tags)), notes=notes, meta=meta,
                line=line)


# --------------------------------------------------------------------------- metrics


def first_rank(results: Sequence[str], expected: Iterable[str]) -> int | None:
    """1-based rank of the first result that is one of `expected`, or None."""
    wanted = set(expected)
    for rank, result in enumerate(results, 1):
        if result in wanted:
            return rank
    return None


def recall_at(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    return 1.0 / rank if rank is not None else 0.0


def ndcg_at(rank: int | None, k: int = NDCG_K) -> float:
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= k else 0.0


def case_metrics(rank: int | None) -> dict[str, float]:
    return {"recall@1": recall_at(rank, 1), "recall@5": recall_at(rank, 5),
            "mrr": reciprocal_rank(rank), "ndcg@5": ndcg_at(rank, NDCG_K)}


def score_case(case: Case, results: Sequence[str], error: str = "") -> CaseResult:
    results = tuple(results)
    return CaseResult(case, results, first_rank(results, case.expected), error)


def summarize(results: Sequence[CaseResult]) -> dict[str, float]:
    """{"cases": n, metric: mean over the cases} with means rounded to 4 places."""
    out: dict[str, float] = {"cases": len(results)}
    for name in METRICS:
        total = sum(case_metrics(r.rank)[name] for r in results)
        out[name] = round(total / len(results), 4) if results else 0.0
    return out


def summarize_by_tag(results: Sequence[CaseResult]) -> dict[str, dict[str, float]]:
    tags = sorted({t for r in results for t in r.case.tags})
    return {t: summarize([r for r in results if t in r.case.tags]) for t in tags}


# --------------------------------------------------------------------------- baseline


@dataclass(frozen=True)
class Drop:
    suite: str
    metric: str
    baseline: float
    current: float

    @property
    def delta(self) -> float:
        return round(self.baseline - self.current, 6)

    def __str__(self) -> str:
        return (f"{self.suite}: {self.metric} dropped {self.delta:.4f} "
                f"({self.baseline:.4f} -> {self.current:.4f})")


def compare(baseline: dict[str, dict[str, float]], current: dict[str, dict[str, float]],
            tolerance: float = TOLERANCE) -> list[Drop]:
    """Every metric of every suite present in both that fell more than `tolerance`.

    Both arguments map suite name -> {metric: value}. A drop of exactly `tolerance` passes
    (deltas are rounded to 6 places, so float noise does not decide).
    """
    drops: list[Drop] = []
    for suite in sorted(set(baseline) & set(current)):
        for metric in METRICS:
            if metric not in baseline[suite] or metric not in current[suite]:
                continue
            drop = Drop(suite, metric, float(baseline[suite][metric]),
                        float(current[suite][metric]))
            if drop.delta > tolerance:
                drops.append(drop)
    return drops


def load_baseline(path: Path) -> dict:
    """The baseline file: {"tolerance": .., "suites": {name: {"metrics": {..}, ..}}}."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"suites": {}}
    except json.JSONDecodeError as exc:
        raise CaseError(f"{path}: invalid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("suites"), dict):
        raise CaseError(f"{path}: expected an object with a \"suites\" object")
    return data


def baseline_metrics(data: dict) -> dict[str, dict[str, float]]:
    return {name: dict(entry.get("metrics", {})) for name, entry in data["suites"].items()}


def write_baseline(path: Path, data: dict) -> None:
    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- suites


class Unavailable(Exception):
    """A suite's data is not here (e.g. SOLOGRAPH_CORPORA unset): the run skips it."""


class QueryRefused(Exception):
    """The engine refused one query (an empty or unsearchable query): scored as a miss."""
