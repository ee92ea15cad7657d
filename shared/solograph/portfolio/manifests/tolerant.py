"""Reading parsed JSON and TOML data that may have the wrong shape, and TOML that does not
parse: every problem is appended to `problems` and reading goes on with what is left."""

from __future__ import annotations

import json
import re
import tomllib
from itertools import accumulate
from typing import Any

# JSON and TOML nested deeper than this are not given to their parsers (which recurse):
# real manifests nest a handful of levels.
MAX_NESTING = 64
_OPENERS = str.maketrans({"[": "+", "{": "+", "]": "-", "}": "-"})


def too_deep(text: str) -> bool:
    """Brackets nested past MAX_NESTING (strings not told apart: an upper bound will do)."""
    brackets = "".join(c for c in text if c in "[]{}") if len(text) < 4096 else re.sub(
        r"[^\[\]{}]+", "", text)
    if len(brackets) <= MAX_NESTING:
        return False
    steps = brackets.translate(_OPENERS)
    return max(accumulate(1 if c == "+" else -1 for c in steps)) > MAX_NESTING


def type_name(value: object) -> str:
    names: dict[type, str] = {dict: "mapping", list: "list", str: "string"}
    return names.get(type(value), type(value).__name__)


def get_typed(table: dict, key: str, expected: type, where: str, problems: list[str]) -> Any:
    """table[key] when it has the expected type, else an empty one (and a problem if present)."""
    value = table.get(key)
    if value is None:
        return expected()
    if not isinstance(value, expected):
        problems.append(f"{where}: expected {type_name(expected())}, got {type_name(value)}")
        return expected()
    return value


def source_spec(value: object, *, version_key: str) -> str | None:
    """The spec of a Poetry or Cargo dependency value: a string, or a table naming a source."""
    if isinstance(value, str):
        return value.strip()
    if not isinstance(value, dict):
        return None
    if value.get("workspace") is True:
        return "workspace"
    for key in ("path", "git", "url"):
        if isinstance(value.get(key), str):
            return f"{key}:{value[key]}"
    version = value.get(version_key)
    return version.strip() if isinstance(version, str) else ""


# TOML ---------------------------------------------------------------------------------------

_TOML_ERROR_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def load_toml(text: str, problems: list[str]) -> dict:
    if too_deep(text):
        problems.append(f"nested deeper than {MAX_NESTING} levels: read table by table")
    else:
        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            problems.append(f"invalid TOML: {exc}")
    # Salvage table by table, so a typo under [tool.black] keeps [project] readable.
    merged: dict = {}
    chunks = re.split(r"\n(?=\[)", "\n" + text)
    for chunk in chunks:
        data = _load_toml_chunk(chunk)
        if data:
            _merge(merged, data)
    return merged


def _load_toml_chunk(chunk: str) -> dict | None:
    if too_deep(chunk):
        return None
    lines = chunk.split("\n")
    for _ in range(8):
        try:
            return tomllib.loads("\n".join(lines))
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            m = _TOML_ERROR_LINE.search(str(exc))
            bad = int(m.group(1)) - 1 if m else -1
            # A broken header would move its keys to another table: drop the whole table.
            if bad < 0 or bad >= len(lines) or lines[bad].lstrip().startswith("["):
                return None
            del lines[bad]
    return None


def _merge(into: dict, data: dict) -> None:
    for key, value in data.items():
        old = into.get(key)
        if old is None:
            into[key] = value
        elif isinstance(old, dict) and isinstance(value, dict):
            _merge(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            old.extend(value)


def json_sections(text: str, sections: tuple[tuple[str, bool], ...],
                  problems: list[str]) -> list[tuple[bool, str, str]] | None:
    """(dev, name, version spec) of each dependency in a JSON manifest's `sections`
    (package.json, composer.json); None when the text is too deep or not JSON, for the caller
    to read with patterns. A wrong type is a problem, the rest is still read."""
    if too_deep(text):
        problems.append(f"nested deeper than {MAX_NESTING} levels: read with patterns")
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        problems.append(f"invalid JSON: {exc}")
        return None
    if not isinstance(data, dict):
        problems.append(f"expected a JSON object, got {type_name(data)}")
        return []
    found = []
    for section, dev in sections:
        for name, spec in get_typed(data, section, dict, section, problems).items():
            if isinstance(spec, str):
                found.append((dev, name, spec))
            else:
                problems.append(f"{section}.{name}: expected string, got {type_name(spec)}")
    return found
