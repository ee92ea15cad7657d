"""Commands made from an index's description: every answer and every write job with a
`command` that no hand-made module claims gets one, so a new index is on the command line the
day it is in the index list. An answer's first required text parameter is positional; the others are
flags; `--json` prints the answer object as every adapter returns it."""

from __future__ import annotations

import argparse
import json

from solograph.index import Answer, Job
from solograph.indexes import all_indexes
from solograph_services.cli.output import add_json, emit

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings


def commands(claimed: set[str]) -> dict[str, Answer | Job]:
    """The generated commands, by name, leaving out the names hand-made modules claim."""
    found: dict[str, Answer | Job] = {}
    for index in all_indexes():
        for answer in index.answers:
            if answer.command and answer.command not in claimed:
                found[answer.command] = answer
        for job in index.jobs:
            if job.command and job.command not in claimed and job.command not in found:
                found[job.command] = job
    return found


def _positional(answer: Answer) -> str | None:
    return next((p.name for p in answer.params if p.required and p.type is str), None)


def add(sub: argparse._SubParsersAction, name: str, spec: Answer | Job) -> None:
    if isinstance(spec, Job):
        p = sub.add_parser(name, help=spec.summary, description=spec.summary[0].upper()
                           + spec.summary[1:] + ".")
        add_json(p)
        return
    p = sub.add_parser(name, help=spec.title, description=spec.description)
    first = _positional(spec)
    for param in spec.params:
        if param.caller:
            continue
        if param.name == first:
            p.add_argument(param.name, help=param.help)
        elif param.type is bool:
            p.add_argument(f"--{param.name.replace('_', '-')}", dest=param.name,
                           action="store_true", help=param.help)
        else:
            p.add_argument(f"--{param.name.replace('_', '-')}", dest=param.name,
                           type=param.type, choices=param.choices or None,
                           required=param.required,
                           default=None if param.required else param.default, help=param.help)
    add_json(p)


def run(settings: Settings, args: argparse.Namespace, spec: Answer | Job) -> int:
    from solograph.index import resolve

    if isinstance(spec, Job):
        return emit(args, resolve(spec.run)(settings), _render)
    from solograph.reads import read

    params = {p.name: getattr(args, p.name) for p in spec.params if not p.caller}
    return emit(args, read(spec.name, settings, **params), _render)


def _render(answer: dict) -> None:
    print(answer["summary"] if isinstance(answer.get("summary"), str)
          else json.dumps(answer, ensure_ascii=False, indent=2))
