"""The `solograph` console script.

Startup is most of what a read costs as a process, so `main` imports as little as it can:
`--version` and the hook take their own paths; otherwise only the parser of the command being
run is built (every command's parser only for help or a mistyped name), and only that command's
module is imported.
"""

import os
import sys

from solograph import __version__

TYPE_CHECKING = False  # typing itself costs `--version` a third of its start-up
if TYPE_CHECKING:
    import argparse

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
  solograph refresh                        the nightly job (cron): registry, scan, sessions, KB
  solograph mcp                            the MCP server over stdio (what `claude mcp add` runs)
  solograph ui                             the page for people on 127.0.0.1 (search, sessions, wiki)

environment:
  SOLOGRAPH_HOME        where the indexes live (default ~/.solo)
  CODEGRAPH_SCAN_PATH   folders holding your checkouts, comma-separated (default ~/projects)
  SOLOGRAPH_SCOPE       project names a scan is limited to (or `scope:` in .solograph.yaml)
  CLAUDE_PROJECTS_PATH  Claude Code's transcripts (default ~/.claude/projects)
  KB_PATH               the knowledge base folder (the CLI's default: this folder)
  SOLOGRAPH_SEMANTIC    the meaning lane: auto (default: on when the `semantic` extra is
                        installed), on, or off (every answer lexical)
"""

# The hand-made command modules, in the order `--help` lists them.
MODULES = ("portfolio", "sessions", "kb", "sources", "refresh", "usage", "serve")
PACKAGE = "solograph_services.cli."


def _module(name: str):
    import importlib  # not at the top: `--version` and the hook never need it

    return importlib.import_module(PACKAGE + name)


def _owner(command: str):
    """The module that makes `command`, importing modules in order until one has it."""
    for name in MODULES:
        module = _module(name)
        if command in module.COMMANDS:
            return module
    return None


def build_parser(command: str | None = None) -> "tuple[argparse.ArgumentParser, dict]":
    """The parser, with only `command`'s own sub-parser when it is known (every command's
    otherwise), and the table of what runs each command built."""
    from solograph_services.cli.output import Parser

    parser = Parser(prog="solograph", description="Memory for coding agents across your "
                    "portfolio.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"solograph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    runs: dict = {}
    owner = _owner(command) if command else None
    if owner is not None:
        owner.add(sub, command)
        runs[command] = owner.run
        return parser, runs
    claimed: set[str] = set()
    for name in MODULES:
        module = _module(name)
        for cmd in module.COMMANDS:
            module.add(sub, cmd)
            runs[cmd] = module.run
        claimed |= set(module.COMMANDS)
    from solograph_services.cli import generic

    for cmd, spec in generic.commands(claimed).items():
        generic.add(sub, cmd, spec)
        runs[cmd] = lambda settings, args, spec=spec: generic.run(settings, args, spec)
    return parser, runs


def main(argv: list[str] | None = None) -> int:
    """The command, run in this process: with the rights, limits and environment of the
    process the user started."""
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["--version"], ["-V"]):
        print(f"solograph {__version__}")
        return 0
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        from solograph_services.hook.main import main as hook_main

        return hook_main(argv[1:])
    if not argv and not sys.stdin.isatty():
        argv = ["mcp"]  # `claude mcp add ... -- solograph`: stdin is the client's pipe
    try:
        return _run(argv)
    except BrokenPipeError:  # `solograph ... | head`: the reader has what it wanted
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        return 130


def _run(argv: list[str]) -> int:
    from solograph.errors import SolographError

    command = argv[0] if argv and not argv[0].startswith("-") else None
    parser, runs = build_parser(command)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    try:
        from solograph.config import Settings
        from solograph.semantic import available

        return runs[args.command](Settings.from_env(lane_available=available), args)
    except SolographError as exc:
        from solograph_services.cli.output import report_error

        return report_error(exc, args)
    except OSError as exc:
        from solograph.limits import bad_path
        from solograph_services.cli.output import report_error

        translated = bad_path(exc)  # a path argument the file system refuses
        if translated is None:
            raise
        return report_error(translated, args)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush does not
    print a second traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
