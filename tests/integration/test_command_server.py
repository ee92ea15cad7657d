"""The kept command server: a read handed to it answers exactly as the same command in its
own process (stdout, stderr and exit status), runs in the server and not in the client, takes
the command's folder and environment, and the server starts by itself, leaves when idle, and
steps aside when its code changes. Real processes throughout: the console script, the server,
the Unix socket."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph.config import Settings
from solograph.kb.sync import index_kb
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.sessions.sync import sync_sessions
from solograph_services.cli import command_client, command_server
from tests.support.command_server import (
    handed_over,
    kept_server,
    private_runtime,
    server_env,
)
from tests.support.kb import make_kb
from tests.support.portfolio import make_portfolio
from tests.support.procs import solograph_cmd, wait_for
from tests.support.transcripts import Transcripts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("kept")
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        kb_path=make_kb(base), claude_projects=base / "claude-projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    Transcripts(settings.claude_projects).conversation(
        "/home/dev/code/web-app", "fix the webhook retry in billing", "The retry backs off.")
    sync_sessions(settings)
    index_kb(settings)
    return settings


def base_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_PATH", "CODEGRAPH_", "XDG_"))}
    return {**env, "SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path),
            "CLAUDE_PROJECTS_PATH": str(settings.claude_projects),
            "CODEGRAPH_SCAN_PATH": str(settings.scan_paths[0]), "SOLOGRAPH_SEMANTIC": "off"}


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None,
        stdin: bytes | None = None):
    out = subprocess.run(solograph_cmd(*argv), env=env, cwd=cwd, capture_output=True,
                         timeout=60, input=stdin)
    return out.returncode, out.stdout, out.stderr


def served(argv: list[str], env: dict[str, str], cwd: Path | None = None,
           stdin: bytes | None = None) -> bool:
    return handed_over(solograph_cmd(*argv), env, cwd, stdin)


COMMANDS = [
    ["symbols", "auth middleware", "--json"],
    ["symbols", "auth middleware"],
    ["symbols", "zzzqqq"],
    ["symbols"],  # a usage error: exit 2 and argparse's message
    ["symbols", "auth", "-n", "many"],
    ["sessions", "webhook retry", "--json"],
    ["sessions", "webhook retry"],
    ["kb", "sandbox", "--json"],
    ["kb", "get", "no/such-page.md"],  # a domain error: exit 1 and its hint
    ["explain", "web-app"],
    ["stats", "--json"],
    ["kb-graph", "--check"],
    ["sources", "search", "pricing", "--json"],  # no sources index here: an error
    ["sessions", "--help"],
]


@pytest.fixture(scope="module")
def server(world):
    with kept_server(base_env(world)) as env:
        yield env


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_read_answers_as_in_its_own_process(world, server, argv):
    own = run(argv, {**base_env(world), "SOLOGRAPH_CLI_SERVER": "off"})
    assert run(argv, server) == own
    assert served(argv, server)


def hook_events(world: Settings, session: str) -> list[bytes]:
    """The map is given once per session: each run of a pair gets its own."""
    cwd = str(world.scan_paths[0] / "web-app")
    return [json.dumps({"hook_event_name": "SessionStart", "session_id": session + "1",
                        "cwd": cwd, "source": "startup"}).encode(),
            json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": session + "2",
                        "cwd": cwd, "prompt": "how do we sandbox the agent?"}).encode(),
            b"{not json", b""]


def test_the_hook_answers_as_in_its_own_process(world, server):
    argv = ["hook", "--kb-path", str(world.kb_path)]
    answers = []
    for event, twin in zip(hook_events(world, "own"), hook_events(world, "kept"), strict=True):
        own = run(argv, {**base_env(world), "SOLOGRAPH_CLI_SERVER": "off"}, stdin=event)
        assert run(argv, server, stdin=twin) == own
        assert own[0] == 0 and own[2] == b""
        answers.append(own[1])
    assert b"additionalContext" in answers[0]  # the project map at SessionStart
    assert answers[2:] == [b"", b""]  # garbage and nothing: silence, exit 0
    assert served(argv, server, stdin=hook_events(world, "proof")[0])


def test_the_folder_and_the_environment_are_the_commands(world, server, tmp_path):
    env = {k: v for k, v in server.items() if k != "KB_PATH"}
    kb = world.kb_path
    own = run(["kb", "sandbox", "--json"], {**env, "SOLOGRAPH_CLI_SERVER": "off"}, cwd=kb)
    assert own[0] == 0 and b'"results":[{' in own[1]  # the KB is the current folder
    assert run(["kb", "sandbox", "--json"], env, cwd=kb) == own
    assert served(["kb", "sandbox", "--json"], env, cwd=kb)
    empty = {**server, "SOLOGRAPH_HOME": str(tmp_path / "nothing-here")}
    answer = run(["symbols", "auth", "--json"], empty)
    assert answer == run(["symbols", "auth", "--json"], {**empty, "SOLOGRAPH_CLI_SERVER": "off"})
    assert answer[0] != 0 and b"index not found" in answer[2]


def test_a_reader_that_closed_the_pipe_is_no_traceback(server):
    proc = subprocess.Popen(solograph_cmd("symbols", "auth"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=server)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()


def test_writes_run_in_their_own_process(server):
    assert not served(["registry"], server)


def test_the_first_read_starts_one_which_leaves_when_idle(world):
    runtime = private_runtime()
    env = {**server_env(base_env(world), runtime), "SOLOGRAPH_CLI_SERVER_IDLE_S": "2"}
    code, out, _ = run(["symbols", "auth", "--json"], env)
    assert code == 0 and b'"count":' in out  # this one ran here, and started a server
    path = command_client.socket_path(str(runtime / "solograph"))
    wait_for("a server started by the first read",
             lambda: command_server.running(path) and Path(path).exists(), 60)
    assert oct((runtime / "solograph").stat().st_mode & 0o777) == "0o700"
    assert oct(Path(path).stat().st_mode & 0o777) == "0o600"
    wait_for("the second read served", lambda: served(["symbols", "auth"], env), 30)
    wait_for("the idle server gone", lambda: command_server.running(path) is None, 60)
    assert not Path(path).exists()


def test_changed_code_sends_the_server_away(world):
    with kept_server(base_env(world)) as env:
        path = command_client.socket_path(str(Path(env["XDG_RUNTIME_DIR"]) / "solograph"))
        pid = command_server.running(path)
        assert pid and served(["symbols", "auth"], env)
        module = Path(command_server.__file__).with_name("output.py")  # loaded by the server
        before = module.stat()
        try:
            os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
            answer = run(["symbols", "auth", "--json"], env)  # refused: ran here
            assert answer == run(["symbols", "auth", "--json"],
                                 {**env, "SOLOGRAPH_CLI_SERVER": "off"})
            wait_for("the stale server gone", lambda: command_server.running(path) != pid, 30)
        finally:
            os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_folder_others_can_read_is_never_used(world):
    runtime = private_runtime()
    (runtime / "solograph").mkdir(mode=0o755)
    os.chmod(runtime / "solograph", 0o755)
    env = server_env(base_env(world), runtime)
    assert not served(["symbols", "auth"], env)
    assert run(["symbols", "auth", "--json"], env)[0] == 0
    assert list((runtime / "solograph").iterdir()) == []
    code, _, err = run(["cli-server", "--status"], env)
    assert code == 1 and b"not this user's alone" in err


def test_status_and_stop(world):
    with kept_server(base_env(world)) as env:
        code, out, _ = run(["cli-server", "--status", "--json"], env)
        assert code == 0 and b'"running": true' in out and b'"mode": "auto"' in out
        code, out, _ = run(["cli-server", "--stop"], env)
        assert code == 0 and b"stopped the command server" in out
        code, out, _ = run(["cli-server", "--status"], env)
        assert out.startswith(b"not running")


def test_a_gone_servers_files_are_swept(world):
    runtime = private_runtime()
    (runtime / "solograph").mkdir(mode=0o700)
    gone = [runtime / "solograph" / f"cli-1-2{suffix}" for suffix in (".lock", ".sock", ".log")]
    for path in gone:
        path.write_text("")
    with kept_server(base_env(world), runtime) as env:
        assert served(["symbols", "auth"], env)
        assert not any(path.exists() for path in gone)


def test_the_server_holds_no_pipe_of_whoever_ran_the_first_read(world):
    """A hook runner waits for its pipes to close: a server started by the first read must not
    keep one open."""
    runtime = private_runtime()
    env = server_env(base_env(world), runtime)
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    try:
        subprocess.run(solograph_cmd("symbols", "auth"), env=env, pass_fds=(write_end,),
                       capture_output=True, timeout=60, check=True)
        os.close(write_end)
        path = command_client.socket_path(str(runtime / "solograph"))
        wait_for("the server started", lambda: Path(path).exists(), 60)
        os.set_blocking(read_end, False)

        def closed() -> bool:
            try:
                return os.read(read_end, 1) == b""
            except BlockingIOError:
                return False

        wait_for("every writer of the pipe gone", closed, 10)
        assert command_server.running(path)
    finally:
        os.close(read_end)
        pid = command_server.running(command_client.socket_path(str(runtime / "solograph")))
        if pid:
            os.kill(pid, 15)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


@pytest.mark.parametrize("signum,status", [(2, 130), (15, -15)], ids=["ctrl-c", "sigterm"])
def test_a_signal_reaches_the_command(tmp_path, signum, status):
    """Ctrl-C and SIGTERM sent to the command reach the server's process running it, and the
    command ends as it would have in its own process."""
    kb = tmp_path / "kb"
    (kb / "wiki").mkdir(parents=True)
    for i in range(12_000):  # never indexed: the read syncs it for seconds
        (kb / "wiki" / f"page-{i}.md").write_text(f"# Page {i}\n\nwords about topic {i}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "KB_PATH"))}
    env.update(SOLOGRAPH_HOME=str(tmp_path / "home"), KB_PATH=str(kb),
               SOLOGRAPH_SYNC_BUDGET_MS="600000", SOLOGRAPH_SEMANTIC="off")
    with kept_server(env) as kept:
        path = command_client.socket_path(str(Path(kept["XDG_RUNTIME_DIR"]) / "solograph"))
        server = command_server.running(path)
        proc = subprocess.Popen(solograph_cmd("kb", "topic", "--json"), env=kept,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        child = wait_for("the server's process running the read",
                         lambda: _children(server), 30)[0]
        wait_for("the read syncing the KB", lambda: list((tmp_path / "home").rglob("*.db")),
                 30)  # past the hand-over: the signal must be passed on
        os.kill(proc.pid, signum)
        proc.communicate(timeout=60)
        assert proc.returncode == status
        wait_for("the read's process gone", lambda: child not in _children(server), 30)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(
    st.binary(max_size=300),
    st.builds(lambda size, body: b"SG1" + size.to_bytes(4, "big") + body,
              st.integers(0, 2**32 - 1), st.binary(max_size=200))))
def test_garbage_on_the_socket_leaves_the_server_serving(world, server, data):
    """Whatever a peer sends (no descriptors, a wrong header, a size it never sends), the server
    drops it and goes on: the next read is still served."""
    path = command_client.socket_path(str(Path(server["XDG_RUNTIME_DIR"]) / "solograph"))
    pid = command_server.running(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        with contextlib.suppress(OSError):
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(16) in (b"", b"S")
    assert command_server.running(path) == pid


def test_the_server_serves_after_garbage(world, server):
    assert served(["symbols", "auth"], server)


def test_a_handed_over_read_imports_almost_nothing(server):
    """After the interpreter's own start (up to `site`), the client imports its two modules,
    their packages and the socket module's C half: no argparse, json, sqlite3 or index."""
    out = subprocess.run(solograph_cmd("symbols", "auth", "--json"),
                         env={**server, "PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True,
                         timeout=60)
    names = [line.rsplit("|", 1)[1].strip() for line in out.stderr.decode().splitlines()
             if line.startswith("import time:") and "|" in line]
    after_site = names[names.index("site") + 1:]
    assert set(after_site) <= {"solograph_services", "solograph_services.cli", "solograph",
                               "solograph_services.cli.main",
                               "solograph_services.cli.command_client", "_socket"}, after_site
    assert b'"count":' in out.stdout


NO_NEW_PRIVS = "import ctypes; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); "  # PR_SET_NO_NEW_PRIVS


def test_a_confined_command_is_never_run_by_an_unconfined_server(server):
    """A command under no-new-privileges (as in an agent's sandbox) reaches its own server, if
    any; one that finds the unconfined server's socket anyway is refused and runs itself."""
    path = command_client.socket_path(str(Path(server["XDG_RUNTIME_DIR"]) / "solograph"))
    pid = command_server.running(path)
    code = (NO_NEW_PRIVS + "from solograph_services.cli import command_client as c; "
            "print(c.socket_path('" + str(Path(path).parent) + "')); "
            "c.socket_path = lambda base: '" + path + "'; "
            "print(c.run(['symbols', 'auth']))")
    out = subprocess.run([str(Path(solograph_cmd()[0]).parent / "python"), "-c", code],
                         env=server, capture_output=True, text=True, timeout=60)
    own_path, answer = out.stdout.split()
    assert own_path != path  # a confined command looks for a server confined as it is
    assert answer == "None", out.stderr  # refused: it runs in its own process
    assert command_server.running(path) == pid and served(["symbols", "auth"], server)
