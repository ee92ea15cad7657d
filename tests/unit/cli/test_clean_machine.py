"""`make test` on a clean machine says what it needs: redis-server for the integration tests,
the corpora through SOLOGRAPH_CORPORA; what is missing is skipped with that reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_without_redis_or_corpora_the_run_says_so_and_skips_with_the_reason(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SOLOGRAPH_CORPORA", "REDIS_URL")}
    env["PATH"] = str(tmp_path)  # no redis-server on it
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs",
         "tests/unit/kb/test_kb_real.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert "redis: redis-server not found" in out and "apt-get install redis-server" in out
    assert "corpora: SOLOGRAPH_CORPORA is not set" in out
    assert "SKIPPED" in out and "set SOLOGRAPH_CORPORA" in out
    assert done.returncode == 0, out[-2000:]


def test_the_makefile_says_it_before_the_run():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = text[text.index("\ntest:"):].split("\n\n")[0]
    assert "redis-server not found" in recipe and "SOLOGRAPH_CORPORA is not set" in recipe


def _test_sources() -> list[tuple[Path, str]]:
    return [(p, p.read_text(encoding="utf-8")) for p in (ROOT / "tests").rglob("*.py")
            if p != Path(__file__).resolve()]


def test_no_test_asserts_on_wall_clock_time():
    """Speed figures live in bench/: a loaded machine must not fail a correct build."""
    import re

    clock = re.compile(r"assert[^\n]*(perf_counter|monotonic|time\.time)\(\)\s*-|"
                       r"assert[^\n]*(elapsed|started|duration)\b[^\n]*<")
    found = [f"{p.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
             for p, text in _test_sources() for m in clock.finditer(text)]
    assert found == []


def test_servers_started_by_tests_bind_free_ports():
    """The defaults (8002, 8765, 8766, 6379) may be taken on a shared machine."""
    import re

    fixed = re.compile(r'"--port",\s*"\d+"|port=\d{4}|--port \d{4}')
    found = [str(p.relative_to(ROOT)) for p, text in _test_sources() if fixed.search(text)]
    assert found == []
    script = (ROOT / "scripts" / "compose-test.sh").read_text(encoding="utf-8")
    for name in ("REDIS", "API", "MCP", "SEARCH"):
        assert f"SOLOGRAPH_TEST_{name}_PORT=${{SOLOGRAPH_TEST_{name}_PORT:-$_" in script
