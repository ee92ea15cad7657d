"""What every CLI command module shares: printing an answer as JSON or for a person."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from solograph import reads


def emit(args: argparse.Namespace, answer: dict, render: Callable[[dict], None]) -> int:
    """`--json` prints the answer object exactly as the API and MCP return it; otherwise
    `render` shows it to a person."""
    if args.json:
        print(reads.to_json(answer))
    else:
        render(answer)
        if answer.get("note"):  # the search left files unread: say so, apart from the results
            print(f"note: {answer['note']}", file=sys.stderr)
    return 0
