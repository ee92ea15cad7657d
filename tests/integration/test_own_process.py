"""A read runs in the process the user started, with that process's rights, limits and
environment, and leaves no process behind.

A `sitecustomize` put on the command's PYTHONPATH (only this test's) records, at the exit of
every interpreter that loads it, its pid, its environment marker, its limits, niceness, CPU
affinity and umask, and whether it ran the read (`solograph.reads` or the hook imported). The
command runs in a new session, so any process it leaves has its process group or its marker.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.support.kb import make_kb
from tests.support.procs import solograph_cmd
from tests.support.transcripts import Transcripts

SITECUSTOMIZE = """
import atexit, json, os, resource, sys

def _record():
    path = os.environ.get("OWN_PROCESS_LOG")
    if not path:
        return
    ran = any(m in sys.modules for m in ("solograph.reads", "solograph_services.hook.main"))
    with open(path, "a") as out:
        out.write(json.dumps({
            "pid": os.getpid(), "marker": os.environ.get("OWN_PROCESS_MARKER"),
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0], "nice": os.nice(0),
            "cpus": sorted(os.sched_getaffinity(0)), "umask": os.umask(0o022), "ran": ran,
        }) + "\\n")

atexit.register(_record)
"""

PROMPT = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "own-process",
                     "prompt": "how is the agent sandbox set up"}).encode()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("own-process")
    site = base / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    kb = make_kb(base)
    Transcripts(base / "claude").conversation("/home/dev/app", "fix the webhook retry",
                                              "The webhook retry now backs off.")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    env.update(SOLOGRAPH_HOME=str(base / "home"), KB_PATH=str(kb), SOLOGRAPH_SEMANTIC="off",
               CLAUDE_PROJECTS_PATH=str(base / "claude"), CODEGRAPH_SCAN_PATH=str(base / "p"),
               PYTHONPATH=str(site))
    return base, env


def limited(nofile: int, nice: int, cpu: int, umask: int):
    """A preexec_fn: what a user sets before starting a command (ulimit, nice, taskset)."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        os.nice(nice)
        os.sched_setaffinity(0, {cpu})
        os.umask(umask)
    return apply


def survivors(group: int, marker: str) -> list[int]:
    """Live processes in process group `group` or carrying `marker` in their environment."""
    found = []
    needle = f"OWN_PROCESS_MARKER={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] == "Z":
                continue
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if int(fields[2]) == group or needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def run_read(world, argv: list[str], stdin: bytes | None, *, nofile: int, nice: int,
             cpu: int, umask: int) -> tuple[subprocess.CompletedProcess, int, str, list[dict]]:
    base, env = world
    marker, log = uuid.uuid4().hex, base / f"{uuid.uuid4().hex}.jsonl"
    proc = subprocess.Popen(solograph_cmd(*argv), env={**env, "OWN_PROCESS_MARKER": marker,
                                                       "OWN_PROCESS_LOG": str(log)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=limited(nofile, nice, cpu, umask))
    out, err = proc.communicate(stdin, timeout=60)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return done, proc.pid, marker, records


READS = [(["kb", "agent sandbox", "--json"], None), (["sessions", "webhook", "--json"], None),
         (["hook", "--kb-path", "{kb}"], PROMPT)]


@pytest.mark.parametrize(("argv", "stdin"), READS, ids=["kb", "sessions", "hook"])
def test_a_read_runs_in_its_own_process_and_leaves_nothing(world, argv, stdin):
    base, env = world
    argv = [a.replace("{kb}", env["KB_PATH"]) for a in argv]
    cpus = sorted(os.sched_getaffinity(0))
    # Two runs with different limits and markers: each is answered under its own, never under
    # what an earlier command had.
    for n, (nofile, nice, umask) in enumerate(((200, 2, 0o027), (211, 4, 0o077))):
        done, pid, marker, records = run_read(world, argv, stdin, nofile=nofile, nice=nice,
                                              cpu=cpus[n % len(cpus)], umask=umask)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        if argv[0] != "hook":
            assert done.stdout.startswith(b"{"), done.stdout[:200]
        # One interpreter ran, the one started here, and it did the read itself.
        assert records == [{"pid": pid, "marker": marker, "nofile": nofile,
                            "nice": records[0]["nice"], "cpus": [cpus[n % len(cpus)]],
                            "umask": umask, "ran": True}], records
        assert records[0]["nice"] >= nice  # nice adds to what this process already has
        assert survivors(pid, marker) == []
