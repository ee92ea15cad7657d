"""TrustMRR startup pages: name, description, verified MRR and revenue.

The listing (home page, `?page=N`) links to one page per startup (`/startup/<slug>`); the
spider follows those and reads each from JSON-LD when present, else from its markup: the `h1`,
the meta description, and the amounts labelled "MRR" and "revenue". A page without a name is
reported and skipped; one without an MRR figure is reported and still indexed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scrapy.http import Response

from solograph_services.scrapers.base import SourceSpider, clean, json_ld, ld_type, money, slug

ORG_TYPES = {"Organization", "Corporation", "Product", "SoftwareApplication", "WebSite"}
_AFTER = r"[^$]{0,40}?(\$\s?\d[\d,]*(?:\.\d+)?\s?[kKmM]?)"


class TrustMRRSpider(SourceSpider):
    name = "trustmrr"
    source = "trustmrr"
    default_start = "https://trustmrr.com/"
    allowed_domains = ["trustmrr.com", "www.trustmrr.com", "127.0.0.1", "localhost"]

    def parse(self, response: Response) -> Iterator:
        links = [h for h in response.css('a[href*="/startup/"]::attr(href)').getall()]
        if not links:
            self.problem(response.url, "no startup links on the listing: its layout may have "
                                       "changed (no a[href*='/startup/'])")
        for href in dict.fromkeys(links):
            request = self.follow(response, href, self.parse_startup)
            if request is not None:
                yield request
        for href in response.css('a[rel="next"]::attr(href)').getall()[:1]:
            request = self.follow(response, href, self.parse)
            if request is not None:
                yield request

    def parse_startup(self, response: Response) -> Iterator[dict]:
        node = next((n for n in json_ld(response) if ld_type(n) & ORG_TYPES and n.get("name")),
                    {})
        name = clean(str(node.get("name") or "")) or clean(" ".join(
            response.css("h1 ::text").getall()))
        if not name:
            self.problem(response.url, "no startup name (no JSON-LD name, no h1)")
            return
        description = clean(str(node.get("description") or "")) or clean(
            response.css('meta[name="description"]::attr(content)').get()
            or response.css('meta[property="og:description"]::attr(content)').get()
            or response.css("main p::text, p::text").get())
        body = clean(" ".join(response.css("body *:not(script):not(style)::text").getall()))
        mrr = _labelled(body, r"\bMRR\b")
        revenue = _labelled(body, r"(?i)\b(?:total\s+)?revenue\b")
        category = clean(response.css('a[href*="/category/"]::text').get())
        if mrr is None:
            self.problem(response.url, "no MRR figure on the startup page")
        parts = [f"{name}: {description.rstrip('.')}" if description else name]
        if mrr is not None:
            parts.append(f"MRR ${mrr:,.0f}")
        if revenue is not None:
            parts.append(f"revenue ${revenue:,.0f}")
        if category:
            parts.append(f"category {category}")
        yield {"source": self.source, "id": slug(response.url), "title": name,
               "url": response.url, "text": ". ".join(parts), "date": "",
               "upvotes": 0,
               "metadata": {"mrr": mrr, "revenue": revenue, "category": category,
                            "website": clean(str(node.get("url") or "")) or None}}


def _labelled(text: str, label: str) -> float | None:
    found = re.search(label + _AFTER, text)
    return money(found.group(1)) if found else None
