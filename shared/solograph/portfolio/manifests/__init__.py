"""Dependencies a project declares in its package manifests: npm, pip, SPM, Gradle, Cargo,
Go modules, RubyGems (Gemfile, .gemspec), Composer and Maven.

`parse_manifest` never raises. Broken JSON or TOML, wrong types, binary or huge files give
whatever could still be read plus one message naming the problems. Swift, Gradle and Ruby
build scripts are programs, so they are read with patterns, not parsers: good enough for the
declarations people write.

Modules, one concept each: model (Package, normalize_name), tolerant (typed
reads of JSON and TOML data, TOML salvage), scripts (comment and bracket scanning for build
scripts), and one per manager family: npm, pip (pyproject.toml, setup.cfg, requirements
files), cargo, spm, gradle, golang (go.mod), ruby (Gemfile, .gemspec), composer, maven.
"""

from __future__ import annotations

import re

from solograph.portfolio.manifests.cargo import parse_cargo
from solograph.portfolio.manifests.composer import parse_composer
from solograph.portfolio.manifests.golang import parse_gomod
from solograph.portfolio.manifests.gradle import parse_gradle
from solograph.portfolio.manifests.maven import parse_pom
from solograph.portfolio.manifests.model import DEV_GROUPS, Package, normalize_name
from solograph.portfolio.manifests.npm import parse_npm
from solograph.portfolio.manifests.pip import (
    parse_pyproject,
    parse_requirements,
    parse_setup_cfg,
    requirements_dev,
)
from solograph.portfolio.manifests.ruby import parse_gemfile, parse_gemspec
from solograph.portfolio.manifests.spm import parse_spm
from solograph.portfolio.manifests.tolerant import load_toml
from solograph.text.secrets import redact

__all__ = [
    "DEV_GROUPS",
    "MAX_CHARS",
    "Package",
    "manifest_kind",
    "normalize_name",
    "parse_manifest",
]

MAX_CHARS = 1_000_000


def manifest_kind(filename: str) -> str | None:
    """The package manager a manifest file belongs to, from its name alone."""
    parts = filename.replace("\\", "/").rstrip("/").split("/")
    name = parts[-1].lower()
    parent = parts[-2].lower() if len(parts) > 1 else ""
    if name == "package.json":
        return "npm"
    if name in ("pyproject.toml", "setup.cfg"):
        return "pip"
    if re.fullmatch(r"[\w.-]*requirements[\w.-]*\.(?:txt|in)", name) or (
            parent == "requirements" and name.endswith((".txt", ".in"))):
        return "pip"
    if name == "package.swift":
        return "spm"
    if name in ("build.gradle", "build.gradle.kts"):
        return "gradle"
    if name == "cargo.toml":
        return "cargo"
    if name == "go.mod":
        return "go"
    if name in ("gemfile", "gems.rb") or name.endswith(".gemspec"):
        return "gem"
    if name == "composer.json":
        return "composer"
    if name == "pom.xml":
        return "maven"
    return None


def parse_manifest(filename: str, text: str | bytes) -> tuple[list[Package], str | None]:
    """Packages declared in one manifest, and a message when part of it could not be read."""
    problems: list[str] = []
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            problems.append("invalid UTF-8, undecodable bytes replaced")
    if not isinstance(text, str):
        return [], f"expected text, got {type(text).__name__}"
    kind = manifest_kind(filename)
    if kind is None:
        return [], f"not a known manifest: {filename}"
    if "\x00" in text:
        return [], "binary content (NUL bytes), not a manifest"
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return [], "empty file"
    if len(text) > MAX_CHARS:
        cut = text.rfind("\n", 0, MAX_CHARS)
        problems.append(f"file too large ({len(text)} chars), read the first {MAX_CHARS}")
        text = text[:cut if cut > 0 else MAX_CHARS]
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if kind == "npm":
        found = parse_npm(text, problems)
    elif kind == "cargo":
        found = parse_cargo(load_toml(text, problems), problems)
    elif kind == "spm":
        found = parse_spm(text)
    elif kind == "gradle":
        found = parse_gradle(text)
    elif kind == "go":
        found = parse_gomod(text, problems)
    elif kind == "gem":
        found = parse_gemspec(text) if name.endswith(".gemspec") else parse_gemfile(text)
    elif kind == "composer":
        found = parse_composer(text, problems)
    elif kind == "maven":
        found = parse_pom(text, problems)
    elif name == "pyproject.toml":
        found = parse_pyproject(load_toml(text, problems), problems)
    elif name == "setup.cfg":
        found = parse_setup_cfg(text, problems)
    else:
        found = parse_requirements(text, requirements_dev(filename), problems)
    return _dedupe(found), _summary(problems)


def _summary(problems: list[str]) -> str | None:
    """The problems in one message, redacted: a problem may quote the manifest's text."""
    if not problems:
        return None
    message = "; ".join(problems[:5])
    if len(problems) > 5:
        message += f"; and {len(problems) - 5} more problems"
    return redact(message)


def _dedupe(packages: list[Package]) -> list[Package]:
    """One entry per name, in first-seen order; a runtime entry wins over a dev one."""
    seen: dict[str, int] = {}
    out: list[Package] = []
    for p in packages:
        if not p.name:
            continue
        i = seen.get(p.name)
        if i is None:
            seen[p.name] = len(out)
            out.append(p)
        elif out[i].dev and not p.dev:
            out[i] = p
    return out
