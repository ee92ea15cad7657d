"""A memory to show in the page: a portfolio, a KB with a hostile page, sources, and
sessions (one long, one with a sub-agent and tool calls, one hostile), indexed for real."""

from __future__ import annotations

from pathlib import Path

from solograph.config import Settings
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.kb import PAGES, make_kb
from tests.support.portfolio import make_portfolio
from tests.support.sources import build_sources
from tests.support.transcripts import Transcripts

SESSION_ID = "5f0c2a9e-1d2b-4c3d-8e4f-a1b2c3d4e5f6"
HOSTILE_ID = "0badc0de-1d2b-4c3d-8e4f-a1b2c3d4e5f6"
LONG_ID = "10ae0000-1d2b-4c3d-8e4f-a1b2c3d4e5f6"
LONG_MESSAGES = 1200

# Each would set a trap if it ran: the title, a global, or a navigation.
TRAPS = [
    "<script>document.title='pwned';window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1;document.title=\'pwned\'">',
    '<svg onload="window.__pwned=1"><script>window.__pwned=1</script></svg>',
    "<a href=\"javascript:window.__pwned=1\">click</a>",
    '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "\"><script>window.__pwned=1</script>",
]
HOSTILE_PAGE = """---
title: "Hostile <script>window.__pwned=1</script> page"
---
# Hostile page

{traps}

[a javascript link](javascript:window.__pwned=1) and
[a data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)
and ![an image](javascript:window.__pwned=1) and [[agent-sandboxing]].

<div onclick="window.__pwned=1">raw html</div>
""".format(traps="\n\n".join(TRAPS))


def build_memory(base: Path) -> Settings:
    pages = {**PAGES, "wiki/hostile.md": HOSTILE_PAGE}
    settings = Settings(home=base / "home", scan_paths=(make_portfolio(base),),
                        kb_path=make_kb(base, pages=pages),
                        claude_projects=base / "claude-projects")
    refresh_registry(settings)
    scan_portfolio(settings)
    build_sources(settings, base)
    t = Transcripts(settings.claude_projects)
    s = t.session("/home/dev/code/web-app", SESSION_ID)
    s.prompt("fix the webhook retry in billing")
    s.reply("Looking at the retry loop.",
            tools=[("Bash", {"command": "pytest -k webhook_retry"}),
                   ("Read", {"file_path": "/home/dev/code/web-app/billing/retry.py"})])
    s.prompt("и подпись вебхука тоже проверь")
    s.reply("The retry now backs off exponentially; подпись проверена.")
    s.flush()
    sub = t.subagent(s)
    sub.prompt("search the codebase for webhook handlers")
    sub.reply("Found two handlers in billing/hooks.py.",
              tools=[("Grep", {"pattern": "def handle_webhook"})])
    sub.flush()
    s.prompt("thanks, ship it")
    s.reply("Shipped.")
    s.flush()
    hostile = t.session("/home/dev/code/evil", HOSTILE_ID)
    for trap in TRAPS:
        hostile.prompt(f"hostile transcript {trap}")
        hostile.reply(f"echo {trap}", tools=[("Bash", {"command": trap})])
    hostile.flush()
    long = t.session("/home/dev/code/app", LONG_ID)
    for i in range(LONG_MESSAGES // 2):
        long.prompt(f"step {i}: keep going with the migration")
        long.reply(f"done step {i}" + (" the needle sits here" if i == 450 else ""))
    long.flush()
    from solograph import reads

    reads.session_list(settings)  # the first read syncs the transcripts
    return settings
