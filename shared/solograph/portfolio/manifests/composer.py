"""PHP: `require` and `require-dev` of composer.json (platform entries such as `php` and
`ext-json` are the runtime, not packages), salvaged with patterns when the JSON is broken."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import Package
from solograph.portfolio.manifests.tolerant import json_sections

_SECTIONS = (("require", False), ("require-dev", True))
_JSON_STR = r'"((?:[^"\\\n]|\\.)*)"'
_SECTION_RE = re.compile(r'"(require|require-dev)"\s*:\s*\{([^{}]*)')
_PAIR_RE = re.compile(_JSON_STR + r"\s*:\s*" + _JSON_STR)


def _platform(name: str) -> bool:
    return "/" not in name  # php, hhvm, ext-*, lib-*, composer-plugin-api


def parse_composer(text: str, problems: list[str]) -> list[Package]:
    found = json_sections(text, _SECTIONS, problems)
    if found is None:
        return _salvage(text)
    return [Package("composer", name.strip().lower(), spec.strip(), dev)
            for dev, name, spec in found if not _platform(name)]


def _salvage(text: str) -> list[Package]:
    out = []
    for m in _SECTION_RE.finditer(text):
        dev = m.group(1) == "require-dev"
        for pair in _PAIR_RE.finditer(m.group(2)):
            name = pair.group(1).strip().lower()
            if not _platform(name):
                out.append(Package("composer", name, pair.group(2).strip(), dev))
    return sorted(out, key=lambda p: p.dev)
