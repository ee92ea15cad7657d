"""/health of the API and of the MCP gateway shows transcripts this process may not read (a
wrong SOLOGRAPH_UID), from a look at the folder, without syncing it.

Tests run as root, which opens any file, so the wrong-uid case is made for real: a child
process builds both apps, calls each /health once as root on a readable folder (so every module
is imported while the interpreter's own folder is still readable), then drops to an
unprivileged uid and calls them again over transcripts owned by root with Claude Code's mode
0600 and one folder closed. Run as another user, chmod alone makes the case.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.transcripts import Transcripts

_CHILD = """
import json, os, sys
from pathlib import Path
from starlette.testclient import TestClient
from solograph.config import Settings
from solograph_services.api.app import create_app
from solograph_services.mcp.server import http_app

home, projects, warm = (Path(a) for a in sys.argv[1:4])

def healths(settings):
    out = {}
    for name, app in (("api", create_app(settings)), ("mcp", http_app(settings))):
        with TestClient(app, base_url="http://127.0.0.1") as client:
            r = client.get("/health")
            out[name] = {"status": r.status_code, **r.json()}
    return out

healths(Settings(home=warm, claude_projects=warm))
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
print(json.dumps(healths(Settings(home=home, claude_projects=projects))))
"""


def test_health_shows_transcripts_this_process_cannot_read():
    base = Path(tempfile.mkdtemp(prefix="solograph-health-"))
    try:
        base.chmod(0o755)
        t = Transcripts(base / "projects")
        t.conversation("/home/dev/code/app", "the webhook retry")
        t.conversation("/home/dev/code/app2", "readable one")
        closed = t.conversation("/home/dev/code/other", "another webhook").path.parent
        for f in t.root.rglob("*.jsonl"):
            f.chmod(0o600 if os.geteuid() == 0 else 0)
        (t.root / "-home-dev-code-app2").chmod(0o755)
        next((t.root / "-home-dev-code-app2").glob("*.jsonl")).chmod(0o644)
        closed.chmod(0o700 if os.geteuid() == 0 else 0)
        home, warm = base / "home", base / "warm"
        for folder in (home, warm):
            folder.mkdir()
            folder.chmod(0o777)
        out = subprocess.run([sys.executable, "-c", _CHILD, str(home), str(t.root), str(warm)],
                             capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert out.returncode == 0, out.stderr
        for service, health in json.loads(out.stdout).items():
            # Still healthy (it answers), but it says what it cannot see and why.
            assert (health["status"], health["ok"]) == (200, True), (service, health)
            folder = health["folders"]["sessions"]
            assert folder["present"] and folder["unreadable"] == 2, (service, folder)
            assert folder["files"] == 2  # the two it could list: one open, one closed
            assert any("cannot be read by this process" in w and "SOLOGRAPH_UID" in w
                       for w in health["warnings"]), (service, health)
        assert not (home / "sessions.db").exists()  # looked at, not synced
    finally:
        for p in base.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(base)
