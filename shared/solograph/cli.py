"""The `solograph` command: every read, with `--json` printing the exact answer object."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from solograph import __version__, cli_kb, jobs, reads
from solograph.cli_common import emit
from solograph.config import Settings
from solograph.errors import BadQuery, ConfigError, SolographError
from solograph.sources import commands as sources_commands

EPILOG = """examples:
  solograph registry                       find git checkouts under CODEGRAPH_SCAN_PATH
  solograph scan                           registry merge, then index what changed
  solograph scan -p my-app                 one project
  solograph symbols "auth middleware"      AuthMiddleware, auth_middleware, authMiddleware
  solograph symbols parse -p my-app --json the answer an agent gets
  solograph explain my-app                 stack, size, languages, layers, dependencies
  solograph deps my-app | stats | shared react | dupes escape
  solograph sessions "webhook retry"       past Claude Code sessions, archived ones too
  solograph sessions "webhook retry" -p my-app --json
  solograph sessions "webhook retry" --session ID    the matching messages of one session
  solograph sessions export ID --format jsonl        a whole stored conversation
  solograph sync-sessions                  warm the session index (searches sync by themselves)
  solograph sources search "pricing tiers" -s youtube    talks, launches, revenue pages
  solograph sources index-youtube -c GregIsenberg -n 10  a channel's newest videos
  solograph sources list | tags | related VIDEO
  solograph http                           the sources API for SearXNG (port 8002)
  solograph kb "privacy architecture"      the knowledge base (KB_PATH, else here)
  solograph kb --pages "privacy architecture" --expand   the wiki only, plus linked pages
  solograph kb get wiki/agent-sandboxing.md#Setup   one page or one section
  solograph kb-graph --check               orphans, broken links; exit 1 when any
  solograph kb-graph --page agent-sandboxing   backlinks of one page
  solograph kb-aliases --suggest           alias groups the KB knows but the table lacks
  solograph kb-hint "prompt" --session ID  the prompt hook's pointer, or nothing
  solograph hook --kb-path ~/notes         Claude Code's SessionStart/UserPromptSubmit hook
  solograph memgate train labelled.jsonl   fit the memory nudge from your labelled prompts
  solograph index-kb                       warm the KB index (searches sync by themselves)

environment:
  SOLOGRAPH_HOME        where the indexes live (default ~/.solo)
  CODEGRAPH_SCAN_PATH   folders holding your checkouts, comma-separated (default ~/projects)
  SOLOGRAPH_SCOPE       project names a scan is limited to (or `scope:` in .solograph.yaml)
  CLAUDE_PROJECTS_PATH  Claude Code's transcripts (default ~/.claude/projects)
  KB_PATH               the knowledge base folder (the CLI's default: this folder)
"""


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the answer object as JSON")


def build_parser(extend: Callable[[argparse._SubParsersAction], None] | None = None,
                 ) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="solograph", description="Memory for coding agents across your portfolio.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"solograph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("symbols", help="find definitions across every project by their words")
    p.add_argument("query", help='words of a name: "auth middleware"')
    p.add_argument("-p", "--project", help="only this project")
    p.add_argument("-n", "--limit", type=int, default=20, help="how many hits (default 20)")
    _add_json(p)

    for name, text in (("explain", "stack, size, languages, layers, first dependencies"),
                       ("deps", "the packages a project's manifests declare")):
        p = sub.add_parser(name, help=text)
        p.add_argument("project")
        _add_json(p)
    p = sub.add_parser("stats", help="what the portfolio index holds")
    _add_json(p)
    p = sub.add_parser("projects", help="the registered projects")
    _add_json(p)
    p = sub.add_parser("shared", help="packages used by several projects, or who uses PACKAGE")
    p.add_argument("package", nargs="?")
    _add_json(p)
    p = sub.add_parser("dupes", help="names defined in several places")
    p.add_argument("name", nargs="?", help="only names holding these words")
    _add_json(p)

    p = sub.add_parser("scan", help="registry merge, then index what changed")
    p.add_argument("-p", "--project", action="append",
                   help="only this project (repeatable); skips the registry merge")
    p.add_argument("--no-registry", action="store_true", help="do not look for new checkouts")
    p.add_argument("--queue", action="store_true",
                   help="hand the scan to the worker pool (needs SOLOGRAPH_REDIS_URL)")
    _add_json(p)
    p = sub.add_parser("registry", help="find new git checkouts under the scan paths and add them")
    p.add_argument("--add", metavar="PATH", help="register one checkout by path")
    p.add_argument("--remove", metavar="NAME", help="take a project out; it stays out")
    _add_json(p)
    p = sub.add_parser("usage", help="is it useful? five numbers from the MCP and hook log")
    p.add_argument("--days", type=int, default=14, help="the period, in days (default 14)")
    p.add_argument("--export-queries", metavar="FILE",
                   help="write the logged queries as an evals cases file to label")
    _add_json(p)

    p = sub.add_parser(
        "sessions", help="search past Claude Code sessions, read one, or export one",
        description="Search past Claude Code sessions (archived ones too), read the matching "
                    "messages of one, or export one whole.",
        epilog='examples:\n  solograph sessions "webhook retry" -p my-app\n'
               '  solograph sessions "webhook retry" --session 258c7280\n'
               "  solograph sessions export 258c7280 --format markdown",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("query", nargs="+", metavar="QUERY",
                   help='words to find, e.g. "webhook retry"; or `export ID`')
    p.add_argument("-p", "--project", help="only sessions in this project's folder")
    p.add_argument("-n", "--limit", type=int, default=10, help="how many (default 10)")
    p.add_argument("--session", metavar="ID", help="the matching messages of this session")
    p.add_argument("--exclude-session", metavar="ID", help="leave this session out (the asker)")
    p.add_argument("--format", choices=("markdown", "jsonl"), default=None,
                   help="with `export`: markdown (default) or jsonl")
    _add_json(p)
    p = sub.add_parser("sync-sessions", help="read new and grown transcripts into the index")
    _add_json(p)
    sources_commands.add_parser(sub)
    cli_kb.add_parsers(sub)
    if extend is not None:
        extend(sub)
    return parser


def main(argv: list[str] | None = None,
         extend: Callable[[argparse._SubParsersAction], None] | None = None) -> int:
    parser = build_parser(extend)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    try:
        settings = Settings.from_env()
        return COMMANDS[args.command](settings, args)
    except SolographError as exc:
        return report_error(exc, args)
    except KeyboardInterrupt:
        return 130


def report_error(exc: SolographError, args: argparse.Namespace) -> int:
    """The one translation of a domain error for the command line: the error object on stdout
    with --json, the message and the next step on stderr, exit 1."""
    if getattr(args, "json", False):
        print(reads.to_json(exc.to_dict()))
    print(f"solograph: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  hint: {exc.hint}", file=sys.stderr)
    return 1


def _symbols(settings: Settings, args: argparse.Namespace) -> int:
    answer = reads.symbol_search(settings, args.query, project=args.project, limit=args.limit)

    def render(a: dict) -> None:
        if not a["results"]:
            print(f"no definitions match {a['query']!r}")
        for r in a["results"]:
            where = f"{r['project']}/{r['path']}:{r['line']}"
            scope = f"  in {r['scope']}" if r["scope"] else ""
            print(f"{r['name']:<32} {r['kind']:<10} {where}{scope}")
    return emit(args, answer, render)


def _info(action: str) -> Callable[[Settings, argparse.Namespace], int]:
    def run(settings: Settings, args: argparse.Namespace) -> int:
        answer = reads.project_info(settings, action, project=getattr(args, "project", None),
                                    package=getattr(args, "package", None),
                                    name=getattr(args, "name", None))
        return emit(args, answer, _render_info)
    return run


def _render_info(a: dict) -> None:
    action = a["action"]
    if action == "explain":
        s = a["size"]
        print(f"{a['project']}  {a['path']}")
        print(f"  stack: {', '.join(a['stack']) or 'unknown'}")
        print(f"  size: {s['files']} files, {s['lines']} lines, {s['definitions']} definitions")
        print("  languages: " + ", ".join(f"{x['language']} ({x['files']})"
                                          for x in a["languages"]))
        print("  layers: " + ", ".join(f"{x['folder']} ({x['files']})" for x in a["layers"]))
        print(f"  dependencies: {', '.join(a['dependencies']) or 'none found'}")
    elif action == "deps":
        for m in a["manifests"]:
            error = f"  error: {m['error']}" if m["error"] else ""
            print(f"{m['path']} ({m['manager']}){error}")
            for p in a["packages"]:
                if p["manifest"] == m["path"]:
                    print(f"  {p['name']} {p['spec']}" + ("  [dev]" if p["dev"] else ""))
    elif action == "stats":
        print(f"{a['projects']} projects ({a['scanned']} scanned), {a['files']} files, "
              f"{a['lines']} lines, {a['definitions']} definitions, {a['packages']} packages")
        for x in a["languages"]:
            print(f"  {x['language']:<12} {x['files']:>7} files {x['definitions']:>8} definitions")
        if a["parsed_in_part"]:
            print(f"  parsed in part (a syntax error): {a['parsed_in_part']} files")
        if a["skipped"]:
            print("  skipped: " + ", ".join(f"{v} {k}" for k, v in a["skipped"].items()))
        for f in a["problems"]["files"][:10]:
            print(f"  {f['status']}: {f['project']}/{f['path']}")
        if len(a["problems"]["files"]) > 10:
            print("  (stats --json lists every file not read whole)")
    elif action == "shared":
        if a["package"]:
            for p in a["projects"]:
                print(f"{p['project']:<30} {p['manager']:<7} {p['spec']}")
        else:
            for p in a["packages"]:
                print(f"{p['name']:<40} {p['manager']:<7} {', '.join(p['projects'])}")
    elif action == "dupes":
        if not a["groups"]:
            print(a["message"])
        for g in a["groups"]:
            print(f"{g['name']}  ({len(g['places'])} places, {g['projects']} projects)")
            for p in g["places"]:
                print(f"  {p['project']}/{p['path']}:{p['line']}  {p['kind']}")
    elif action == "projects":
        for p in a["projects"]:
            print(f"{p['name']:<30} {p['files']:>6} files {p['definitions']:>7} defs  {p['path']}")


def _scan(settings: Settings, args: argparse.Namespace) -> int:
    if args.queue:
        raise ConfigError("--queue needs the `solograph` command with SOLOGRAPH_REDIS_URL set")
    registry_report = None
    if not args.project and not args.no_registry:
        registry_report = jobs.refresh_registry(settings)
    progress = _progress_bar() if sys.stderr.isatty() and not args.json else None
    report = jobs.scan_portfolio(settings, projects=args.project, progress=progress)
    if progress:
        sys.stderr.write("\r\033[K")
    if registry_report is not None:
        report["registry"] = registry_report
    if args.json:
        print(reads.to_json(report))
    else:
        if registry_report and registry_report["added"]:
            print(f"registry: added {', '.join(registry_report['added'])}")
        print(report["summary"])
    return 0


def _progress_bar() -> Callable[[str, int, int], None]:
    def show(project: str, done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r\033[K{project[:30]:<30} [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done}/{total}")
        sys.stderr.flush()
    return show


def _registry(settings: Settings, args: argparse.Namespace) -> int:
    from solograph.portfolio import registry
    from solograph.store import connect_writer

    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        if args.add:
            name = registry.add(conn, Path(args.add))
            answer = {"added": [name]}
        elif args.remove:
            registry.remove(conn, args.remove)
            answer = {"removed": args.remove}
        else:
            answer = registry.refresh(conn, settings.scan_paths).to_dict()
        answer["projects"] = [{"name": p.name, "path": str(p.path)}
                              for p in registry.list_projects(conn)]
    finally:
        conn.close()

    def render(a: dict) -> None:
        for name in a.get("added", []):
            print(f"added {name}")
        if "removed" in a:
            print(f"removed {a['removed']} (it stays out until `registry --add`)")
        for name in a.get("missing", []):
            print(f"missing: {name} (its folder is gone)")
        for name in a.get("purged", []):
            print(f"purged: {name} (its folder is now private)")
        print(f"{len(a['projects'])} projects registered "
              f"(scan paths: {', '.join(str(p) for p in settings.scan_paths)})")
    return emit(args, answer, render)


def _sessions(settings: Settings, args: argparse.Namespace) -> int:
    words = args.query
    if words[0] == "export" and len(words) == 2:
        return _export(settings, args, words[1])
    if args.format:
        raise BadQuery("--format goes with `export`",
                       hint="solograph sessions export ID --format jsonl")
    answer = reads.session_search(settings, " ".join(words), project=args.project,
                                  limit=args.limit, session=args.session,
                                  exclude_session=args.exclude_session)
    return emit(args, answer, _render_messages if args.session else _render_sessions)


def _render_sessions(a: dict) -> None:
    if not a["results"]:
        print(f"no sessions match {a['query']!r}")
    for i, r in enumerate(a["results"], 1):
        when = f"{r['first'][:16].replace('T', ' ')} → {r['last'][:16].replace('T', ' ')}"
        print(f"{i}. {r['title'] or '(untitled)'}")
        print(f"   {r['project']} · {when} · {r['messages']} messages · {r['match']} words")
        print(f"   {r['resume'] or 'session ' + r['session'] + ' (transcript deleted)'}")
        if r["snippet"]:
            print(f"   {r['snippet']}")
    if a.get("respelled"):
        print("also searched: " + ", ".join(f"{k} → {v}" for k, v in a["respelled"].items()))


def _render_messages(a: dict) -> None:
    s = a["session"]
    print(f"{s['title']}  ({s['session']}, {s['transcript']})")
    print(f"{a['matches']} of {a['total_matches']} matching messages, with neighbours\n")
    for m in a["messages"]:
        mark = ">>" if m["match"] else "  "
        who = m["role"] + (" (sub-agent)" if m["sidechain"] else "")
        print(f"{mark} {who} · {m['at'][:19].replace('T', ' ')}")
        for line in (m["text"] or "").splitlines() or [""]:
            print(f"{mark}   {line}")
        for t in m["tools"]:
            print(f"{mark}   [{t['name']}] " + " ".join(t["input"].values())[:200])
        print()


def _export(settings: Settings, args: argparse.Namespace, session_id: str) -> int:
    answer = reads.session_export(settings, session_id, fmt=args.format or "markdown")
    if args.json:
        print(reads.to_json(answer))
    else:
        sys.stdout.write(answer["content"])
    return 0


def _sync_sessions(settings: Settings, args: argparse.Namespace) -> int:
    report = jobs.sync_sessions(settings)
    if args.json:
        print(reads.to_json(report))
    else:
        print(report["summary"])
    return 0


def _usage(settings: Settings, args: argparse.Namespace) -> int:
    from solograph import usage

    if args.export_queries:
        n = usage.export_queries(settings, Path(args.export_queries), days=args.days)
        answer = {"exported": n, "file": args.export_queries}
        return emit(args, answer, lambda a: print(
            f"wrote {a['exported']} queries to {a['file']}: fill `expected`, then "
            "`python evals/run.py --suite SUITE --cases FILE`"))
    return emit(args, usage.report(settings, days=args.days), _render_usage)


def _render_usage(a: dict) -> None:
    n = a["numbers"]

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.0%}"

    sessions = "no session index" if n["sessions"] is None else \
        f"{n['reaching_sessions']} of {n['sessions']} sessions"
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


COMMANDS: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
    "symbols": _symbols,
    "explain": _info("explain"),
    "deps": _info("deps"),
    "stats": _info("stats"),
    "projects": _info("projects"),
    "shared": _info("shared"),
    "dupes": _info("dupes"),
    "scan": _scan,
    "registry": _registry,
    "sessions": _sessions,
    "sync-sessions": _sync_sessions,
    "sources": sources_commands.run,
    "usage": _usage,
}
COMMANDS.update(cli_kb.COMMANDS)

if __name__ == "__main__":
    sys.exit(main())
