"""Bounds on what a query may ask, checked where a read turns it into SQL: a project name or a
folder of 50,000 characters is a mistake (or an attack), and SQLite refuses LIKE patterns past
50,000 bytes with an error that would otherwise surface as an internal one."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from solograph.errors import BadPath, BadQuery

MAX_NAME_CHARS = 1_000  # a project name, a folder path, a page reference, a session id


def bounded(what: str, value: str | None, *, most: int = MAX_NAME_CHARS) -> str | None:
    """`value` itself, or BadQuery when it is longer than `most` characters."""
    if value is not None and len(value) > most:
        raise BadQuery(f"{what} is {len(value):,} characters long; at most {most:,} are accepted",
                       hint=f"give the {what} itself, not text that holds it")
    return value


# What the file system answers for a path a query made up, and never for a store's own files.
PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ELOOP, errno.EILSEQ})


def bad_path(exc: OSError) -> BadPath | None:
    """The query's error for an OS error one of its paths caused; None for any other."""
    if exc.errno not in PATH_ERRNOS:
        return None
    return BadPath(f"a path in the query cannot be used: {exc.strerror}",
                   hint="give a path inside the folder, each name under 255 bytes")


@contextmanager
def paths_from_query() -> Iterator[None]:
    """Around code that turns a query's values into paths: their OS errors become BadPath."""
    try:
        yield
    except OSError as exc:
        translated = bad_path(exc)
        if translated is None:
            raise
        raise translated from None
