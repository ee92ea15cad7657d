"""Whole-process start-up: each read as a person or a script meets it, against the floor of
`python -c pass` from the same environment, measured in the same run, interleaved.

Figures (median of --runs, interleaved so load hits every command alike), for the development
venv (editable install) and an installed wheel (bench/.work/wheel-venv, as users run it). Each
command runs in its own process, as users run it:
  --version                      target <= 1.5x the floor
  symbols Q --json               target <= 2.5x the floor
  sessions Q --json, kb Q --json target <= 3x the floor + the read's in-process time
  hook (prompt, SessionStart)    target p50 <= 60 ms, KB of --pages pages
  mcp over stdio                 initialize <= 300 ms after the process starts, the first
                                 symbol_search answered <= 500 ms after it starts
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kb_bench import make_kb, make_project  # noqa: E402

from common import ROOT, Figure, figures_json, figures_table, log, work_dir  # noqa: E402
from solograph import reads  # noqa: E402
from solograph.config import Settings  # noqa: E402
from solograph.kb.sync import index_kb  # noqa: E402
from solograph.portfolio.sync import refresh_registry, scan_portfolio  # noqa: E402
from solograph.sessions.sync import sync_sessions  # noqa: E402
from tests.support.transcripts import Transcripts  # noqa: E402

TOPICS = ("webhook retry", "billing export", "oauth token refresh", "sqlite migration",
          "flaky test", "docker build cache", "release notes", "search ranking")


def world(base: Path, pages: int, sessions: int) -> Settings:
    """A portfolio of one project, `sessions` conversations and a KB of `pages` pages, all
    indexed, so every read below finds nothing changed."""
    settings = Settings(home=base / "home", scan_paths=(base / "projects",),
                        kb_path=base / "kb", claude_projects=base / "claude-projects")
    if not (base / "ready").exists():
        make_project(base)
        make_kb(settings.kb_path, pages, seed=7)
        t = Transcripts(settings.claude_projects)
        for i in range(sessions):
            topic = TOPICS[i % len(TOPICS)]
            t.conversation(f"/home/dev/code/app{i % 9}", f"fix the {topic} in module {i}",
                           f"The {topic} now works; see the notes for module {i}.")
        refresh_registry(settings)
        scan_portfolio(settings)
        sync_sessions(settings)
        index_kb(settings)
        (base / "ready").write_text("")
    return settings


def wheel_venv(folder: Path) -> Path:
    """A venv with the project installed as a wheel (not editable): how users run it."""
    python = folder / "bin" / "python"
    if not python.exists():
        log("building the wheel venv (once; later runs only reinstall the project)")
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"],
                       check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", str(ROOT)], check=True)
    else:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                        "--force-reinstall", str(ROOT)], check=True)
    return folder / "bin"


def timed_run(cmd: list[str], env: dict, stdin: bytes | None = None) -> float:
    """Wall milliseconds of one run; its CPU milliseconds (user + system) go to CPU_MS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, env=env, input=stdin, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_MS.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


# The CPU time of each timed run, in order: on a machine others share, the wall clock counts
# their work too, and a process's own CPU time much less so.
CPU_MS: list[float] = []


def mcp_stdio(solograph: str, env: dict, limit: object = 10) -> tuple[float, float]:
    """(ms to the initialize answer, ms to the first symbol_search answer), both from spawn.
    A `limit` given as a string is left to the SDK (it coerces it), which makes the baseline:
    the same call answered once the SDK has loaded."""
    started = time.perf_counter()
    proc = subprocess.Popen([solograph, "mcp"], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}})
        proc.stdout.readline()
        initialized = (time.perf_counter() - started) * 1000
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "symbol_search", "arguments": {"query": "billing charge", "limit": limit}}})
        proc.stdout.readline()
        answered = (time.perf_counter() - started) * 1000
    finally:
        proc.kill()
        proc.wait()
    return initialized, answered


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without solograph's settings, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    return {**env, **extra}


def in_process_ms(settings: Settings, runs: int) -> dict[str, float]:
    """The same reads in this process: what a command adds to them is its start-up."""
    calls = {"sessions": lambda: reads.session_search(settings, "webhook retry"),
             "kb": lambda: reads.kb_search(settings, "billing charge")}
    out = {}
    for name, call in calls.items():
        call()
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            call()
            samples.append((time.perf_counter() - started) * 1000)
        out[name] = statistics.median(samples)
    return out


def measure(label: str, bin_dir: Path, settings: Settings, runs: int,
            semantic: str = "off") -> list[Figure]:
    env = clean_env(SOLOGRAPH_HOME=str(settings.home), KB_PATH=str(settings.kb_path),
                    CLAUDE_PROJECTS_PATH=str(settings.claude_projects),
                    SOLOGRAPH_SEMANTIC=semantic)
    python, sg = str(bin_dir / "python"), str(bin_dir / "solograph")
    cwd = str(settings.scan_paths[0] / "bench-app")
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "bench",
                         "cwd": cwd, "prompt": "how does the setup work here"}).encode()
    start = json.dumps({"hook_event_name": "SessionStart", "session_id": "bench",
                        "cwd": cwd, "source": "startup"}).encode()
    reads = {"symbols": ["symbols", "billing charge", "--json"],
             "sessions": ["sessions", "webhook retry", "--json"],
             "kb": ["kb", "billing charge", "--json"]}
    hook = [sg, "hook", "--kb-path", str(settings.kb_path)]
    commands = {
        "floor": ([python, "-c", "pass"], None),
        "version": ([sg, "--version"], None),
        **{name: ([sg, *argv], None) for name, argv in reads.items()},
        "hook prompt": (hook, prompt), "hook start": (hook, start),
    }
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for cmd, stdin in commands.values():  # warm the page cache
        timed_run(cmd, env, stdin)
    for _ in range(runs):
        for name, (cmd, stdin) in commands.items():
            samples[name].append(timed_run(cmd, env, stdin))
            cpu[name].append(CPU_MS[-1])
    mcp, through_sdk = [], []
    for _ in range(max(3, runs // 3)):
        mcp.append(mcp_stdio(sg, env))
        through_sdk.append(mcp_stdio(sg, env, limit="10"))
    p50 = {name: statistics.median(v) for name, v in samples.items()}
    cpu50 = {name: statistics.median(v) for name, v in cpu.items()}
    floor = p50["floor"]
    inproc = in_process_ms(settings, runs)
    log(f"{label}: floor {floor:.1f} ms; " + ", ".join(f"{k} {v:.1f}" for k, v in p50.items()))

    def ratio(name: str, target: float, extra: float = 0.0) -> Figure:
        allowed = target * floor + extra
        return Figure(f"{label}: {name} (x python -c pass)", p50[name] / floor, "x",
                      f"<= {target:g}x" + (f" + {extra:.0f} ms in-process" if extra else ""),
                      p50[name] <= allowed, key=f"{label}_{name.replace(' ', '_')}_ratio",
                      extra={"ms": p50[name], "floor_ms": floor, "cpu_ms": cpu50[name],
                             "floor_cpu_ms": cpu50["floor"],
                             "cpu_ratio": cpu50[name] / cpu50["floor"]})

    def cpu_ratio(name: str) -> Figure:
        return Figure(f"{label}: {name}, CPU (x python -c pass CPU)",
                      cpu50[name] / cpu50["floor"], "x", key=f"{label}_{name.replace(' ', '_')}"
                      "_cpu_ratio", extra={"cpu_ms": cpu50[name], "floor_cpu_ms": cpu50["floor"]})

    init = statistics.median(m[0] for m in mcp)
    first = statistics.median(m[1] for m in mcp)
    sdk_first = statistics.median(m[1] for m in through_sdk)
    return [
        Figure(f"{label}: python -c pass", floor, "ms", key=f"{label}_floor_ms"),
        ratio("version", 1.5), ratio("symbols", 2.5),
        ratio("sessions", 3, inproc["sessions"]), ratio("kb", 3, inproc["kb"]),
        Figure(f"{label}: hook, prompt event p50", p50["hook prompt"], "ms",
               "<= 60 ms", p50["hook prompt"] <= 60, key=f"{label}_hook_prompt_ms"),
        Figure(f"{label}: hook, SessionStart p50", p50["hook start"], "ms",
               "<= 60 ms", p50["hook start"] <= 60, key=f"{label}_hook_start_ms"),
        Figure(f"{label}: mcp stdio, initialize answered", init, "ms", "<= 300 ms",
               init <= 300, key=f"{label}_mcp_initialize_ms"),
        Figure(f"{label}: mcp stdio, first symbol_search", first, "ms", "<= 500 ms",
               first <= 500, key=f"{label}_mcp_first_call_ms",
               extra={"through_sdk_ms": sdk_first, "ratio": first / sdk_first}),
        Figure(f"{label}: mcp stdio, first call through the SDK (baseline)", sdk_first, "ms",
               key=f"{label}_mcp_first_call_sdk_ms"),
        Figure(f"{label}: python -c pass, CPU", cpu50["floor"], "ms", key=f"{label}_floor_cpu_ms"),
        *(cpu_ratio(name) for name in ("version", "symbols", "sessions", "kb")),
        Figure(f"{label}: hook, prompt event CPU p50", cpu50["hook prompt"],
               "ms", key=f"{label}_hook_prompt_cpu_ms"),
        Figure(f"{label}: hook, SessionStart CPU p50", cpu50["hook start"],
               "ms", key=f"{label}_hook_start_cpu_ms"),
        Figure(f"{label}: sessions search in-process p50", inproc["sessions"], "ms",
               key=f"{label}_sessions_inprocess_ms"),
        Figure(f"{label}: kb search in-process p50", inproc["kb"], "ms",
               key=f"{label}_kb_inprocess_ms"),
    ]


def lane_figures(bin_dir: Path, runs: int) -> list[Figure]:
    """A fused KB read (the meaning lane on, every page embedded) as a command: numpy and the
    model load in the command's own process."""
    from solograph.semantic import available
    from solograph.semantic.stores import embed_store
    from tests.support.kb import make_kb

    if not available():
        log("the lane's figures need the `semantic` extra: skipped")
        return []
    base = work_dir("startup", "lane")
    settings = Settings(home=base / "home", scan_paths=(base / "projects",),
                        kb_path=base / "kb" if (base / "kb").exists() else make_kb(base),
                        claude_projects=base / "claude-projects", semantic="on")
    index_kb(settings)
    embed_store(settings, "kb")
    env = clean_env(SOLOGRAPH_HOME=str(settings.home), KB_PATH=str(settings.kb_path),
                    SOLOGRAPH_SEMANTIC="on")
    sg = str(bin_dir / "solograph")
    cmd = [sg, "kb", "how do I keep the agent in a box", "--json"]
    timed_run(cmd, env)  # the page cache
    own50 = statistics.median(timed_run(cmd, env) for _ in range(max(5, runs // 2)))
    return [Figure("dev: fused kb read (lane on)", own50, "ms", key="dev_lane_kb_own_ms")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="runs of each command (21)")
    parser.add_argument("--pages", type=int, default=500, help="KB pages (500)")
    parser.add_argument("--sessions", type=int, default=200, help="conversations (200)")
    parser.add_argument("--no-wheel", action="store_true", help="skip the installed wheel")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--semantic", default="off", choices=("auto", "on", "off"),
                        help="SOLOGRAPH_SEMANTIC of the commands (off: the lexical floor; the "
                             "hook must not move with the lane on)")
    parser.add_argument("--baseline", type=Path, metavar="VENV",
                        help="also measure this venv (an earlier version installed as a wheel, "
                             "say), in the same run: the figures labelled `baseline`")
    args = parser.parse_args(argv)
    settings = world(work_dir("startup", f"p{args.pages}-s{args.sessions}"), args.pages,
                     args.sessions)
    figures = measure("dev", ROOT / ".venv" / "bin", settings, args.runs, args.semantic)
    figures += lane_figures(ROOT / ".venv" / "bin", args.runs)
    if not args.no_wheel:
        figures += measure("wheel", wheel_venv(work_dir("wheel-venv")), settings, args.runs,
                           args.semantic)
    if args.baseline:
        figures += measure("baseline", args.baseline / "bin", settings, args.runs,
                           args.semantic)
    print(figures_json(figures, runs=args.runs, pages=args.pages) if args.json
          else figures_table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
