"""Starting a crawl: one subprocess per crawl, shared by the CLI and the worker.

Scrapy runs on Twisted, whose reactor cannot be restarted in a process that already ran one
(ReactorNotRestartable), so every crawl gets a fresh interpreter running
`solograph_services.scrapers.run`. The report is the child's last stdout line (JSON); its
stderr (Scrapy's log) is kept only to explain a failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlsplit

from solograph.config import Settings
from solograph.errors import BadQuery, SolographError
from solograph.sources import CRAWLS

CRAWL_TIMEOUT_S = 3 * 3600


class CrawlFailed(SolographError):
    code = "crawl_failed"


def crawl_command(settings: Settings, spider: str, *, start_url: str | None = None,
                  max_pages: int = 50, delay: float | None = None) -> list[str]:
    if spider not in CRAWLS:
        raise BadQuery(f"unknown spider {spider!r}", hint=f"use one of: {', '.join(CRAWLS)}")
    if start_url is not None:
        parts = urlsplit(start_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise BadQuery(f"not a web address: {start_url!r}",
                           hint="give a full URL, e.g. https://www.producthunt.com/")
    cmd = [sys.executable, "-m", "solograph_services.scrapers.run", spider,
           "--db", str(settings.sources_db), "--max-pages", str(max_pages)]
    if start_url:
        cmd += ["--start-url", start_url]
    if delay is not None:
        cmd += ["--delay", str(delay)]
    return cmd


def run_crawl(settings: Settings, spider: str, *, start_url: str | None = None,
              max_pages: int = 50, delay: float | None = None,
              timeout: float = CRAWL_TIMEOUT_S) -> dict:
    """Run one crawl to the end in a child process; returns its report."""
    cmd = crawl_command(settings, spider, start_url=start_url, max_pages=max_pages, delay=delay)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise CrawlFailed(f"the {spider} crawl ran past {timeout:.0f} s and was stopped",
                          hint="what it indexed so far is kept; lower --max-pages") from None
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    report = None
    if lines:
        try:
            report = json.loads(lines[-1])
        except ValueError:
            report = None
    if done.returncode != 0 or not isinstance(report, dict) or "error" in report:
        detail = (report or {}).get("message") or done.stderr.strip()[-800:] or "no output"
        raise CrawlFailed(f"the {spider} crawl failed (exit {done.returncode}): {detail}")
    return report
