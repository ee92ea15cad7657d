"""Run one crawl in this process and write its items through the core's sources store.

    python -m solograph_services.scrapers.run producthunt [--start-url URL] [--max-pages N]
                                                          [--delay S] [--db PATH]

One crawl per process: Twisted's reactor cannot start twice, so the worker and the CLI start
this module as a subprocess for every crawl. Items are written in small batches as they come
(an interrupted crawl keeps what it wrote); documents are upserted by key, so a page that
parses worse than before never removes what an earlier crawl indexed. The last line on stdout
is the report, as JSON: what was indexed, and every page it could not parse and why.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scrapy import signals
from scrapy.crawler import CrawlerProcess

from solograph.config import Settings
from solograph.errors import SolographError
from solograph.sources.store import Document, open_store, put, record_run
from solograph.text.plural import plural
from solograph_services.scrapers.base import POLITE_SETTINGS, SourceSpider
from solograph_services.scrapers.producthunt import ProductHuntSpider
from solograph_services.scrapers.trustmrr import TrustMRRSpider

SPIDERS: dict[str, type[SourceSpider]] = {cls.name: cls for cls in (ProductHuntSpider,
                                                                   TrustMRRSpider)}
BATCH = 25


class Indexer:
    """Receives scraped items (a strong reference: Scrapy's signal handlers are weak) and
    writes them to the store in batches."""

    def __init__(self, db: Path) -> None:
        self.conn = open_store(db)
        self.pending: list[Document] = []
        self.indexed = 0
        self.before = self.count()

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def item_scraped(self, item: dict, **_: object) -> None:
        self.pending.append(Document(**item))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.indexed += put(self.conn, self.pending)
            self.pending = []


def crawl(spider: str, db: Path, *, start_url: str | None = None, max_pages: int = 50,
          delay: float | None = None, obey_robots: bool = True) -> dict:
    """Run `spider` to the end and return its report."""
    cls = SPIDERS[spider]
    settings = dict(POLITE_SETTINGS, ROBOTSTXT_OBEY=obey_robots)
    if delay is not None:
        settings.update(DOWNLOAD_DELAY=delay, AUTOTHROTTLE_START_DELAY=max(delay, 0.01))
    started = time.time()
    indexer = Indexer(db)
    try:
        process = CrawlerProcess(settings)
        crawler = process.create_crawler(cls)
        crawler.signals.connect(indexer.item_scraped, signal=signals.item_scraped)
        process.crawl(crawler, start_url=start_url, max_pages=max_pages)
        process.start()
        indexer.flush()
        spider_obj: SourceSpider = crawler.spider
        stats = crawler.stats.get_stats() if crawler.stats else {}
        record_run(indexer.conn, cls.source, spider_obj.start_url, started, indexer.indexed,
                   spider_obj.problems)
        after = indexer.count()
        # Pages of the site, robots.txt not counted.
        pages = int(stats.get("response_received_count", 0)) - int(
            stats.get("robotstxt/response_count", 0))
    finally:
        indexer.conn.close()
    return {
        "spider": spider, "source": cls.source, "start_url": spider_obj.start_url,
        "pages": pages, "indexed": indexer.indexed,
        "documents_before": indexer.before, "documents_after": after,
        "problems": spider_obj.problems, "finish_reason": stats.get("finish_reason", ""),
        "seconds": round(time.time() - started, 2),
        "summary": f"{spider}: {plural(indexer.indexed, 'item')} indexed from "
                   f"{plural(pages, 'page')}, {plural(len(spider_obj.problems), 'problem')}; "
                   f"the index holds {plural(after, 'document')}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solograph_services.scrapers.run",
                                     description="Run one crawl into the sources index.")
    parser.add_argument("spider", choices=sorted(SPIDERS))
    parser.add_argument("--start-url", help="where to start (default: the site's listing)")
    parser.add_argument("--max-pages", type=int, default=50,
                        help="pages to fetch at most, the start page included")
    parser.add_argument("--delay", type=float, help="seconds between requests (default 2)")
    parser.add_argument("--db", type=Path, help="the index file (default from SOURCES_ROOT)")
    parser.add_argument("--ignore-robots", action="store_true",
                        help="do not obey robots.txt (only for your own test server)")
    args = parser.parse_args(argv)
    if args.start_url and not args.start_url.startswith(("http://", "https://")):
        parser.error(f"--start-url must be an http(s) URL, got {args.start_url!r}")
    try:
        db = args.db or Settings.from_env().sources_db
        report = crawl(args.spider, db, start_url=args.start_url, max_pages=args.max_pages,
                       delay=args.delay, obey_robots=not args.ignore_robots)
    except SolographError as exc:
        print(json.dumps(exc.to_dict()), flush=True)
        return 1
    print(json.dumps(report, ensure_ascii=False, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
