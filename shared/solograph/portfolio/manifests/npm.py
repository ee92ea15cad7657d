"""npm: the dependency sections of package.json, salvaged with patterns when the JSON is broken."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import Package
from solograph.portfolio.manifests.tolerant import json_sections

_NPM_SECTIONS = (("dependencies", False), ("peerDependencies", False),
                 ("optionalDependencies", False), ("devDependencies", True))
_JSON_STR = r'"((?:[^"\\\n]|\\.)*)"'
_NPM_SECTION_RE = re.compile(r'"(' + "|".join(s for s, _ in _NPM_SECTIONS) + r')"\s*:\s*\{([^{}]*)')
_JSON_PAIR_RE = re.compile(_JSON_STR + r"\s*:\s*" + _JSON_STR)


def parse_npm(text: str, problems: list[str]) -> list[Package]:
    found = json_sections(text, _NPM_SECTIONS, problems)
    if found is None:
        return _npm_salvage(text)
    return [Package("npm", name.strip(), spec.strip(), dev) for dev, name, spec in found]


def _npm_salvage(text: str) -> list[Package]:
    """Dependency sections of a broken package.json, read as patterns up to the first brace."""
    found: list[tuple[int, Package]] = []
    for order, (section, dev) in enumerate(_NPM_SECTIONS):
        for m in _NPM_SECTION_RE.finditer(text):
            if m.group(1) != section:
                continue
            for pair in _JSON_PAIR_RE.finditer(m.group(2)):
                name, spec = pair.group(1).strip(), pair.group(2).strip()
                found.append((order, Package("npm", name, spec, dev)))
    return [p for _, p in sorted(found, key=lambda item: item[0])]
