"""The usage log: what is written, what never is, and the five numbers read back."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from solograph import usage
from solograph.config import Settings
from solograph.usage import UsageLog

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def lines(folder: Path) -> list[dict]:
    out = []
    for path in sorted(folder.glob("usage-*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines()]
    return out


def test_a_tool_call_line_has_every_field_and_redacted_arguments(settings):
    log = UsageLog(usage.usage_dir(settings))
    token = "ghp_" + "Z9y8" * 9
    answer = {"count": 4, "results": [
        {"project": "a", "path": "x.py", "line": i, "name": "n"} for i in range(4)]}
    log.tool_call(tool="symbol_search", args={"query": f"token {token}", "project": None},
                  answer=answer, error=None, ms=3.456, size=321, client="claude-code",
                  session="s-1")
    (line,) = lines(usage.usage_dir(settings))
    assert line["tool"] == "symbol_search" and line["count"] == 4
    assert line["ids"] == ["a:x.py:0", "a:x.py:1", "a:x.py:2"]
    assert line["bytes"] == 321 and line["ms"] == 3.46
    assert line["client"] == "claude-code" and line["session"] == "s-1"
    assert line["error"] is None
    assert token not in json.dumps(line) and "project" not in line["args"]


def test_arguments_are_redacted_inside_lists_and_mappings_too(settings):
    log = UsageLog(usage.usage_dir(settings))
    token = "ghp_" + "Z9y8" * 9
    log.tool_call(tool="source_search", args={"targets": ["a", f"x {token}"],
                                              "filters": {"q": f"DB_PASSWORD=hunter2pass {token}"}},
                  answer=None, error="bad_query", ms=1, size=1, client=None, session=None)
    (line,) = lines(usage.usage_dir(settings))
    dumped = json.dumps(line)
    assert token not in dumped and "hunter2pass" not in dumped
    assert line["args"]["targets"][0] == "a"


def test_a_hook_line_never_holds_the_prompt(settings):
    log = UsageLog(usage.usage_dir(settings))
    log.hook_run(session="s", event="UserPromptSubmit", pages=["wiki/a.md"], gate=True,
                 score=0.91234, ms=12)
    (line,) = lines(usage.usage_dir(settings))
    assert set(line) == {"ts", "kind", "session", "event", "pages", "gate", "score", "ms"}


def test_nothing_is_written_from_a_private_folder(settings, tmp_path):
    private = tmp_path / "client-work"
    (private / "deep").mkdir(parents=True)
    (private / ".solograph-private").touch()
    log = UsageLog.for_process(settings, cwd=private / "deep")
    assert not log.enabled
    log.tool_call(tool="kb_search", args={"query": "x"}, answer=None, error=None, ms=1, size=1,
                  client=None, session=None)
    assert not usage.usage_dir(settings).exists()
    assert UsageLog.for_process(settings, cwd=tmp_path).enabled


def test_files_rotate_by_month(settings, monkeypatch):
    log = UsageLog(usage.usage_dir(settings))
    for stamp in (datetime(2026, 10, 31, 23, 59, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)):
        monkeypatch.setattr(usage.time, "time", stamp.timestamp)
        log.hook_run(session="s", event="SessionStart", pages=[], gate=None, score=None, ms=1)
    names = sorted(p.name for p in usage.usage_dir(settings).iterdir())
    assert names == ["usage-2026-10.jsonl", "usage-2026-11.jsonl"]


def test_an_unwritable_or_full_log_never_fails_an_answer(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    UsageLog(blocked / "usage").hook_run(session="s", event="e", pages=[], gate=None,
                                         score=None, ms=1)
    full = tmp_path / "full"
    full.mkdir()
    name = f"usage-{datetime.now(UTC):%Y-%m}.jsonl"
    if Path("/dev/full").exists():
        os.symlink("/dev/full", full / name)
        UsageLog(full).hook_run(session="s", event="e", pages=[], gate=None, score=None, ms=1)


def _fixture_log(settings: Settings) -> None:
    """A month of calls with known answers."""
    folder = usage.usage_dir(settings)
    folder.mkdir(parents=True)
    rows = []

    def tool(days_ago, tool, session, count, ms, error=None, query="q"):
        ts = (NOW - timedelta(days=days_ago)).isoformat(timespec="milliseconds")
        rows.append({"ts": ts, "kind": "tool", "tool": tool, "args": {"query": query},
                     "count": count, "ids": [], "bytes": 10, "ms": ms, "client": "c",
                     "session": session, "error": error})

    tool(1, "session_search", "s1", 3, 10)
    tool(1, "session_search", "s1", 0, 20, query="nothing here")
    tool(2, "symbol_search", "s2", 5, 30)
    tool(2, "project_info", "s2", None, 40, error="unknown_project")
    tool(3, "kb_search", "s1", 0, 50, query="nothing here")
    tool(1, "symbol_search", None, 0, 5000, query="a script")   # no session: not use
    tool(1, "symbol_search", None, 0, 5000, query="a script")
    tool(40, "kb_search", "s9", 1, 10)                          # outside the period
    hooks = [{"ts": (NOW - timedelta(days=1)).isoformat(), "kind": "hook", "session": "s1",
              "event": "UserPromptSubmit", "pages": ["wiki/x.md"], "gate": False, "score": 0.1,
              "ms": 40},
             {"ts": (NOW - timedelta(days=1)).isoformat(), "kind": "hook", "session": "s3",
              "event": "UserPromptSubmit", "pages": [], "gate": True, "score": 0.9, "ms": 40}]
    for month in ("2026-10", "2026-11"):
        with open(folder / f"usage-{month}.jsonl", "w") as handle:
            for r in rows + hooks:
                if r["ts"].startswith(month):
                    handle.write(json.dumps(r) + "\n")
            handle.write("{not json\n")


def test_the_five_numbers_on_a_log_with_known_answers(settings):
    _fixture_log(settings)
    active = {"s1", "s2", "s3", "s4"}
    out = usage.report(settings, days=14, now=NOW, sessions_in_period=active)
    n = out["numbers"]
    assert n["reach"] == 0.5                       # s1 and s2 of four sessions made calls
    assert n["calls_per_reaching_session"] == 2.5  # five calls inside sessions, two sessions
    assert n["empty_search_share"] == 0.5          # 2 of 4 searches (project_info is no search)
    assert n["failed_share"] == 0.2                # 1 of 5
    assert n["p50_ms"] == 30 and n["p95_ms"] == 48
    assert out["calls"] == {"agent": 5, "outside_sessions": 2, "by_tool": {
        "session_search": 2, "symbol_search": 1, "project_info": 1, "kb_search": 1}}
    assert out["hooks"] == {"runs": 2, "hints": 1, "nudges": 1}
    assert out["found_nothing"][0] == {"tool": "session_search", "query": "nothing here",
                                       "times": 1}
    assert out["slowest"][0]["ms"] == 50  # scripts are not in the slowest list either


def test_reach_is_unknown_without_a_session_index(settings):
    _fixture_log(settings)
    n = usage.report(settings, days=14, now=NOW)["numbers"]
    assert n["reach"] is None and n["sessions"] is None


def test_export_queries_is_a_cases_file_to_label(settings, tmp_path):
    _fixture_log(settings)
    out = tmp_path / "label.jsonl"
    # Search queries only (project_info is not one), each (tool, query, project) once; the
    # same words through two tools stay two cases.
    assert usage.export_queries(settings, out, now=NOW) == 6
    assert usage.export_queries(settings, out, now=NOW, days=14) == 5
    assert usage.export_queries(settings, out, now=NOW) == 6
    cases = [json.loads(line) for line in out.read_text().splitlines()]
    assert {c["query"] for c in cases} == {"q", "nothing here", "a script"}
    script = next(c for c in cases if c["query"] == "a script")
    assert script["meta"]["times"] == 2 and script["meta"]["suite"] == "portfolio"
    assert all(c["expected"] == [] for c in cases)


def test_days_must_be_positive(settings):
    from solograph.errors import BadQuery

    with pytest.raises(BadQuery):
        usage.report(settings, days=0)


def test_session_search_logs_its_first_three_session_ids(settings):
    """The most-called tool's hits carry `session`: its ids are what export-queries labels."""
    log = UsageLog(usage.usage_dir(settings))
    answer = {"count": 4, "results": [{"session": f"s-{i}", "project": "app", "title": "t"}
                                      for i in range(4)]}
    log.tool_call(tool="session_search", args={"query": "webhook"}, answer=answer, error=None,
                  ms=1, size=1, client=None, session="asker")
    (line,) = lines(usage.usage_dir(settings))
    assert line["ids"] == ["s-0", "s-1", "s-2"]


def test_never_n_of_0_sessions(settings, capsys):
    from solograph_services.cli import usage as cli

    _fixture_log(settings)
    out = usage.report(settings, days=14, now=NOW, sessions_in_period=set())
    assert out["numbers"]["reach"] is None and out["numbers"]["reaching_sessions"] == 0
    cli._render(out)
    shown = capsys.readouterr().out
    assert "no sessions in the period" in shown and " of 0 sessions" not in shown
    cli._render(usage.report(settings, days=14, now=NOW, sessions_in_period={"s1"}))
    assert "1 of 1 session)" in capsys.readouterr().out
