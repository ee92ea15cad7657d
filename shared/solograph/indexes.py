"""The list of indexes. Every adapter (CLI, API, MCP, worker, usage, health) walks it: adding
an index is a package with the four entry modules and one line here."""

from __future__ import annotations

import importlib
from pathlib import Path

from solograph.errors import BadQuery
from solograph.index import Answer, Index, Job

PACKAGES = [
    "solograph.portfolio",
    "solograph.sessions",
    "solograph.kb",
    "solograph.sources",
]


def all_indexes() -> tuple[Index, ...]:
    found = tuple(importlib.import_module(p).INDEX for p in PACKAGES)
    for index in found:
        if index.migrations:  # an index outside the core ships its own: the store is told
            from solograph.store import add_migrations  # not at the top: `--help` opens no store

            module = importlib.import_module(index.migrations)
            add_migrations(index.name, Path(str(module.__file__)).parent / index.name)
    return found


def get(name: str) -> Index:
    for index in all_indexes():
        if index.name == name:
            return index
    raise BadQuery(f"unknown index {name!r}",
                   hint=f"one of: {', '.join(i.name for i in all_indexes())}")


def find_answer(name: str) -> tuple[Index, Answer]:
    for index in all_indexes():
        found = index.answer(name)
        if found is not None:
            return index, found
    raise BadQuery(f"unknown read {name!r}")


def all_answers() -> list[tuple[Index, Answer]]:
    return [(i, a) for i in all_indexes() for a in i.answers]


def all_jobs() -> list[tuple[Index, Job]]:
    return [(i, j) for i in all_indexes() for j in i.jobs]
