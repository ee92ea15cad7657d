"""The `solograph` command: every read, with `--json` printing the exact answer object."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from solograph import __version__, jobs, reads
from solograph.config import Settings
from solograph.errors import ConfigError, SolographError

EPILOG = """examples:
  solograph registry                       find git checkouts under CODEGRAPH_SCAN_PATH
  solograph scan                           registry merge, then index what changed
  solograph scan -p my-app                 one project
  solograph symbols "auth middleware"      AuthMiddleware, auth_middleware, authMiddleware
  solograph symbols parse -p my-app --json the answer an agent gets
  solograph explain my-app                 stack, size, languages, layers, dependencies
  solograph deps my-app | stats | shared react | dupes escape

environment:
  SOLOGRAPH_HOME        where the indexes live (default ~/.solo)
  CODEGRAPH_SCAN_PATH   folders holding your checkouts, comma-separated (default ~/projects)
  SOLOGRAPH_SCOPE       project names a scan is limited to (or `scope:` in .solograph.yaml)
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
        if getattr(args, "json", False):
            print(reads.to_json(exc.to_dict()))
        print(f"solograph: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _emit(args: argparse.Namespace, answer: dict, render: Callable[[dict], None]) -> int:
    if args.json:
        print(reads.to_json(answer))
    else:
        render(answer)
    return 0


def _symbols(settings: Settings, args: argparse.Namespace) -> int:
    answer = reads.symbol_search(settings, args.query, project=args.project, limit=args.limit)

    def render(a: dict) -> None:
        if not a["results"]:
            print(f"no definitions match {a['query']!r}")
        for r in a["results"]:
            where = f"{r['project']}/{r['path']}:{r['line']}"
            scope = f"  in {r['scope']}" if r["scope"] else ""
            print(f"{r['name']:<32} {r['kind']:<10} {where}{scope}")
    return _emit(args, answer, render)


def _info(action: str) -> Callable[[Settings, argparse.Namespace], int]:
    def run(settings: Settings, args: argparse.Namespace) -> int:
        answer = reads.project_info(settings, action, project=getattr(args, "project", None),
                                    package=getattr(args, "package", None),
                                    name=getattr(args, "name", None))
        return _emit(args, answer, _render_info)
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
            print(f"  {p['name']} {p['spec']}" + ("  [dev]" if p["dev"] else ""))
    elif action == "stats":
        print(f"{a['projects']} projects ({a['scanned']} scanned), {a['files']} files, "
              f"{a['lines']} lines, {a['definitions']} definitions, {a['packages']} packages")
        for x in a["languages"]:
            print(f"  {x['language']:<12} {x['files']:>7} files {x['definitions']:>8} definitions")
        if a["skipped"]:
            print("  skipped: " + ", ".join(f"{v} {k}" for k, v in a["skipped"].items()))
    elif action == "shared":
        if a["package"]:
            for p in a["projects"]:
                print(f"{p['project']:<30} {p['manager']:<7} {p['spec']}")
        else:
            for p in a["packages"]:
                print(f"{p['name']:<40} {p['manager']:<7} {', '.join(p['projects'])}")
    elif action == "dupes":
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
    return _emit(args, answer, render)


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
}

if __name__ == "__main__":
    sys.exit(main())
