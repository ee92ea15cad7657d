"""What a manifest declares: one Package per dependency, and the error for a broken manifest."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Extras, groups and requirement file names that mean "only while developing".
DEV_GROUPS = frozenset({
    "dev", "develop", "development", "test", "tests", "testing", "lint", "linting",
    "docs", "doc", "typing",
})


@dataclass(frozen=True, slots=True)
class Package:
    manager: str  # npm | pip | spm | gradle | cargo | go | gem | composer | maven
    name: str  # normalized, see normalize_name
    spec: str  # version constraint as written, "" when none, or "path:…", "git:…", "url:…"
    dev: bool  # dev, test or build-only dependency


def normalize_name(manager: str, name: str) -> str:
    """The form stored in Package.name; use it on queries too (`Flask_SQLAlchemy` -> pip)."""
    name = name.strip()
    if manager == "pip":
        return re.sub(r"[-_.]+", "-", name).lower()
    return name
