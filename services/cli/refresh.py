"""`solograph refresh`: the nightly job, for cron and launchd, with nothing but the command."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from solograph_services.cli.output import add_json, emit, parser, summary

if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {"refresh": "the nightly job: registry merge, scan of what changed, session sync, "
                       "KB index"}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    p = parser(sub, name, COMMANDS[name],
               "  solograph refresh                       # what cron runs at 4:00\n"
               "  SOLOGRAPH_SCOPE='app api' solograph refresh   # only these projects\n"
               "  0 4 * * * solograph refresh             # the crontab line")
    add_json(p)


def run(settings: Settings, args: argparse.Namespace) -> int:
    from solograph.refresh import refresh

    return emit(args, refresh(settings), summary)
