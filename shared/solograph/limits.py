"""Bounds on what a query may ask, checked where a read turns it into SQL: a project name or a
folder of 50,000 characters is a mistake (or an attack), and SQLite refuses LIKE patterns past
50,000 bytes with an error that would otherwise surface as an internal one."""

from __future__ import annotations

from solograph.errors import BadQuery

MAX_NAME_CHARS = 1_000  # a project name, a folder path, a page reference, a session id


def bounded(what: str, value: str | None, *, most: int = MAX_NAME_CHARS) -> str | None:
    """`value` itself, or BadQuery when it is longer than `most` characters."""
    if value is not None and len(value) > most:
        raise BadQuery(f"{what} is {len(value):,} characters long; at most {most:,} are accepted",
                       hint=f"give the {what} itself, not text that holds it")
    return value
