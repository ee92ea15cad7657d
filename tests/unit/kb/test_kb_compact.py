"""`solograph compact`: the inbox notes ready to be compacted, from the synced index; it lists
and never writes."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import ConfigError
from solograph.kb.layout import parse_layout
from tests.support.procs import solograph_cmd

LONG = "A thought worth keeping about pricing pages. " * 60  # 2,700 characters
DAY = 86400


def write(root: Path, rel: str, text: str, *, days_old: float) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = time.time() - days_old * DAY
    os.utime(path, (when, when))
    return path


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "3-inbox/ready.md", f"# Pricing\n\n{LONG}", days_old=10)
    write(root, "3-inbox/fresh.md", f"# Fresh\n\n{LONG}", days_old=1)
    write(root, "3-inbox/short.md", "# Short\n\na line", days_old=30)
    write(root, "3-inbox/done.md", f"---\ncompacted: true\n---\n# Done\n\n{LONG}", days_old=30)
    write(root, "wiki/pricing.md", f"# Pricing\n\n{LONG}", days_old=30)
    return root


def settings_for(tmp_path: Path, kb: Path) -> Settings:
    return Settings(home=tmp_path / "home", kb_path=kb)


def test_only_long_old_uncompacted_inbox_notes_are_ready(tmp_path, kb):
    before = {p: p.stat().st_mtime_ns for p in kb.rglob("*.md")}
    answer = reads.read("kb_compact", settings_for(tmp_path, kb))
    assert [d["path"] for d in answer["documents"]] == ["3-inbox/ready.md"]
    assert answer["ready"] == answer["count"] == 1 and answer["dir"] == "3-inbox"
    doc = answer["documents"][0]
    assert doc["chars"] > 2000 and doc["age_days"] >= 9.9 and doc["why"] == ""
    assert answer["summary"].startswith("1 note in 3-inbox/ ready")
    assert {p: p.stat().st_mtime_ns for p in kb.rglob("*.md")} == before  # it wrote nothing


def test_all_says_why_each_other_note_waits(tmp_path, kb):
    answer = reads.read("kb_compact", settings_for(tmp_path, kb), include_all=True)
    why = {d["path"]: d["why"] for d in answer["documents"]}
    assert why["3-inbox/ready.md"] == ""
    assert why["3-inbox/done.md"] == "marked compacted: true"
    assert why["3-inbox/short.md"].endswith("under 2000")
    assert why["3-inbox/fresh.md"].endswith("days old, under 7")
    assert answer["count"] == 4 and answer["ready"] == 1


def test_thresholds_and_another_folder(tmp_path, kb):
    s = settings_for(tmp_path, kb)
    loose = reads.read("kb_compact", s, min_chars=5, days=0)
    assert {d["path"] for d in loose["documents"]} == {
        "3-inbox/ready.md", "3-inbox/fresh.md", "3-inbox/short.md"}
    wiki = reads.read("kb_compact", s, folder="wiki")
    assert [d["path"] for d in wiki["documents"]] == ["wiki/pricing.md"]
    missing = reads.read("kb_compact", s, folder="nowhere")
    assert missing["count"] == 0 and "kb: inbox:" in missing["warnings"][0]


def test_the_inbox_key_of_the_layout(tmp_path, kb):
    assert parse_layout("kb:\n  inbox: 0-inbox/\n").inbox == "0-inbox"
    assert parse_layout("").inbox == "3-inbox"
    with pytest.raises(ConfigError, match="kb.inbox"):
        parse_layout("kb:\n  inbox: ../elsewhere\n")
    (kb / ".solograph.yaml").write_text("kb:\n  inbox: wiki/\n", encoding="utf-8")
    answer = reads.read("kb_compact", settings_for(tmp_path, kb))
    assert [d["path"] for d in answer["documents"]] == ["wiki/pricing.md"]


def test_the_command(tmp_path, kb):
    env = {**os.environ, "SOLOGRAPH_HOME": str(tmp_path / "home"), "KB_PATH": str(kb)}
    done = subprocess.run(solograph_cmd("compact", "--json"), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [d["path"] for d in json.loads(done.stdout)["documents"]] == ["3-inbox/ready.md"]
    shown = subprocess.run(solograph_cmd("compact", "--all", "--min-chars", "100"), env=env,
                           capture_output=True, text=True, timeout=60)
    assert "3-inbox/short.md" in shown.stdout and "not ready" in shown.stdout
    assert "ready to compact" in shown.stdout
