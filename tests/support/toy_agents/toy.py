"""A made-up agent, to show that a new agent is one module and one line in
`solograph.sessions.agents.AGENTS`: `<folder>/<session id>.log`, one message a line,
`> ` for what the user typed, anything else the agent's answer, the folder on a `@ ` line."""

from __future__ import annotations

from solograph.sessions.agents import Unit, file_unit, listing
from solograph.sessions.agents.common import message
from solograph.sessions.records import whole_lines

NAME = "toy"
TITLE = "Toy agent"
RESUME = "toy --resume {id}"
APPENDABLE = True


def location(settings):
    return settings.agent_path(NAME)


def units(location, denied):
    for entry in listing(str(location), denied, ""):
        if entry.name.endswith(".log"):
            unit = file_unit(f"{NAME}:{entry.name}", entry.path, "main")
            if unit is not None:
                yield unit


def records(unit: Unit, fh, offset):
    session_id = unit.key.split(":", 1)[1].removesuffix(".log")
    cwd = ""
    for end, line in whole_lines(fh, offset):
        said = line.decode("utf-8", "replace").rstrip("\n")
        if said.startswith("@ "):
            cwd = said[2:]
            yield end, None, ""
        elif said.startswith("> "):
            yield end, message("user", said[2:], session_id=session_id, cwd=cwd), ""
        else:
            yield end, message("assistant", said, session_id=session_id, cwd=cwd), ""
