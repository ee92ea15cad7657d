#!/usr/bin/env python3
"""Secrets redaction bench: MB/s of `redact` on real text, against an older version of the
rules measured in the same run.

Three texts, each redacted whole (`--rounds` passes, the best pass counts; the two versions
take turns so that load from other processes falls on both alike):

- sessions: every message text and tool argument of the transcripts in `SOLOGRAPH_CORPORA`
  (what the session index redacts), as `solograph.sessions.records` parses them;
- kb: every markdown page of the wiki corpora (what the KB index redacts, whole pages);
- dense: the realistic fake secrets of `tests/support/secrets_corpus.py`, repeated (text where
  nearly every line holds a secret: the slow case).

The reference is the rules at a git revision (`--against`, default `main`), loaded from
`git show` into a package of its own, so no checkout changes. Without `SOLOGRAPH_CORPORA` the
first two texts are generated prose (a warning says so).

    SOLOGRAPH_CORPORA=../shared/corpora .venv/bin/python bench/secrets_bench.py
    .venv/bin/python bench/secrets_bench.py --against HEAD~3 --rounds 7 --json
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import common
from common import Figure, log

sys.path.insert(0, str(common.ROOT))

from solograph.sessions.records import decode, parse, wanted  # noqa: E402
from solograph.text import secrets as current  # noqa: E402
from solograph.text.secret_rules import RULES  # noqa: E402

RATIO_TARGET = 0.9  # the current rules at least 90% of the reference's speed on real text
RULE_FOLDER = "shared/solograph/text/"


def load_reference(rev: str) -> Callable[[str], str] | None:
    """`redact` of the rules at git revision `rev`, or None when git cannot show them."""
    folder = common.work_dir("secrets-reference")
    common.remove_tree(folder)
    package = folder / "ref_secrets"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    try:
        listed = subprocess.run(["git", "ls-tree", "--name-only", rev, RULE_FOLDER],
                                cwd=common.ROOT, check=True, capture_output=True,
                                text=True).stdout.split()
        for path in (p for p in listed if Path(p).name.startswith("secret")):
            text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=common.ROOT,
                                  check=True, capture_output=True, text=True).stdout
            text = text.replace("from solograph.text import", "from ref_secrets import")
            text = text.replace("solograph.text.secret", "ref_secrets.secret")
            (package / Path(path).name).write_text(text, encoding="utf-8")
    except (OSError, subprocess.CalledProcessError):
        return None
    sys.path.insert(0, str(folder))
    return importlib.import_module("ref_secrets.secrets").redact


def session_texts(corpora: Path) -> list[str]:
    texts: list[str] = []
    for path in sorted((corpora / "transcripts").rglob("*.jsonl")):
        with open(path, "rb") as fh:
            for line in fh:
                if not wanted(line):
                    continue
                obj = decode(line)
                rec = parse(obj) if obj is not None else None
                if rec is None:
                    continue
                if rec.text:
                    texts.append(rec.text)
                texts += [v for _, args in rec.tools for v in args.values()]
    return texts


def kb_texts(corpora: Path) -> list[str]:
    return [p.read_text(encoding="utf-8", errors="replace")
            for p in sorted((corpora / "wiki").rglob("*.md"))]


def generated(n: int) -> list[str]:
    prose = ("the token budget of a session is spent on reading files, and a key decision "
             "was to pass the password through the environment; see https://example.org/x "
             "for the secret sauce: ranking, stemming, and `git push` after review")
    words = prose.split(" ")
    return [" ".join(words[(i * 7 + j) % len(words)] for j in range(60)) for i in range(n)]


def dense_texts(copies: int) -> list[str]:
    from tests.support.secrets_corpus import NEGATIVES, OTHER, PROMISED

    lines = [c.text for c in PROMISED + OTHER] + [text for _, text in NEGATIVES]
    return ["\n".join(lines)] * copies


def throughput(redact: Callable[[str], str], texts: list[str]) -> float:
    """CPU seconds of one pass over texts."""
    started = time.process_time()
    for text in texts:
        redact(text)
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="main", help="git revision of the reference rules")
    parser.add_argument("--rounds", type=int, default=7, help="passes per text; the best counts")
    parser.add_argument("--json", action="store_true", help="figures as JSON on stdout")
    args = parser.parse_args(argv)

    corpora = os.environ.get("SOLOGRAPH_CORPORA")
    if corpora and Path(corpora).is_dir():
        # The transcripts hold 0.7 MB of text: four copies make a pass long enough to time.
        sets = {"sessions": session_texts(Path(corpora)) * 4, "kb": kb_texts(Path(corpora))}
    else:
        log("SOLOGRAPH_CORPORA is not set: generated prose stands in for sessions and kb")
        sets = {"sessions": generated(20_000), "kb": generated(5_000)}
    sets["dense"] = dense_texts(20)
    reference = load_reference(args.against)
    if reference is None:
        log(f"the rules at {args.against!r} cannot be read from git: no reference")
    versions = {"current": current.redact, **({"reference": reference} if reference else {})}

    figures: list[Figure] = []
    for name, texts in sets.items():
        size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        best = {v: float("inf") for v in versions}
        for _ in range(args.rounds):
            for version, redact in versions.items():
                best[version] = min(best[version], throughput(redact, texts))
        rate = {v: size / best[v] for v in versions}
        figures.append(Figure(f"{name}: {len(texts):,} texts, {size:.1f} MB, current",
                              rate["current"], "MB/s", key=f"{name}_mb_s"))
        if reference:
            figures.append(Figure(f"{name}: reference ({args.against})", rate["reference"],
                                  "MB/s", key=f"{name}_reference_mb_s"))
            ratio = rate["current"] / rate["reference"]
            real = name != "dense"
            figures.append(Figure(f"{name}: current / reference", ratio, "x",
                                  target=f">= {RATIO_TARGET}" if real else "",
                                  ok=ratio >= RATIO_TARGET if real else None,
                                  key=f"{name}_ratio"))
    context = {"against": args.against, "rounds": args.rounds, "rules": len(RULES),
               "rules_version": current.RULES_VERSION, "cpus": os.cpu_count(),
               "load": os.getloadavg()}
    if args.json:
        print(common.figures_json(figures, **context))
    else:
        print(f"secrets bench: {len(RULES)} rules (version {current.RULES_VERSION}), "
              f"best of {args.rounds} passes, CPU time; load {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs")
        print(common.figures_table(figures))
    return 0 if all(f.ok for f in figures if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
