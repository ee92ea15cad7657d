"""What every spider shares: polite settings, problem reports, and reading JSON-LD.

A spider never fails a crawl over one page it cannot read: it records the page and the reason
in `problems` (a changed layout shows up there), indexes whatever else it could parse, and the
store keeps everything earlier crawls indexed.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import scrapy
from scrapy.http import Response
from twisted.python.failure import Failure

from solograph import __version__

USER_AGENT = (f"solograph/{__version__} (+https://github.com/fortunto2/solograph; "
              "indexes public launch and revenue pages for a personal search index)")

# Polite by default: robots.txt obeyed, one request at a time per site, AutoThrottle adapting
# the delay to the site's latency, nothing cached or retried aggressively.
POLITE_SETTINGS: dict = {
    "USER_AGENT": USER_AGENT,
    "ROBOTSTXT_OBEY": True,
    "DOWNLOAD_DELAY": 2.0,
    "CONCURRENT_REQUESTS": 4,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_START_DELAY": 5.0,
    "AUTOTHROTTLE_MAX_DELAY": 60.0,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
    "RETRY_TIMES": 1,
    "DOWNLOAD_TIMEOUT": 30,
    "COOKIES_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "WARNING",
}

_MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)\s?([kKmM])?")


def money(text: str) -> float | None:
    """'$12.5k' -> 12500.0, '$1,234' -> 1234.0; None when there is no amount."""
    found = _MONEY.search(text or "")
    if not found:
        return None
    value = float(found.group(1).replace(",", ""))
    return value * {"k": 1e3, "m": 1e6}.get((found.group(2) or "").lower(), 1)


def clean(text: str | None) -> str:
    return " ".join((text or "").split())


def slug(url: str) -> str:
    """The last path segment of a URL: the id of the thing it names."""
    path = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    return re.sub(r"[^A-Za-z0-9_.-]", "-", path.rsplit("/", 1)[-1])[:120]


def json_ld(response: Response) -> Iterator[dict]:
    """Every JSON-LD object on the page, @graph and ItemList members flattened."""
    for raw in response.css('script[type="application/ld+json"]::text').getall():
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        stack = data if isinstance(data, list) else [data]
        while stack:
            node = stack.pop(0)
            if not isinstance(node, dict):
                continue
            yield node
            stack.extend(node.get("@graph") or [])
            for element in node.get("itemListElement") or []:
                if isinstance(element, dict):
                    stack.append(element.get("item") if isinstance(element.get("item"), dict)
                                 else element)


def ld_type(node: dict) -> set[str]:
    kind = node.get("@type")
    return set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()


class SourceSpider(scrapy.Spider):
    """A spider for one source: `source` names it in the index, `problems` lists what it
    could not parse."""

    source = ""
    default_start = ""

    def __init__(self, start_url: str | None = None, max_pages: int = 50, **kwargs) -> None:
        super().__init__(**kwargs)
        self.start_url = start_url or self.default_start
        self.max_pages = int(max_pages)
        self.problems: list[dict] = []
        self.pages = 0

    async def start(self) -> AsyncIterator[scrapy.Request]:
        self.pages = 1  # the start page counts against max_pages
        yield scrapy.Request(self.start_url, callback=self.parse, errback=self.failed)

    def follow(self, response: Response, url: str, callback) -> scrapy.Request | None:
        """A request for `url` unless the page budget is spent."""
        if self.pages >= self.max_pages:
            return None
        self.pages += 1
        return response.follow(url, callback=callback, errback=self.failed)

    def problem(self, url: str, reason: str) -> None:
        self.problems.append({"url": url, "reason": reason})
        self.logger.warning("could not parse %s: %s", url, reason)

    def failed(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        response = getattr(failure.value, "response", None)
        reason = (f"HTTP {response.status}" if response is not None
                  else failure.getErrorMessage() or failure.type.__name__)
        self.problem(request.url if request is not None else self.start_url, reason)
