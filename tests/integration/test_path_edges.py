"""A path parameter the file system refuses (a name of 300 characters: ENAMETOOLONG) is the
client's error: 400 `bad_path` from the API, a message and exit 2 from the command line, never
a 500 or a traceback. Before, `GET /v1/kb/compact?dir=` with such a name answered 500."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadPath
from solograph.kb.sync import index_kb
from solograph_services.api.app import create_app
from tests.support import procs
from tests.support.kb import make_kb

LONG = "a" * 300


@pytest.fixture(scope="module")
def kb_home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("paths")
    settings = Settings(home=base / "home", kb_path=make_kb(base),
                        claude_projects=base / "claude-projects")
    (base / "claude-projects").mkdir()
    index_kb(settings)
    return settings


def test_a_name_too_long_is_a_bad_path_in_the_core(kb_home: Settings):
    with pytest.raises(BadPath) as caught:
        reads.read("kb_compact", kb_home, folder=LONG)
    assert caught.value.code == "bad_path" and "too long" in caught.value.message
    assert caught.value.hint
    assert reads.read("kb_compact", kb_home, folder="3-inbox")["count"] >= 0  # still answers


@pytest.mark.parametrize("folder", [LONG, f"wiki/{LONG}"])
def test_the_api_answers_400_for_a_path_the_file_system_refuses(kb_home: Settings, folder):
    with TestClient(create_app(kb_home), base_url="http://127.0.0.1:8765") as c:
        answer = c.get("/v1/kb/compact", params={"dir": folder})
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "bad_path"
        assert c.get("/v1/kb/compact").status_code == 200


@pytest.mark.integration
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_the_command_line_says_so_and_exits_2(kb_home: Settings, json_flag: list[str]):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "KB_PATH"))}
    env |= {"SOLOGRAPH_HOME": str(kb_home.home), "KB_PATH": str(kb_home.kb_path),
            "SOLOGRAPH_CLI_SERVER": "off"}
    run = subprocess.run(procs.solograph_cmd("compact", "--dir", LONG, *json_flag), env=env,
                         capture_output=True, text=True, timeout=60, cwd=Path(kb_home.kb_path))
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert "cannot be used: File name too long" in run.stderr
    if json_flag:
        assert json.loads(run.stdout)["error"] == "bad_path"
