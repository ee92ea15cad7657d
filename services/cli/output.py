"""What every command shares: printing an answer as JSON or for a person, and the one
translation of a domain error for the command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from solograph.errors import SolographError
from solograph.reads import to_json
from solograph.text.plural import plural

__all__ = ["plural"]  # every command counts in words the same way


def _untranslated() -> None:
    """argparse looks each of its words up in gettext's catalogues, again on every parser
    (`usage: `, `options`, the help of -h): 7 ms of a start. When no catalogue can exist (the
    interpreter's locale folder is missing) or none is found, its words are used as they are,
    which is what those lookups would return."""
    import gettext

    folder = os.path.join(sys.base_prefix, "share", "locale")
    if os.path.isdir(folder) and gettext.find(gettext.textdomain(), folder) is not None:
        return
    argparse._ = lambda message: message  # type: ignore[attr-defined]
    argparse.ngettext = (  # type: ignore[attr-defined]
        lambda singular, plural, n: singular if n == 1 else plural)


_untranslated()


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter asks `shutil` for the terminal's width, and every `add_argument`
    builds one (to check its help): that import chain (shutil, zlib, bz2, lzma) cost a
    millisecond per start. The width comes from the same places, without it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            try:
                width = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
            except (ValueError, OSError):
                width = 80
            width -= 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """Every parser of the command line, with the formatter above unless one is given."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """A word outside the choices (a command, `--format`) gets the nearest ones as "did
        you mean" (argparse suggests only from Python 3.14 on)."""
        choices = action.choices
        if choices is None or value in choices or not isinstance(value, str):
            super()._check_value(action, value)
            return
        import difflib

        names = [str(c) for c in choices]
        near = difflib.get_close_matches(value, names, n=3, cutoff=0.6)
        if not near:
            near = [n for n in names if n.startswith(value) or value.startswith(n)][:3]
        if not near:
            super()._check_value(action, value)
            return
        raise argparse.ArgumentError(
            action, f"invalid choice: {value!r}, did you mean {' or '.join(map(repr, near))}?")


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the answer object as JSON")


def emit(args: argparse.Namespace, answer: dict, render: Callable[[dict], None]) -> int:
    """`--json` prints the answer object exactly as the API and MCP return it; otherwise
    `render` shows it to a person."""
    if getattr(args, "json", False):
        print(to_json(answer))
    else:
        warn(answer.get("warnings", []))  # a problem beside the answer: apart from it
        render(answer)
        if answer.get("note"):  # the search left files unread: say so, apart from the results
            print(f"note: {answer['note']}", file=sys.stderr)
    return 0


def warn(warnings: list[str]) -> None:
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)


def report_error(exc: SolographError, args: argparse.Namespace | None) -> int:
    """The error object on stdout with --json, the message and the next step on stderr,
    exit 1 (2 for an error that says so: a path the file system refuses)."""
    if args is not None and getattr(args, "json", False):
        print(to_json(exc.to_dict()))
    print(f"solograph: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  hint: {exc.hint}", file=sys.stderr)
    return getattr(exc, "exit_code", 1)


def summary(a: dict) -> None:
    print(a["summary"])


def parser(sub: argparse._SubParsersAction, name: str, help_: str, epilog: str = "",
           ) -> argparse.ArgumentParser:
    """A command whose --help teaches: its description and examples."""
    return sub.add_parser(name, help=help_, description=help_[0].upper() + help_[1:] + ".",
                          epilog=("examples:\n" + epilog) if epilog else None)


def progress(label: str, done: int, total: int) -> None:
    """One progress line on stderr, drawn over the last: `label [####......] done/total`."""
    width = 30
    filled = int(width * done / total) if total else width
    sys.stderr.write(f"\r\033[K{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.flush()


def clear_progress() -> None:
    sys.stderr.write("\r\033[K")
