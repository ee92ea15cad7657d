"""`solograph hook`: Claude Code's SessionStart and UserPromptSubmit hook.

    solograph hook [--kb-path P] [--db-path P]    # the hook JSON on stdin

On a prompt: the wiki hint (a page the prompt names), a stack template for "which stack for
X?", and with `memory_gate:` the memory nudge. Once per session per project, at SessionStart or
on the first prompt that starts work, a map of the registered project holding `cwd`. Only the
wiki is synced. The answer is Claude Code's JSON, `{"hookSpecificOutput": {"hookEventName":
..., "additionalContext": ...}}`, or nothing.

Hooks fail open: any failure (garbage on stdin, a missing KB, a locked store, a bug) prints
nothing and exits 0, and a watchdog ends the process with exit 0 before Claude Code's 3 s
timeout. This module is the whole import path of the hook: it pulls in no service, no
tree-sitter, and PyYAML only when a file it caches has changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

BUDGET_S = 2.5
BUSY_MS = 300
MAX_STDIN = 1_000_000
WORK = re.compile(
    r"\b(plan|fix|implement|build|refactor|debug)\w*|\b(сделай|почини|исправь|реализуй|"
    r"спланируй|добавь|напиши)\w*", re.IGNORECASE)
EVENTS = ("SessionStart", "UserPromptSubmit")
STACK_WORD = re.compile(r"\bstack\b|\bстек", re.IGNORECASE)  # before loading kb.stacks


def _asks_for_stack(prompt: str) -> bool:
    if not STACK_WORD.search(prompt):
        return False
    from solograph.kb.stacks import asks_for_stack

    return asks_for_stack(prompt)


def main(argv: list[str] | None = None, *, hint_only: bool = False,
         env: dict[str, str] | None = None, stdin=None, stdout=None) -> int:
    """Run one hook call; always returns 0."""
    watchdog = threading.Timer(BUDGET_S, os._exit, (0,))
    watchdog.daemon = True
    watchdog.start()
    out = stdout or sys.stdout
    try:
        text = answer(argv or [], stdin=stdin or sys.stdin, env=os.environ if env is None else env,
                      hint_only=hint_only)
        if text:
            out.write(text + "\n")
            out.flush()
    except BaseException:  # noqa: BLE001 - a hook fails open: silence, exit 0
        pass
    finally:
        watchdog.cancel()
    return 0


def _options(argv: list[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    it = iter(argv)
    for arg in it:
        if arg in ("--kb-path", "--db-path", "--session"):
            opts[arg[2:]] = next(it, "")
        elif arg.startswith(("--kb-path=", "--db-path=")):
            key, _, value = arg[2:].partition("=")
            opts[key] = value
        elif arg == "--hook":
            continue
        else:
            raise ValueError(f"unknown argument {arg!r}")
    return opts


def answer(argv: list[str], *, stdin, env, hint_only: bool = False) -> str:
    """The hook's stdout for one call ('' for silence)."""
    started = time.perf_counter()
    opts = _options(argv)
    data = json.loads(stdin.buffer.read(MAX_STDIN) if hasattr(stdin, "buffer")
                      else stdin.read(MAX_STDIN))
    if not isinstance(data, dict) or data.get("hook_event_name") not in EVENTS:
        return ""
    event = data["hook_event_name"]
    session = str(data.get("session_id") or "")
    cwd = str(data.get("cwd") or "")
    prompt = str(data.get("prompt") or "") if event == "UserPromptSubmit" else ""
    from solograph.config import Settings

    settings = Settings.from_env(env)
    home = settings.home
    kb_root = Path(opts["kb-path"]).expanduser() if opts.get("kb-path") else settings.kb_path
    portfolio = Path(opts["db-path"]).expanduser() if opts.get("db-path") \
        else settings.portfolio_db
    if portfolio.is_dir():
        portfolio = portfolio / "portfolio.db"

    from solograph.kb import paths, state

    folder = paths.state_dir(home)
    seen = state.load(folder, session) if session else {"pages": [], "maps": []}
    if event == "SessionStart" and data.get("source") in ("clear", "compact"):
        seen = {"pages": [], "maps": []}  # the agent's context no longer holds them
    parts: list[str] = []
    pages: list[str] = []
    gate = score = None
    if not hint_only and (event == "SessionStart" or WORK.search(prompt)):
        _map(parts, seen, portfolio, cwd)
    if prompt and kb_root is not None:
        gate, score = _kb(parts, pages, seen, home, kb_root, prompt, hint_only=hint_only)
    if session and (pages or parts):
        state.save(folder, session, seen)
    # Beside the portfolio store: a second profile (--db-path) keeps its own log.
    _log(portfolio.parent, cwd, session, event, pages, gate, score, started)
    if not parts:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                              "additionalContext": "\n\n".join(parts)}},
                      ensure_ascii=False)


def _map(parts: list[str], seen: dict, portfolio: Path, cwd: str) -> None:
    from solograph.kb.projectmap import project_map

    try:
        found = project_map(portfolio, cwd)
    except Exception:  # noqa: BLE001 - no map is better than no hint
        return
    if found and found[0] not in seen["maps"]:
        seen["maps"].append(found[0])
        parts.append(found[1])


def _kb(parts: list[str], pages: list[str], seen: dict, home: Path, root: Path, prompt: str,
        *, hint_only: bool) -> tuple[bool | None, float | None]:
    import sqlite3

    from solograph.kb import aliases, hint
    from solograph.kb.store import open_kb
    from solograph.kb.sync import sync

    kb = open_kb(home, root, busy_ms=BUSY_MS, check_rules=False)
    try:
        with contextlib.suppress(sqlite3.OperationalError):  # locked: the index as it is
            sync(kb, pages_only=True, trust_folders=True)
        table = aliases.load(kb.conn, aliases.aliases_path(root, kb.layout.pages))
        found = hint.find(kb.conn, prompt, table, told=set(seen["pages"]))
        if found:
            seen["pages"].append(found.path)
            pages.append(found.path)
            parts.append(found.text)
        if kb.layout.stacks and _asks_for_stack(prompt):
            from solograph.kb import stacks

            line = stacks.answer(prompt, stacks.templates(root, kb.layout.stacks), root)
            if line:
                parts.append(line)
        if hint_only or not kb.layout.memory_gate:
            return None, None
        from solograph.kb.memgate import NUDGE, Gate

        gated, score = Gate.load(root / kb.layout.memory_gate).nudges(prompt)
        if gated:
            parts.append(NUDGE)
        return gated, score
    finally:
        kb.close()


def _log(store_dir: Path, cwd: str, session: str, event: str, pages: list[str],
         gate: bool | None, score: float | None, started: float) -> None:
    """One usage line per run: the pages named and the gate, never the prompt."""
    from solograph.usage import UsageLog

    log = UsageLog(store_dir / "usage", enabled=not _private(Path(cwd or os.getcwd())))
    log.hook_run(session=session or None, event=event, pages=pages, gate=gate, score=score,
                 ms=(time.perf_counter() - started) * 1000)


def _private(path: Path) -> bool:
    from solograph.config import is_private

    try:
        return is_private(path)
    except OSError:
        return True
