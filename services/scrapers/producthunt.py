"""ProductHunt launches from listing pages (the home page, daily leaderboards).

A launch card is read from JSON-LD when the page carries it, else from the page's own markup:
`[data-test^="post-item"]` cards holding the name (`[data-test^="post-name"]`), the tagline,
topic links (`/topics/...`) and the vote button's count. Votes become upvotes, which lift a
launch in search by at most 15%. A card without a name, a page without any card, and a card
without a vote count are reported; the launch is still indexed when it has a name (its stored
upvotes are kept when the count is missing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scrapy.http import Response

from solograph_services.scrapers.base import SourceSpider, clean, json_ld, ld_type, slug

APP_TYPES = {"Product", "SoftwareApplication", "WebApplication", "MobileApplication"}
_DAY = re.compile(r"/(?:leaderboard/)?daily/(\d{4})/(\d{1,2})/(\d{1,2})")


def _votes(text: str) -> int | None:
    digits = re.sub(r"[^\d]", "", text or "")
    return int(digits) if digits else None


class ProductHuntSpider(SourceSpider):
    name = "producthunt"
    source = "producthunt"
    default_start = "https://www.producthunt.com/"
    allowed_domains = ["producthunt.com", "www.producthunt.com", "127.0.0.1", "localhost"]

    def parse(self, response: Response) -> Iterator:
        day = _DAY.search(response.url)
        date = f"{day.group(1)}-{int(day.group(2)):02d}-{int(day.group(3)):02d}" if day else ""
        found = list(self._from_json_ld(response, date)) or list(self._from_cards(response, date))
        if not found:
            self.problem(response.url, "no launches found on the page: its layout may have "
                                       "changed (no JSON-LD products, no post-item cards)")
        yield from found
        for href in response.css('a[rel="next"]::attr(href)').getall()[:1]:
            request = self.follow(response, href, self.parse)
            if request is not None:
                yield request

    def _from_json_ld(self, response: Response, date: str) -> Iterator[dict]:
        for node in json_ld(response):
            if not ld_type(node) & APP_TYPES or not node.get("name"):
                continue
            url = response.urljoin(str(node.get("url") or ""))
            rating = node.get("aggregateRating") or {}
            votes = _votes(str(rating.get("ratingCount") or rating.get("reviewCount") or ""))
            yield self._item(response, url, clean(str(node["name"])),
                             clean(str(node.get("description") or "")), [], votes, date)

    def _from_cards(self, response: Response, date: str) -> Iterator[dict]:
        for card in response.css('[data-test^="post-item"]'):
            name_link = card.css('[data-test^="post-name"]')
            name = clean(" ".join(name_link.css("::text").getall()))
            href = name_link.attrib.get("href") or card.css("a::attr(href)").get()
            if not name or not href:
                self.problem(response.url, f"a launch card without a name or link "
                                           f"({card.attrib.get('data-test', '?')})")
                continue
            tagline = clean(" ".join(card.css('[data-test^="post-tagline"] ::text').getall()))
            if not tagline:  # the other link to the same post holds the tagline
                texts = [clean(" ".join(a.css("::text").getall()))
                         for a in card.css(f'a[href="{href}"]')]
                tagline = next((t for t in texts if t and t != name), "")
            topics = [clean(t) for t in card.css('a[href*="/topics/"]::text').getall() if clean(t)]
            votes = _votes(" ".join(card.css('[data-test="vote-button"] ::text').getall()))
            url = response.urljoin(href)
            if votes is None:
                self.problem(url, "no vote count on the launch card")
            yield self._item(response, url, name, tagline, topics, votes, date)

    def _item(self, response: Response, url: str, name: str, tagline: str, topics: list[str],
              votes: int | None, date: str) -> dict:
        text = f"{name}: {tagline}" if tagline else name
        if topics:
            text += f". Topics: {', '.join(topics)}"
        return {"source": self.source, "id": slug(url) or slug(name), "title": name, "url": url,
                "text": text, "date": date, "upvotes": votes,
                "metadata": {"tagline": tagline, "topics": topics, "votes": votes,
                             "listing": response.url}}
