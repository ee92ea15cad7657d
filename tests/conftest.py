from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for `tests.support`

from solograph.config import Settings  # noqa: E402


def pytest_report_header(config):
    return f"sqlite {sqlite3.sqlite_version}"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose home and scan path are inside tmp_path; nothing reads ~."""
    return Settings(home=tmp_path / "home", scan_paths=(tmp_path / "projects",),
                    claude_projects=tmp_path / "claude-projects")


@pytest.fixture
def corpora() -> Path:
    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    if not raw or not Path(raw).is_dir():
        pytest.skip("SOLOGRAPH_CORPORA is not set")
    return Path(raw)
