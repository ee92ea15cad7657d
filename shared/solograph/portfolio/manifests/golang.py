"""Go modules: the `require` and `tool` directives of go.mod."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import Package

_DIRECTIVE = re.compile(r"^\s*(require|tool)\b\s*(\(?)\s*(.*)$")
_REQUIREMENT = re.compile(r'^\s*("?)([^\s"]+)\1\s+(v[^\s/]+)?\s*(//.*)?$')


def parse_gomod(text: str, problems: list[str]) -> list[Package]:
    """Direct requirements first, then `// indirect` ones (spec marked), then `tool` lines
    (Go 1.24: build-time only, so dev)."""
    direct: list[Package] = []
    indirect: list[Package] = []
    tools: list[Package] = []
    block: str | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if block is not None:
            if line.startswith(")"):
                block = None
                continue
            entry = line
        else:
            m = _DIRECTIVE.match(raw)
            if m is None:
                continue
            if m.group(2):
                block = m.group(1)
                continue
            block_kind, entry = m.group(1), m.group(3)
            _add(block_kind, entry, number, direct, indirect, tools, problems)
            continue
        if entry and not entry.startswith("//"):
            _add(block, entry, number, direct, indirect, tools, problems)
    if block is not None:
        problems.append(f"a {block} block is not closed")
    return direct + indirect + tools


def _add(kind: str, entry: str, number: int, direct: list[Package], indirect: list[Package],
         tools: list[Package], problems: list[str]) -> None:
    if kind == "tool":
        path = entry.split("//", 1)[0].strip().strip('"')
        if path:
            tools.append(Package("go", path, "", True))
        return
    m = _REQUIREMENT.match(entry)
    if m is None or m.group(3) is None:
        problems.append(f"line {number}: not a requirement")
        return
    comment = (m.group(4) or "").removeprefix("//").strip()
    if comment.split(";")[0].strip() == "indirect":
        indirect.append(Package("go", m.group(2), f"{m.group(3)} indirect", False))
    else:
        direct.append(Package("go", m.group(2), m.group(3), False))
