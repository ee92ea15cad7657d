"""A kept command server for a test: a private runtime folder, the real `solograph cli-server`
in the foreground, and the environment under which commands reach it."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.procs import solograph_cmd, stop, wait_for


def private_runtime() -> Path:
    """A short path (a socket's path has a 107-byte limit), this user's alone."""
    folder = Path(tempfile.mkdtemp(prefix="sg-run-", dir="/tmp"))
    folder.chmod(0o700)
    return folder


def server_env(env: dict[str, str], runtime: Path) -> dict[str, str]:
    return {**env, "XDG_RUNTIME_DIR": str(runtime), "SOLOGRAPH_CLI_SERVER": "auto"}


def handed_over(cmd: list[str], env: dict[str, str], cwd: Path | None = None,
                stdin: bytes | None = None) -> bool:
    """Whether the kept server ran `cmd`: its own process then imports the client and no
    read and no hook."""
    out = subprocess.run(cmd, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd=cwd,
                         capture_output=True, timeout=60, input=stdin)
    return (b"command_client" in out.stderr and b"solograph.reads" not in out.stderr
            and b"solograph_services.hook" not in out.stderr)


@contextmanager
def kept_server(env: dict[str, str], runtime: Path | None = None) -> Iterator[dict[str, str]]:
    """Yields the environment whose reads the running server answers."""
    runtime = runtime or private_runtime()
    env = server_env(env, runtime)
    log = runtime / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(solograph_cmd("cli-server", "--idle", "0"), env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for("the command server listening", lambda: b"command server" in log.read_bytes()
                 or proc.poll() is not None, 60)
        assert proc.poll() is None, log.read_text()
        yield env
    finally:
        stop(proc)
        shutil.rmtree(runtime, ignore_errors=True)
