"""The command's edges: output piped into `head`, a current folder that was deleted, and the
bare command under Claude Code (stdin a pipe: MCP over stdio, through the SDK's own client)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from solograph.config import Settings
from solograph.kb.sync import index_kb
from tests.support.kb import make_kb
from tests.support.procs import solograph_cmd

TOOLS = {"session_search", "kb_search", "symbol_search", "source_search", "project_info"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOLOGRAPH_", "CLAUDE_", "KB_PATH", "CODEGRAPH_"))}
    return {**env, "SOLOGRAPH_HOME": str(home), "CLAUDE_PROJECTS_PATH": str(home / "none"),
            "CODEGRAPH_SCAN_PATH": str(home / "none"), **extra}


@pytest.mark.parametrize("args", [["--help"], ["sessions", "--help"], ["usage"]],
                         ids=" ".join)
def test_a_reader_that_closed_the_pipe_is_no_traceback(tmp_path, args):
    proc = subprocess.Popen(solograph_cmd(*args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env_for(tmp_path / "home"))
    proc.stdout.close()  # `| head -c0`: gone before the first line is written
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()
    assert proc.returncode == 0


def test_a_pipe_closed_after_the_first_line_is_no_traceback(tmp_path):
    done = subprocess.run(["sh", "-c", " ".join(solograph_cmd("--help")) + " | head -n 1"],
                          capture_output=True, text=True, timeout=60,
                          env=env_for(tmp_path / "home"))
    assert done.stdout.startswith("usage: solograph") and "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["--version"], ["stats"], ["kb", "recipe"], ["usage"],
                                  ["refresh"]], ids=" ".join)
def test_a_deleted_current_folder_is_no_traceback(tmp_path, args):
    gone = tmp_path / "removed"
    gone.mkdir()
    command = " ".join(f"'{w}'" for w in solograph_cmd(*args))
    done = subprocess.run(["sh", "-c", f"cd '{gone}' && rmdir '{gone}' && exec {command}"],
                          capture_output=True, text=True, timeout=120,
                          env=env_for(tmp_path / "home"))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1)
    if args[0] == "kb":
        assert done.returncode == 1 and "current folder no longer exists" in done.stderr


@pytest.mark.anyio
async def test_the_bare_command_on_a_pipe_serves_mcp_over_stdio(tmp_path):
    """`claude mcp add -s user solograph -e KB_PATH=$HOME/notes -- solograph`."""
    kb = make_kb(tmp_path)
    home = tmp_path / "home"
    index_kb(Settings(home=home, kb_path=kb))
    command, *args = solograph_cmd()
    params = StdioServerParameters(command=command, args=args,
                                   env=env_for(home, KB_PATH=str(kb)))
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        found = await client.call_tool("kb_search", {"query": "recipe"})
    assert tools == TOOLS
    assert not found.is_error and "wiki/recipe-box.md" in found.content[0].text


def test_the_bare_command_on_a_terminal_prints_help(tmp_path):
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: stdin, stdout and stderr are the terminal
        os.execvpe(solograph_cmd()[0], solograph_cmd(), env_for(tmp_path / "home"))
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"usage: solograph" in out and b"examples:" in out
