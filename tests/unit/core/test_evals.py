"""The eval scorer: metrics on hand-computed examples, the baseline gate, case loading."""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from pathlib import Path

import pytest
from evals import portfolio, run
from evals.scoring import (
    Case,
    CaseError,
    QueryRefused,
    Unavailable,
    compare,
    first_rank,
    load_baseline,
    load_cases,
    ndcg_at,
    parse_cases,
    recall_at,
    reciprocal_rank,
    score_case,
    summarize,
    summarize_by_tag,
)


def case(cid: str, expected: list[str], tags: tuple[str, ...] = ()) -> Case:
    return Case(id=cid, query=cid, expected=tuple(expected), tags=tags)


# --------------------------------------------------------------------------- metrics


def test_first_rank_is_one_based_and_any_expected_id_counts():
    assert first_rank(["a", "b", "c"], ["a"]) == 1
    assert first_rank(["x", "b", "a"], ["a", "b"]) == 2
    assert first_rank(["x", "y"], ["a"]) is None
    assert first_rank([], ["a"]) is None


def test_single_case_metrics():
    assert recall_at(1, 1) == 1.0
    assert recall_at(2, 1) == 0.0
    assert recall_at(5, 5) == 1.0
    assert recall_at(6, 5) == 0.0
    assert recall_at(None, 5) == 0.0
    assert reciprocal_rank(4) == 0.25
    assert reciprocal_rank(None) == 0.0
    assert ndcg_at(1) == 1.0
    assert ndcg_at(3) == 0.5  # 1 / log2(4)
    assert ndcg_at(2) == pytest.approx(0.6309298)  # 1 / log2(3)
    assert ndcg_at(6) == 0.0
    assert ndcg_at(None) == 0.0


def test_summary_on_hand_computed_ranks():
    # ranks 1, 2, 6 and a miss
    results = [
        score_case(case("one", ["a"]), ["a", "x", "y"]),
        score_case(case("two", ["a"]), ["x", "a"]),
        score_case(case("six", ["a"]), ["x1", "x2", "x3", "x4", "x5", "a"]),
        score_case(case("none", ["a"]), ["x", "y", "z"]),
    ]
    assert [r.rank for r in results] == [1, 2, 6, None]
    m = summarize(results)
    assert m["cases"] == 4
    assert m["recall@1"] == 0.25
    assert m["recall@5"] == 0.5
    assert m["mrr"] == round((1 + 1 / 2 + 1 / 6) / 4, 4) == 0.4167
    assert m["ndcg@5"] == round((1 + 1 / math.log2(3)) / 4, 4) == 0.4077


def test_several_acceptable_answers_count_once_at_the_first():
    # Both expected ids are returned: the case is one hit at rank 2, not two hits.
    r = score_case(case("multi", ["b", "c"]), ["a", "b", "c"])
    assert r.rank == 2
    m = summarize([r])
    assert (m["recall@1"], m["recall@5"], m["mrr"]) == (0.0, 1.0, 0.5)
    assert m["ndcg@5"] == round(1 / math.log2(3), 4)


def test_a_refused_query_is_a_miss():
    r = score_case(case("q", ["a"]), [], error="empty query")
    assert not r.hit and r.error == "empty query"
    assert summarize([r])["mrr"] == 0.0


def test_summary_of_nothing_and_by_tag():
    assert summarize([]) == {"cases": 0, "recall@1": 0.0, "recall@5": 0.0, "mrr": 0.0,
                             "ndcg@5": 0.0}
    results = [score_case(case("a", ["x"], ("typo",)), ["x"]),
               score_case(case("b", ["x"], ("typo", "exact")), ["y", "x"]),
               score_case(case("c", ["x"], ("exact",)), [])]
    tags = summarize_by_tag(results)
    assert list(tags) == ["exact", "typo"]
    assert tags["typo"]["recall@1"] == 0.5 and tags["typo"]["recall@5"] == 1.0
    assert tags["exact"]["mrr"] == 0.25


# --------------------------------------------------------------------------- baseline


def metrics(**values: float) -> dict[str, float]:
    return {"recall@1": 0.5, "recall@5": 0.8, "mrr": 0.6, "ndcg@5": 0.65, **values}


def test_a_drop_of_0_031_fails():
    drops = compare({"s": metrics()}, {"s": metrics(**{"recall@1": 0.469})})
    assert [(d.suite, d.metric, d.delta) for d in drops] == [("s", "recall@1", 0.031)]
    assert "recall@1 dropped 0.0310" in str(drops[0])


def test_a_drop_of_0_029_passes():
    assert compare({"s": metrics()}, {"s": metrics(**{"recall@1": 0.471})}) == []


def test_a_drop_of_exactly_the_tolerance_passes_despite_float_noise():
    assert 0.5 - 0.47 > 0.03  # the float noise the rounding absorbs
    assert compare({"s": metrics()}, {"s": metrics(**{"recall@1": 0.47})}) == []


def test_every_metric_is_checked_and_gains_never_fail():
    current = metrics(mrr=0.55, **{"ndcg@5": 0.6, "recall@5": 0.95})
    drops = compare({"s": metrics()}, {"s": current})
    assert sorted(d.metric for d in drops) == ["mrr", "ndcg@5"]


def test_suites_missing_from_either_side_are_not_compared():
    assert compare({"gone": metrics()}, {"new": metrics(mrr=0.0)}) == []


def test_baseline_file_round_trip_and_errors(tmp_path: Path):
    assert load_baseline(tmp_path / "absent.json") == {"suites": {}}
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(CaseError, match="invalid JSON"):
        load_baseline(bad)
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(CaseError, match="suites"):
        load_baseline(bad)


# --------------------------------------------------------------------------- cases


def test_cases_parse_with_optional_fields():
    text = (
        '{"id": "a", "query": "prepare auth", "expected": ["p:f.py:X.y"]}\n'
        "\n"
        '{"id": "b", "query": "q", "expected": ["1", "2", "1"], "project": "p", '
        '"tags": ["typo", "multi"], "notes": "n", "meta": {"source": "usage-log"}}\n'
    )
    first, second = parse_cases(text, "x.jsonl")
    assert first == Case("a", "prepare auth", ("p:f.py:X.y",), line=1)
    assert second.expected == ("1", "2") and second.project == "p"
    assert second.tags == ("typo", "multi") and second.meta == {"source": "usage-log"}
    assert second.line == 3


def test_a_bad_json_line_is_reported_with_its_line_number(tmp_path: Path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "query": "q", "expected": ["x"]}\n\n{"id": "b", "query": \n',
                    encoding="utf-8")
    with pytest.raises(CaseError, match=r"cases\.jsonl:3: invalid JSON"):
        load_cases(path)


@pytest.mark.parametrize(("line", "message"), [
    ('["a"]', "expected a JSON object"),
    ('{"query": "q", "expected": ["x"]}', "'id' must be a non-empty string"),
    ('{"id": "a", "query": "  ", "expected": ["x"]}', "'query' must be a non-empty string"),
    ('{"id": "a", "query": "q"}', "'expected' must be a non-empty list"),
    ('{"id": "a", "query": "q", "expected": []}', "'expected' must be a non-empty list"),
    ('{"id": "a", "query": "q", "expected": "x"}', "'expected' must be a non-empty list"),
    ('{"id": "a", "query": "q", "expected": ["x"], "project": 3}', "'project'"),
    ('{"id": "a", "query": "q", "expected": ["x"], "tags": ["Bad Tag"]}', "'tags'"),
    ('{"id": "a", "query": "q", "expected": ["x"], "meta": []}', "'meta'"),
    ('{"id": "a", "query": "q", "expected": ["x"], "tag": ["typo"]}', "unknown field"),
])
def test_invalid_cases_name_the_line(line: str, message: str):
    text = '{"id": "ok", "query": "q", "expected": ["x"]}\n' + line + "\n"
    with pytest.raises(CaseError) as err:
        parse_cases(text, "s.jsonl")
    assert str(err.value).startswith("s.jsonl:2: ")
    assert message in str(err.value)


def test_duplicate_ids_name_both_lines():
    text = '{"id": "a", "query": "q", "expected": ["x"]}\n' * 2
    with pytest.raises(CaseError, match=r"s\.jsonl:2: duplicate id 'a' \(first on line 1\)"):
        parse_cases(text, "s.jsonl")


def test_an_unreadable_cases_file_is_a_case_error(tmp_path: Path):
    with pytest.raises(CaseError, match="cannot read"):
        load_cases(tmp_path / "missing.jsonl")


# --------------------------------------------------------------------------- the portfolio suite


def test_portfolio_cases_are_well_formed():
    cases = load_cases(portfolio.CASES)
    assert len(cases) >= 40
    assert sum("typo" in c.tags for c in cases) >= 10
    names = {p.name for p in portfolio.PINS}
    for c in cases:
        for expected in c.expected:
            project, path, name = expected.split(":")
            assert project in names and path and name, (c.id, expected)
        assert c.project is None or c.project in names, c.id
        assert c.tags, c.id


def test_result_ids_carry_the_enclosing_scope():
    hit = {"project": "requests", "path": "src/requests/models.py", "name": "prepare_auth",
           "scope": "PreparedRequest"}
    where = "requests:src/requests/models.py"
    assert portfolio.result_id(hit) == f"{where}:PreparedRequest.prepare_auth"
    assert portfolio.result_id({**hit, "scope": ""}) == f"{where}:prepare_auth"


def test_pins_are_exact_versions_with_hashes():
    for pin in portfolio.PINS:
        assert pin.registry in ("pypi", "npm", "debian")
        assert pin.version.count(".") == 2 and len(pin.sha256) == 64
        assert pin.version in pin.archive


# --------------------------------------------------------------------------- the CLI


class FakeRunner:
    answers = {"a": ["x"], "b": ["y", "x"], "c": []}

    def search(self, c: Case) -> list[str]:
        if c.query == "refuse":
            raise QueryRefused("no searchable words")
        return self.answers[c.id]


def fake_suite(tmp_path: Path, *, unavailable: bool = False) -> run.Suite:
    cases = tmp_path / "fake.jsonl"
    cases.write_text("".join(json.dumps({"id": i, "query": q, "expected": ["x"]}) + "\n"
                             for i, q in (("a", "a"), ("b", "b"), ("c", "refuse"))),
                     encoding="utf-8")

    @contextmanager
    def open_runner(log):
        if unavailable:
            raise Unavailable("SOLOGRAPH_CORPORA is not set")
        yield FakeRunner()

    return run.Suite("fake", cases, open_runner, "a fake suite")


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(run, "SUITES", {"fake": fake_suite(tmp_path)})
    monkeypatch.setattr(run, "MEASURES", {})
    return tmp_path / "baseline.json"


def test_cli_writes_then_checks_the_baseline(fake: Path, capsys: pytest.CaptureFixture):
    assert run.main(["--write-baseline", "--baseline", str(fake)]) == 0
    written = json.loads(fake.read_text())["suites"]["fake"]
    assert written["cases"] == 3
    assert written["metrics"] == {"recall@1": 0.3333, "recall@5": 0.6667, "mrr": 0.5,
                                  "ndcg@5": round((1 + 1 / math.log2(3)) / 3, 4)}
    assert run.main(["--check", "--baseline", str(fake)]) == 0
    assert "check: ok" in capsys.readouterr().out


def test_cli_check_fails_on_a_drop_and_names_it(fake: Path, capsys: pytest.CaptureFixture):
    fake.write_text(json.dumps({"suites": {"fake": {"metrics": {
        "recall@1": 0.3333, "recall@5": 0.6667, "mrr": 0.531, "ndcg@5": 0.5}}}}))
    assert run.main(["--check", "--baseline", str(fake)]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION fake: mrr dropped 0.0310" in out
    assert "recall@1 dropped" not in out


def test_cli_verbose_lists_misses_with_what_ranked_instead(fake: Path,
                                                           capsys: pytest.CaptureFixture):
    assert run.main(["-v"]) == 0
    out = capsys.readouterr().out
    assert "rank 2   b: 'b'" in out and "1. y" in out
    assert "MISS     c: 'refuse'" in out and "refused   no searchable words" in out


def test_cli_skips_an_unavailable_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture):
    monkeypatch.setattr(run, "SUITES", {"fake": fake_suite(tmp_path, unavailable=True)})
    monkeypatch.setattr(run, "MEASURES", {})
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"suites": {"fake": {"metrics": metrics()}}}))
    assert run.main(["--check", "--baseline", str(baseline)]) == 0
    assert "skip fake: SOLOGRAPH_CORPORA is not set" in capsys.readouterr().err


def test_cli_reports_bad_cases_with_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture):
    monkeypatch.setattr(run, "SUITES", {"fake": fake_suite(tmp_path)})
    bad = tmp_path / "exported.jsonl"
    bad.write_text('{"id": "a", "query": "q", "expected": ["x"]}\n{oops}\n')
    assert run.main(["--suite", "fake", "--cases", str(bad)]) == 2
    assert "exported.jsonl:2: invalid JSON" in capsys.readouterr().err


def test_cli_json_output(fake: Path, capsys: pytest.CaptureFixture):
    assert run.main(["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (suite,) = data["suites"]
    assert suite["metrics"]["cases"] == 3
    assert [c["rank"] for c in suite["cases"]] == [1, 2, None]
