"""The alias table, wiki/_aliases.yaml: other spellings of a term, the term the KB writes last.

    - [песочница, sandbox]
    - [агент, agent]

A query word matching an earlier member by stem also searches the last member; the last
expands to nothing. One way on purpose: expanding both ways sent English queries to Russian
pages. Every member's spelling joins the typo vocabulary, so a misspelt alias still expands.
The parsed table is cached in the index beside the file's stat, so the hook never parses YAML
for an unchanged table. A table that cannot be read is no table: searches run without aliases
and say why (`problem`), they never fail for it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path

from solograph.errors import ConfigError
from solograph.frozen import Frozen, factory
from solograph.store import get_meta, set_meta
from solograph.text.spelling import edit_distance, max_edits
from solograph.text.tokens import stems

ALIASES_FILE = "_aliases.yaml"
MIN_TYPO_LEN = 5


class AliasTable(Frozen):
    groups: tuple[tuple[str, ...], ...] = ()
    members: dict[tuple[str, ...], tuple[str, ...]] = factory(default_factory=dict)
    problem: str = ""  # why the file's table is not used (invalid YAML, a bad group, unreadable)

    @classmethod
    def of(cls, groups: list[list[str]], problem: str = "") -> AliasTable:
        members: dict[tuple[str, ...], tuple[str, ...]] = {}
        for group in groups:
            target = tuple(stems(group[-1]))
            if not target:
                continue
            for member in group[:-1]:
                key = tuple(stems(member))
                if key and key != target:
                    members.setdefault(key, target)
        return cls(tuple(tuple(g) for g in groups), members, problem)

    def __len__(self) -> int:
        return len(self.groups)

    def expand(self, query: list[str]) -> dict[tuple[str, ...], tuple[str, ...]]:
        """{member stems found in the query: the last member's stems to search as well}."""
        have = set(query)
        return {m: t for m, t in self.members.items() if set(m) <= have and not set(t) <= have}

    def vocabulary(self) -> set[str]:
        out: set[str] = set()
        for member, target in self.members.items():
            out.update(member)
            out.update(target)
        return out

    def respell(self, term: str) -> str | None:
        """A member stem one edit from `term` (two from 8 letters), for a rare query word."""
        if len(term) < MIN_TYPO_LEN:
            return None
        limit = max_edits(term)
        best = sorted((edit_distance(term, w, limit), w) for w in self.vocabulary()
                      if w != term and abs(len(w) - len(term)) <= limit)
        return best[0][1] if best and best[0][0] <= limit else None


def aliases_path(root: Path, pages: str) -> Path:
    return root / pages / ALIASES_FILE if pages else root / ALIASES_FILE


def load(conn: sqlite3.Connection, path: Path) -> AliasTable:
    """The table at `path` (empty when there is none), parsed again only when it changed; a
    table that cannot be used is empty, with its `problem` (cached like a good one)."""
    try:
        st = os.stat(path)
        stat = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return AliasTable()
    row = get_meta(conn, "aliases")
    if row is not None:
        cached = json.loads(row)
        if cached.get("stat") == stat and cached.get("path") == str(path.resolve()):
            return AliasTable.of(cached["groups"], cached.get("problem", ""))
    groups, problem = [], ""
    try:
        groups = parse(path.read_text(encoding="utf-8", errors="replace"), str(path))
    except ConfigError as exc:
        problem = f"{exc.message}; searching without aliases"
    except OSError as exc:
        problem = f"{path}: cannot be read ({exc.strerror}); searching without aliases"
    value = json.dumps({"stat": stat, "path": str(path.resolve()), "groups": groups,
                        "problem": problem}, ensure_ascii=False)
    with contextlib.suppress(sqlite3.OperationalError):  # read-only or busy: parse next time
        set_meta(conn, "aliases", value)
    return AliasTable.of(groups, problem)


def parse(text: str, where: str = ALIASES_FILE) -> list[list[str]]:
    """Groups from the YAML text: a list of lists of two or more spellings."""
    import yaml  # only when the table changed

    from solograph import bounded_yaml

    try:
        data = bounded_yaml.load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: invalid YAML: {exc}",
                          hint="one group per line: - [песочница, sandbox]") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise ConfigError(f"{where}: expected a list of groups",
                          hint="one group per line: - [песочница, sandbox]")
    groups = []
    for number, group in enumerate(data, 1):
        members = ([str(m).strip() for m in group if str(m).strip()]
                   if isinstance(group, list)
                   and all(isinstance(m, str | int | float) for m in group) else [])
        if len(members) < 2:
            raise ConfigError(f"{where}: group {number} must list two or more spellings, "
                              f"got {_short(group)}", hint="- [песочница, sandbox]")
        groups.append(members)
    return groups


def _short(value: object) -> str:
    import reprlib  # only for the error message: aliases can make a list of gigabytes

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, 80, 80
    return short.repr(value)


def to_yaml(groups: list[list[str]]) -> str:
    """Groups as the file holds them, one flow list a line, in YAML that reads back as the
    same groups whatever a member holds (`?`, `:`, `#`, quotes, brackets, a leading `-`).
    Whitespace inside a member becomes one space, and a group left with fewer than two
    spellings is not written: the file must always load, or every search would fail."""
    import yaml  # only for `kb-aliases --suggest`

    out = []
    for group in groups:
        members = [m for m in dict.fromkeys(" ".join(str(m).split()) for m in group) if m]
        if len(members) >= 2:
            out.append(yaml.safe_dump([members], default_flow_style=None, allow_unicode=True,
                                      width=_ONE_LINE))
    return "".join(out)


_ONE_LINE = 2**31 - 1  # no folding: one group stays on one line
