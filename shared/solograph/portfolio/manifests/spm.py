"""Swift Package Manager: the `.package(...)` calls of Package.swift."""

from __future__ import annotations

import re

from solograph.portfolio.manifests.model import Package
from solograph.portfolio.manifests.scripts import (
    MAX_CALL,
    paren_pairs,
    split_args,
    strip_comments,
)


def parse_spm(text: str) -> list[Package]:
    text = strip_comments(text)
    pairs = paren_pairs(text)
    out: list[Package] = []
    call = re.compile(r"\.package\s*\(")
    pos = 0
    while m := call.search(text, pos):
        close = pairs.get(m.end() - 1)
        if close is None or close - m.end() > MAX_CALL:
            pos = m.end()
            continue
        args, pos = text[m.end():close], close + 1
        labelled: dict[str, str] = {}
        rest: list[str] = []
        for part in split_args(args):
            label = re.fullmatch(r'(name|url|path|id)\s*:\s*"([^"]*)"', part)
            if label:
                labelled[label.group(1)] = label.group(2).strip()
            else:
                rest.append(re.sub(r"\s+", " ", part.replace('"', "")))
        source = labelled.get("url") or labelled.get("path") or labelled.get("id")
        if not source:
            continue
        name = labelled.get("name") or (
            re.split(r"[/:]", source.rstrip("/"))[-1].removesuffix(".git"))
        spec = f"path:{labelled['path']}" if "path" in labelled else ", ".join(rest)
        out.append(Package("spm", name, spec, False))
    return out
