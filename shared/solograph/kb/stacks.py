"""Stack templates: YAML files in the folder `kb: stacks:` names, for "which stack for X?".

A prompt asks for a stack when it says so ("which stack for", "what tech stack", "какой стек",
"стек для"). The template whose name, description and values share the most words with the
rest of the prompt is named; when none shares a word, the templates are listed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from solograph.text.tokens import stems

ASKS = re.compile(
    r"\b(?:which|what|best|recommend\w*)\s+(?:\w+\s+){0,2}stack\b|\bstack\s+(?:for|to)\b"
    r"|\bкак(?:ой|ую|ие)\s+(?:\w+\s+){0,2}стек|\bстек\s+(?:для|под)\b", re.IGNORECASE)
STACK_WORDS = frozenset(stems("which what stack tech technology for best recommend какой "
                              "стек для под"))
MAX_LISTED = 8
MAX_BYTES = 200_000


@dataclass(frozen=True)
class Template:
    path: str  # relative to the KB root
    name: str
    description: str
    words: frozenset[str]


def asks_for_stack(prompt: str) -> bool:
    return bool(ASKS.search(prompt))


def templates(root: Path, folder: str) -> list[Template]:
    """Every *.yaml / *.yml template in root/folder (a broken one is skipped)."""
    import yaml  # only for a prompt that asks for a stack

    base = root / folder
    out = []
    for path in sorted([*base.rglob("*.yaml"), *base.rglob("*.yml")]):
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, yaml.YAMLError):
            continue
        if not isinstance(data, dict):
            continue
        name = str(data.get("name") or data.get("title") or path.stem)
        description = str(data.get("description") or data.get("summary") or "")
        text = " ".join([name, description, path.stem, *_values(data)])
        out.append(Template(path.relative_to(root).as_posix(), name, description,
                            frozenset(stems(text))))
    return out


def _values(data: object) -> list[str]:
    if isinstance(data, dict):
        return [v for k, x in data.items() for v in (str(k), *_values(x))]
    if isinstance(data, list):
        return [v for x in data for v in _values(x)]
    return [str(data)] if data is not None else []


def answer(prompt: str, found: list[Template], root: Path) -> str | None:
    """The line for a stack question, or None when the KB has no template."""
    if not found:
        return None
    wanted = set(stems(prompt)) - STACK_WORDS
    scored = sorted(((len(wanted & t.words), t) for t in found),
                    key=lambda x: (-x[0], x[1].path))
    best_score, best = scored[0]
    if best_score:
        about = f" ({best.description})" if best.description else ""
        return (f"The KB has a stack template for this: {best.name}{about}, in "
                f"{root / best.path}. Start from it.")
    listed = ", ".join(f"{root / t.path} ({t.name})" for t in found[:MAX_LISTED])
    return f"The KB keeps stack templates; pick one before choosing a stack: {listed}."
