"""Redaction on pathological input: the time for each input against the same input four times
shorter, measured in the same run. A linear rule set keeps the ratio near 4; a backtracking
rule shows up as a ratio far above it (or as a run that never ends).

    .venv/bin/python bench/secrets_linear_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "shared"))

from solograph.text.secrets import redact  # noqa: E402

# (name, unit repeated, repeats): the same shapes as tests/unit/text/test_secrets.py.
CASES = [
    ("key blocks", "-----BEGIN RSA PRIVATE KEY-----", 2000),
    ("key body", "A", 200_000),
    ("password=", "password=", 20_000),
    ("connection string", "a:", 50_000),
    ("token: x", "x", 200_000),
    ("sk- runs", "a1B2-", 40_000),
    ("jira token is", "jira token is ", 20_000),
    ("ppk lines", "QUFB" * 16 + "\n", 20_000),
    ("client(", "client(", 30_000),
    ("-usNN", "-us12", 40_000),
    (".atlasv1.", ".atlasv1.", 30_000),
    ("sentry hex", "0a", 100_000),
]
PREFIX = {"key body": "-----BEGIN RSA PRIVATE KEY-----\n", "connection string": "://",
          "token: x": "token: ", "sk- runs": "sk-",
          "ppk lines": "Private-Lines: 1\n", "sentry hex": "://"}
SUFFIX = {"connection string": "@", "sentry hex": "@"}


def seconds(text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        redact(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    print(f"{'input':<20} {'full ms':>9} {'quarter ms':>11} {'ratio':>7}  (linear: about 4)")
    for name, unit, repeats in CASES:
        def text(n: int, name: str = name, unit: str = unit) -> str:
            return PREFIX.get(name, "") + unit * n + SUFFIX.get(name, "")
        full, quarter = seconds(text(repeats)), seconds(text(repeats // 4))
        print(f"{name:<20} {full * 1000:>9.1f} {quarter * 1000:>11.1f} "
              f"{full / max(quarter, 1e-9):>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
