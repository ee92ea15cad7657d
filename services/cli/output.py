"""What every command shares: printing an answer as JSON or for a person, and the one
translation of a domain error for the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from solograph.errors import SolographError
from solograph.reads import to_json


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the answer object as JSON")


def emit(args: argparse.Namespace, answer: dict, render: Callable[[dict], None]) -> int:
    """`--json` prints the answer object exactly as the API and MCP return it; otherwise
    `render` shows it to a person."""
    if getattr(args, "json", False):
        print(to_json(answer))
    else:
        render(answer)
        if answer.get("note"):  # the search left files unread: say so, apart from the results
            print(f"note: {answer['note']}", file=sys.stderr)
    return 0


def report_error(exc: SolographError, args: argparse.Namespace | None) -> int:
    """The error object on stdout with --json, the message and the next step on stderr,
    exit 1."""
    if args is not None and getattr(args, "json", False):
        print(to_json(exc.to_dict()))
    print(f"solograph: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  hint: {exc.hint}", file=sys.stderr)
    return 1


def summary(a: dict) -> None:
    print(a["summary"])


def plural(n: int, word: str) -> str:
    """`1 file`, `2 files`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def parser(sub: argparse._SubParsersAction, name: str, help_: str, epilog: str = "",
           ) -> argparse.ArgumentParser:
    """A command whose --help teaches: its description and examples."""
    return sub.add_parser(name, help=help_, description=help_[0].upper() + help_[1:] + ".",
                          epilog=("examples:\n" + epilog) if epilog else None,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
