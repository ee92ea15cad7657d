"""The portfolio's commands: symbols, explain, deps, stats, projects, shared, dupes, and the
write jobs scan and registry."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from solograph import reads
from solograph_services.cli.output import (
    add_json,
    clear_progress,
    emit,
    parser,
    plural,
    progress,
    report_error,
    warn,
)

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {
    "symbols": "find definitions across every project by their words",
    "explain": "stack, size, languages, layers, first dependencies of a project",
    "deps": "the packages a project's manifests declare",
    "stats": "what the portfolio index holds",
    "projects": "the registered projects",
    "shared": "packages used by several projects, or who uses PACKAGE",
    "dupes": "names defined in several places",
    "scan": "registry merge, then index what changed",
    "registry": "find new git checkouts under the scan paths and add them",
}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    help_ = COMMANDS[name]
    if name == "symbols":
        p = parser(sub, name, help_, '  solograph symbols "auth middleware"\n'
                                     '  solograph symbols "parse response" -p my-app --json')
        p.add_argument("query", help='words of a name: "auth middleware"')
        p.add_argument("-p", "--project", help="only this project")
        p.add_argument("-n", "--limit", type=int, default=20, help="how many hits (default 20)")
    elif name in ("explain", "deps"):
        p = parser(sub, name, help_, f"  solograph {name} my-app")
        p.add_argument("project")
    elif name == "shared":
        p = parser(sub, name, help_, "  solograph shared\n  solograph shared react")
        p.add_argument("package", nargs="?")
    elif name == "dupes":
        p = parser(sub, name, help_, "  solograph dupes\n  solograph dupes escape")
        p.add_argument("name", nargs="?", help="only names holding these words")
    elif name == "scan":
        p = parser(sub, name, help_, "  solograph scan\n  solograph scan -p my-app\n"
                                     "  SOLOGRAPH_REDIS_URL=redis://127.0.0.1:6379/0 "
                                     "solograph scan --queue")
        p.add_argument("-p", "--project", action="append",
                       help="only this project (repeatable); skips the registry merge")
        p.add_argument("--no-registry", action="store_true", help="do not look for new checkouts")
        p.add_argument("--queue", action="store_true",
                       help="hand the scan to the worker pool (needs SOLOGRAPH_REDIS_URL)")
    elif name == "registry":
        p = parser(sub, name, help_, "  solograph registry\n  solograph registry --add "
                                     "~/elsewhere/tool\n  solograph registry --remove old-fork")
        p.add_argument("--add", metavar="PATH", help="register one checkout by path")
        p.add_argument("--remove", metavar="NAME", help="take a project out; it stays out")
    else:
        p = parser(sub, name, help_, f"  solograph {name}\n  solograph {name} --json")
    add_json(p)


def run(settings: Settings, args: argparse.Namespace) -> int:
    command = args.command
    if command == "symbols":
        answer = reads.symbol_search(settings, args.query, project=args.project,
                                     limit=args.limit)
        return emit(args, answer, _render_symbols)
    if command == "scan":
        return _scan(settings, args)
    if command == "registry":
        from solograph.portfolio.sync import edit_registry

        return emit(args, edit_registry(settings, add=args.add, remove=args.remove),
                    _render_registry)
    answer = reads.project_info(settings, command, project=getattr(args, "project", None),
                                package=getattr(args, "package", None),
                                name=getattr(args, "name", None))
    code = emit(args, answer, RENDER[command])
    if command == "shared" and answer.get("package") and not answer.get("projects"):
        # Like grep: a package no project uses is "nothing found", exit 1, said on stderr.
        print(f"solograph: nothing found: no indexed project uses {answer['package']!r}",
              file=sys.stderr)
        return 1
    return code


def _render_symbols(a: dict) -> None:
    if not a["results"]:
        print(f"no definitions match {a['query']!r}")
    for r in a["results"]:
        where = f"{r['project']}/{r['path']}:{r['line']}"
        scope = f"  in {r['scope']}" if r["scope"] else ""
        print(f"{r['name']:<32} {r['kind']:<10} {where}{scope}")


def _render_explain(a: dict) -> None:
    s = a["size"]
    print(f"{a['project']}  {a['path']}")
    print(f"  stack: {', '.join(a['stack']) or 'unknown'}")
    print(f"  size: {plural(s['files'], 'file')}, {plural(s['lines'], 'line')}, "
          f"{plural(s['definitions'], 'definition')}")
    print("  languages: " + ", ".join(f"{x['language']} ({x['files']})" for x in a["languages"]))
    print("  layers: " + ", ".join(f"{x['folder']} ({x['files']})" for x in a["layers"]))
    print(f"  dependencies: {', '.join(a['dependencies']) or 'none found'}")


def _render_deps(a: dict) -> None:
    for m in a["manifests"]:
        error = f"  error: {m['error']}" if m["error"] else ""
        print(f"{m['path']} ({m['manager']}){error}")
        for p in a["packages"]:
            if p["manifest"] == m["path"]:
                print(f"  {p['name']} {p['spec']}" + ("  [dev]" if p["dev"] else ""))


def _render_stats(a: dict) -> None:
    print(f"{plural(a['projects'], 'project')} ({a['scanned']} scanned), "
          f"{plural(a['files'], 'file')}, {plural(a['lines'], 'line')}, "
          f"{plural(a['definitions'], 'definition')}, {plural(a['packages'], 'package')}")
    for x in a["languages"]:
        print(f"  {x['language']:<12} {plural(x['files'], 'file'):>13} "
              f"{plural(x['definitions'], 'definition'):>20}")
    if a["parsed_in_part"]:
        print(f"  parsed in part (a syntax error): {plural(a['parsed_in_part'], 'file')}")
    if a["skipped"]:
        print("  skipped: " + ", ".join(f"{v} {k}" for k, v in a["skipped"].items()))
    for f in a["problems"]["files"][:10]:
        print(f"  {f['status']}: {f['project']}/{f['path']}")
    if len(a["problems"]["files"]) > 10:
        print("  (stats --json lists every file not read whole)")


def _render_shared(a: dict) -> None:
    if a["package"]:
        for p in a["projects"]:
            print(f"{p['project']:<30} {p['manager']:<7} {p['spec']}")
    else:
        for p in a["packages"]:
            print(f"{p['name']:<40} {p['manager']:<7} {', '.join(p['projects'])}")


def _render_dupes(a: dict) -> None:
    if not a["groups"]:
        print(a["message"])
    for g in a["groups"]:
        print(f"{g['name']}  ({len(g['places'])} places, {plural(g['projects'], 'project')})")
        for p in g["places"]:
            print(f"  {p['project']}/{p['path']}:{p['line']}  {p['kind']}")


def _render_projects(a: dict) -> None:
    for p in a["projects"]:
        print(f"{p['name']:<30} {plural(p['files'], 'file'):>12} "
              f"{plural(p['definitions'], 'def'):>12}  {p['path']}")


RENDER: dict[str, Callable[[dict], None]] = {
    "explain": _render_explain, "deps": _render_deps, "stats": _render_stats,
    "shared": _render_shared, "dupes": _render_dupes, "projects": _render_projects}


def _scan(settings: Settings, args: argparse.Namespace) -> int:
    if args.queue:
        from solograph_services.common.jobs import create_celery, submit

        job = submit(create_celery(settings), "scan", projects=args.project or None,
                     registry=not args.project and not args.no_registry)
        return emit(args, {"job": job, "queued": "scan"},
                    lambda a: print(f"queued scan as job {a['job']}"))
    from solograph.errors import UnknownProject
    from solograph.portfolio.sync import refresh_registry, scan_portfolio

    registry_report = None
    if not args.project and not args.no_registry:
        registry_report = refresh_registry(settings)
    bar = _progress_bar() if sys.stderr.isatty() and not args.json else None
    try:
        report = scan_portfolio(settings, projects=args.project, progress=bar)
    except UnknownProject as exc:  # a mistyped -p is a usage error (2), as argparse's are
        if bar:
            clear_progress()
        report_error(exc, args)
        return 2
    if bar:
        clear_progress()
    if registry_report is not None:
        report["registry"] = registry_report

    def render(a: dict) -> None:
        if a.get("registry") and a["registry"]["added"]:
            print(f"registry: added {', '.join(a['registry']['added'])}")
        print(a["summary"])
        warn((a.get("registry") or {}).get("warnings", []))
    return emit(args, report, render)


def _progress_bar() -> Callable[[str, int, int], None]:
    def show(project: str, done: int, total: int) -> None:
        progress(f"{project[:30]:<30}", done, total)
    return show


def _render_registry(a: dict) -> None:
    for name in a.get("added", []):
        print(f"added {name}")
    if "removed" in a:
        print(f"removed {a['removed']} (it stays out until `registry --add`)")
    for name in a.get("missing", []):
        print(f"missing: {name} (its folder is gone)")
    for name in a.get("purged", []):
        print(f"purged: {name} (its folder is now private)")
    print(f"{plural(len(a['projects']), 'project')} registered "
          f"(scan paths: {', '.join(a['scan_paths'])})")
