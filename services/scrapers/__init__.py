"""Scrapy spiders that fill the sources index: ProductHunt launches and TrustMRR revenue pages.

Run one crawl per process (`python -m solograph_services.scrapers.run SPIDER`): the Twisted
reactor cannot be restarted inside a long-lived worker. Items are written through the core's
sources store, the same path as every other source.
"""
