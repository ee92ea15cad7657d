"""`solograph usage`: is it useful? Five numbers from the MCP and hook log, then detail."""

from __future__ import annotations

import argparse
from pathlib import Path

from solograph_services.cli.output import add_json, emit, parser, plural

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {"usage": "is it useful? five numbers from the MCP and hook log"}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    p = parser(sub, name, COMMANDS[name], "  solograph usage\n  solograph usage --days 30 --json\n"
               "  solograph usage --export-queries to-label.jsonl")
    p.add_argument("--days", type=int, default=14, help="the period, in days (default 14)")
    p.add_argument("--export-queries", metavar="FILE",
                   help="write the logged queries as an evals cases file to label")
    add_json(p)


def run(settings: Settings, args: argparse.Namespace) -> int:
    from solograph import usage

    if args.export_queries:
        n = usage.export_queries(settings, Path(args.export_queries), days=args.days)
        answer = {"exported": n, "file": args.export_queries}
        return emit(args, answer, lambda a: print(
            f"wrote {a['exported']} queries to {a['file']}: fill `expected`, then "
            "`python evals/run.py --suite SUITE --cases FILE`"))
    return emit(args, usage.report(settings, days=args.days), _render)


def _render(a: dict) -> None:
    n = a["numbers"]

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.0%}"

    sessions = "no session index" if n["sessions"] is None else \
        "no sessions in the period" if not n["sessions"] else \
        f"{n['reaching_sessions']} of {plural(n['sessions'], 'session')}"
    print(f"last {a['days']} days, calls made inside agent sessions:")
    print(f"  reach               {pct(n['reach'])} ({sessions})")
    print(f"  calls per session   {n['calls_per_reaching_session'] or 'n/a'}")
    print(f"  found nothing       {pct(n['empty_search_share'])} of searches")
    print(f"  failed              {pct(n['failed_share'])} of calls")
    print(f"  latency             p50 {n['p50_ms'] or 'n/a'} ms, p95 {n['p95_ms'] or 'n/a'} ms")
    calls = a["calls"]
    print(f"calls: {calls['agent']} in sessions, {calls['outside_sessions']} outside "
          "(scripts, not counted above)")
    for tool, count in calls["by_tool"].items():
        print(f"  {tool:<16} {count}")
    hooks = a["hooks"]
    print(f"hook: {hooks['runs']} runs, {hooks['hints']} hints, {hooks['nudges']} nudges")
    if a["found_nothing"]:
        print("found nothing:")
        for q in a["found_nothing"]:
            print(f"  {q['times']:>3}x {q['tool']}: {q['query']}")
    if a["slowest"]:
        print("slowest:")
        for s in a["slowest"][:5]:
            print(f"  {s['ms']:>8} ms {s['tool']} {s['args']}")
