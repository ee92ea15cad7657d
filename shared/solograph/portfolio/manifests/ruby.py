"""Ruby: the `gem` lines of a Gemfile and the dependency calls of a .gemspec. Both are Ruby
programs, read with patterns over their lines: good enough for the declarations people
write, never executed."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import DEV_GROUPS, Package

_STR = r"""(?:"([^"\n]*)"|'([^'\n]*)')"""
_GEM = re.compile(rf"^\s*gem\s*\(?\s*{_STR}(.*)$")
_GROUP = re.compile(r"^\s*group\s*\(?\s*(.+?)\)?\s+do\b")
_BLOCK_OPEN = re.compile(r"\bdo\s*(\|[^|]*\|)?\s*(#.*)?$|^\s*(if|unless|case|begin|while|until)\b")
_END = re.compile(r"^\s*end\b")
_VERSION = re.compile(rf"^\s*,\s*{_STR}")
_OPTION_GROUP = re.compile(r"\bgroups?\s*(?::|=>)\s*(\[[^\]]*\]|:\w+|\"\w+\"|'\w+')")
_SOURCE = re.compile(r"\b(path|git|github)\s*(?::|=>)\s*" + _STR)
_GEMSPEC = re.compile(
    rf"\.add_(runtime_|development_)?dependency\s*\(?\s*{_STR}((?:\s*,\s*{_STR})*)")
_SYMBOL = re.compile(r":(\w+)|[\"'](\w+)[\"']")
MAX_BLOCKS = 64


def _groups(text: str) -> set[str]:
    return {a or b for a, b in _SYMBOL.findall(text)}


def _versions(rest: str) -> list[str]:
    found = []
    while m := _VERSION.match(rest):
        found.append(m.group(1) if m.group(1) is not None else m.group(2))
        rest = rest[m.end():]
    return found


def parse_gemfile(text: str) -> list[Package]:
    out: list[Package] = []
    blocks: list[bool] = []  # per open block: is it a dev group
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        group = _GROUP.match(line)
        if group:
            if len(blocks) < MAX_BLOCKS:
                blocks.append(bool(_groups(group.group(1)) & DEV_GROUPS))
            continue
        if _END.match(line):
            if blocks:
                blocks.pop()
            continue
        gem = _GEM.match(line)
        if gem is None:
            if _BLOCK_OPEN.search(line) and len(blocks) < MAX_BLOCKS:
                blocks.append(bool(blocks) and blocks[-1])
            continue
        name = gem.group(1) if gem.group(1) is not None else gem.group(2)
        rest = gem.group(3)
        option = _OPTION_GROUP.search(rest)
        dev = any(blocks) or bool(option and _groups(option.group(1)) & DEV_GROUPS)
        source = _SOURCE.search(rest)
        if source:
            kind = "path" if source.group(1) == "path" else "git"
            spec = f"{kind}:{source.group(2) if source.group(2) is not None else source.group(3)}"
        else:
            spec = ", ".join(_versions(rest))
        out.append(Package("gem", name.strip(), spec, dev))
    return out


def parse_gemspec(text: str) -> list[Package]:
    out: list[Package] = []
    for m in _GEMSPEC.finditer(text):
        name = m.group(2) if m.group(2) is not None else m.group(3)
        versions = [a or b for a, b in re.findall(_STR, m.group(4) or "")]
        out.append(Package("gem", name.strip(), ", ".join(versions),
                           m.group(1) == "development_"))
    return out
