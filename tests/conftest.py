from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))  # for `tests.support`

from solograph.config import Settings  # noqa: E402

# Generated-input tests draw the same examples on every run, so a clean run never fails on an
# example nobody has seen; HYPOTHESIS_PROFILE=explore draws new ones (and keeps what fails).
hypothesis_settings.register_profile("repeatable", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# A read that finds texts waiting for vectors starts a detached embedder (the meaning lane,
# no broker): in tests it would outlive the test and its temporary home. The tests of the
# embedder turn it on themselves.
os.environ.setdefault("SOLOGRAPH_EMBEDDER", "off")

CORPORA_SKIP = ("needs the real corpora: set SOLOGRAPH_CORPORA to their folder "
                "(transcripts/, the wikis); skipped without it")


def pytest_report_header(config):
    """The SQLite in use, and what the run needs from the machine, so that a clean machine
    says why tests were skipped before they are."""
    lines = [f"sqlite {sqlite3.sqlite_version}"]
    if os.environ.get("REDIS_URL"):
        lines.append(f"redis: REDIS_URL={os.environ['REDIS_URL']}")
    elif shutil.which("redis-server"):
        lines.append(f"redis: {shutil.which('redis-server')} (started on a free port)")
    else:
        lines.append("redis: redis-server not found, so the integration tests that need a broker "
                     "are skipped: apt-get install redis-server (or set REDIS_URL)")
    corpora = os.environ.get("SOLOGRAPH_CORPORA", "")
    if corpora and Path(corpora).is_dir():
        lines.append(f"corpora: SOLOGRAPH_CORPORA={corpora}")
    else:
        lines.append("corpora: SOLOGRAPH_CORPORA is not set, so the tests on the real corpora "
                     "are skipped: set it to the corpora folder")
    return lines


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose home and scan path are inside tmp_path; nothing reads ~."""
    return Settings(home=tmp_path / "home", scan_paths=(tmp_path / "projects",),
                    claude_projects=tmp_path / "claude-projects")


@pytest.fixture
def keeping():
    """Reads in this test keep their connections, as the API and MCP server's do."""
    from solograph import readers

    readers.keep()
    yield
    readers.release()


@pytest.fixture
def corpora() -> Path:
    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    if not raw or not Path(raw).is_dir():
        pytest.skip(CORPORA_SKIP)
    return Path(raw)
