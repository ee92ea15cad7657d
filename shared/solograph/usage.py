"""The usage log: one JSON line per MCP tool call and per hook run, and the report read from it.

Lines go to `usage/usage-YYYY-MM.jsonl` beside the portfolio store, so a second profile's calls
stay in its own home. Writing never slows or breaks an answer: a failed write is dropped.
Nothing is written from a process started inside a private folder, arguments are redacted, a
hook line never holds the prompt, and CLI reads are not logged at all (only the MCP tools and
the hook call `UsageLog`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from solograph.errors import BadQuery, SolographError
from solograph.frozen import Record
from solograph.store import connect_reader

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:  # the hook imports this module: no YAML (config) or secret rules at import
    from solograph.config import Settings



def search_tools() -> dict[str, str]:
    """Each searching tool (an MCP tool that takes a query) -> the evals suite its result ids
    belong to, which is its index's name."""
    from solograph.indexes import all_answers

    return {answer.name: index.name for index, answer in all_answers()
            if answer.tool and any(p.name == "query" for p in answer.params)}


def usage_dir(settings: Settings) -> Path:
    return settings.portfolio_db.parent / "usage"


def _month_file(folder: Path, when: float) -> Path:
    return folder / f"usage-{datetime.fromtimestamp(when, UTC):%Y-%m}.jsonl"


def _redact_args(args: dict) -> dict:
    """The call's arguments with every string redacted, inside lists and mappings too."""
    from solograph.text.secrets import redact

    def clean(value: object) -> object:
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, dict):
            return {str(k): clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    return {k: clean(v) for k, v in args.items() if v is not None}


def result_ids(answer: dict | None, n: int = 3) -> list[str]:
    """The first ids of an answer, whatever the index: symbols, sessions, pages, sources."""
    if not answer:
        return []
    if _one_page(answer):
        return [str(answer["path"])]
    out = []
    for item in answer.get("results") or []:
        if not isinstance(item, dict):
            continue
        if "project" in item and "path" in item and "line" in item:
            out.append(f"{item['project']}:{item['path']}:{item['line']}")
        else:
            for key in ("id", "session", "session_id", "path", "url"):
                if item.get(key):
                    out.append(str(item[key]))
                    break
        if len(out) >= n:
            break
    return out


def _one_page(answer: object) -> bool:
    return (isinstance(answer, dict) and "results" not in answer
            and isinstance(answer.get("text"), str) and isinstance(answer.get("path"), str))


class UsageLog(Record):
    folder: Path
    enabled: bool = True

    @classmethod
    def for_process(cls, settings: Settings, *, cwd: Path | None = None) -> UsageLog:
        """Disabled when the process was started inside a private folder."""
        from solograph.config import is_private

        try:
            private = is_private(cwd or Path.cwd())
        except OSError:  # a folder we cannot judge (deleted, unreadable) is taken as private
            private = True
        return cls(usage_dir(settings), enabled=not private)

    def tool_call(self, *, tool: str, args: dict, answer: dict | None, error: str | None,
                  ms: float, size: int, client: str | None, session: str | None) -> None:
        count = answer.get("count") if isinstance(answer, dict) else None
        if count is None and isinstance(answer, dict) and isinstance(answer.get("results"), list):
            count = len(answer["results"])
        if count is None and _one_page(answer):
            count = 1  # a page read whole (kb_search `get`) found what was asked
        self._write({"kind": "tool", "tool": tool, "args": _redact_args(args),
                     "count": count, "ids": result_ids(answer), "bytes": size,
                     "ms": round(ms, 2), "client": client, "session": session, "error": error})

    def hook_run(self, *, session: str | None, event: str, pages: list[str],
                 gate: bool | None, score: float | None, ms: float) -> None:
        self._write({"kind": "hook", "session": session, "event": event, "pages": pages,
                     "gate": gate, "score": None if score is None else round(score, 4),
                     "ms": round(ms, 2)})

    def _write(self, record: dict) -> None:
        if not self.enabled:
            return
        now = time.time()
        record = {"ts": datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds"),
                  **record}
        try:
            line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(_month_file(self.folder, now), os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                         0o600)
            try:
                os.write(fd, line)  # one write of one line: appends from processes never mix
            finally:
                os.close(fd)
        except (OSError, TypeError, ValueError):
            return  # a full disk or a read-only folder never fails an answer


def read_records(folder: Path, since: datetime) -> Iterator[dict]:
    """The log's records from `since` on; unreadable lines are skipped."""
    if not folder.is_dir():
        return
    first = f"usage-{since:%Y-%m}.jsonl"
    for path in sorted(folder.glob("usage-*.jsonl")):
        if path.name < first:
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                    when = datetime.fromisoformat(record["ts"])
                except (ValueError, KeyError, TypeError):
                    continue
                if isinstance(record, dict) and when >= since:
                    yield record


def _percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo), 2)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def sessions_active(settings: Settings, since: datetime) -> set[str] | None:
    """Sessions (of every agent the index reads) with activity since `since`, from the
    session index; None when there is no session index to ask."""
    path = settings.sessions_db
    if not path.exists():
        return None
    try:
        conn = connect_reader(path, "sessions")
    except SolographError:
        return None
    try:
        stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
        rows = conn.execute("SELECT session_id FROM sessions WHERE last_at >= ? LIMIT 100000",
                            (stamp,)).fetchall()
        return {r[0] for r in rows}
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def report(settings: Settings, *, days: int = 14, now: datetime | None = None,
           sessions_in_period: set[str] | None = None) -> dict:
    """The five numbers over calls made inside an agent session, then the detail.

    `sessions_in_period`: the agents' sessions active in the period; by default read from
    the session index. Without one, reach is unknown (None)."""
    if days < 1:
        raise BadQuery("--days must be at least 1")
    now = now or datetime.now(UTC)
    since = now - timedelta(days=days)
    if sessions_in_period is None:
        sessions_in_period = sessions_active(settings, since)
    records = list(read_records(usage_dir(settings), since))
    tools = [r for r in records if r.get("kind") == "tool"]
    agent = [r for r in tools if r.get("session")]
    hooks = [r for r in records if r.get("kind") == "hook"]
    searches = [r for r in agent if r.get("tool") in search_tools()]
    empty = [r for r in searches if not r.get("error") and r.get("count") == 0]
    failed = [r for r in agent if r.get("error")]
    calling = {r["session"] for r in agent}
    latencies = [float(r["ms"]) for r in agent if isinstance(r.get("ms"), int | float)]
    reach = None
    if sessions_in_period:
        reach = _share(len(calling & sessions_in_period), len(sessions_in_period))
    nothing = Counter(
        (r["tool"], (r.get("args") or {}).get("query", "")) for r in empty)
    return {
        "days": days, "since": since.isoformat(timespec="seconds"),
        "numbers": {
            "reach": reach,
            "sessions": len(sessions_in_period) if sessions_in_period is not None else None,
            "reaching_sessions": len(calling & sessions_in_period)
            if sessions_in_period is not None else len(calling),
            "calls_per_reaching_session": round(len(agent) / len(calling), 2) if calling else None,
            "empty_search_share": _share(len(empty), len(searches)),
            "failed_share": _share(len(failed), len(agent)),
            "p50_ms": _percentile(latencies, 50), "p95_ms": _percentile(latencies, 95),
        },
        "calls": {"agent": len(agent), "outside_sessions": len(tools) - len(agent),
                  "by_tool": dict(Counter(r["tool"] for r in agent).most_common())},
        "hooks": {"runs": len(hooks),
                  "hints": sum(1 for r in hooks if r.get("pages")),
                  "nudges": sum(1 for r in hooks if r.get("gate"))},
        "found_nothing": [{"tool": t, "query": q, "times": n}
                          for (t, q), n in nothing.most_common(20)],
        "slowest": [{"tool": r["tool"], "args": r.get("args"), "ms": r.get("ms"),
                     "ts": r["ts"]}
                    for r in sorted(agent, key=lambda r: -float(r.get("ms") or 0))[:10]],
    }


def export_queries(settings: Settings, out: Path, *, days: int | None = None,
                   now: datetime | None = None) -> int:
    """Write the logged search queries, deduplicated, as an evals cases file to label."""
    now = now or datetime.now(UTC)
    since = now - timedelta(days=days) if days else datetime(1970, 1, 1, tzinfo=UTC)
    seen: dict[tuple, dict] = {}
    suites = search_tools()
    for r in read_records(usage_dir(settings), since):
        if r.get("kind") != "tool" or r.get("tool") not in suites:
            continue
        args = r.get("args") or {}
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            continue
        key = (r["tool"], query, args.get("project"))
        if key in seen:
            seen[key]["meta"]["times"] += 1
            continue
        seen[key] = {"id": f"usage-{len(seen) + 1:04d}", "query": query,
                     "project": args.get("project"), "expected": [],
                     "tags": ["usage-log"],
                     "meta": {"source": "usage-log", "at": r["ts"], "tool": r["tool"],
                              "suite": suites[r["tool"]], "returned": r.get("ids", []),
                              "count": r.get("count"), "times": 1}}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as handle:
        for case in seen.values():
            handle.write(json.dumps(case, ensure_ascii=False) + "\n")
    return len(seen)
