"""The ProductHunt and TrustMRR spiders against a local server serving saved pages, run the way
the worker runs them: one subprocess per crawl, writing through the core's sources store.
A redesigned site is reported page by page, and nothing indexed before is lost."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery
from solograph_services.common.crawls import CrawlFailed, run_crawl
from solograph_services.scrapers.base import POLITE_SETTINGS, USER_AGENT, money
from tests.support.procs import free_port, solograph_cmd
from tests.support.sites import (
    PRODUCTHUNT,
    PRODUCTHUNT_CHANGED,
    TRUSTMRR,
    TRUSTMRR_CHANGED,
    serve_site,
)

pytest.importorskip("scrapy")


@pytest.fixture
def home(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home")


def reasons(report: dict) -> list[str]:
    return [p["reason"] for p in report["problems"]]


def test_producthunt_launches_with_votes_then_a_redesign_loses_nothing(home):
    with serve_site(PRODUCTHUNT) as site:
        report = run_crawl(home, "producthunt", start_url=site.url("/"), delay=0)
        assert site.hits[0] == "/robots.txt"  # robots.txt first, then the pages it allows
        assert site.agents == {USER_AGENT}
        assert report["pages"] == 2 and report["indexed"] == 5
        assert reasons(report) == ["a launch card without a name or link (post-item-1004)",
                                   "no vote count on the launch card"]
        hit = reads.source_search(home, "pricing tiers")["results"][0]
        assert hit["id"] == "producthunt/tierwise" and hit["upvotes"] == 1204
        assert hit["url"] == site.url("/posts/tierwise")
        assert hit["meta"]["topics"] == ["SaaS", "Marketing"]
        day = reads.source_search(home, "agents ask before they act")["results"][0]
        assert day["date"] == "2026-11-27"
        shipnote = reads.source_search(home, "changelogs")["results"][0]
        assert "sk_live" not in json.dumps(shipnote) and "[REDACTED]" in shipnote["content"]

        site.routes = PRODUCTHUNT_CHANGED
        changed = run_crawl(home, "producthunt", start_url=site.url("/"), delay=0)
    assert changed["indexed"] == 0
    assert "layout may have changed" in reasons(changed)[0]
    assert changed["documents_before"] == changed["documents_after"] == 5
    still = reads.source_search(home, "pricing tiers")["results"][0]
    assert still["id"] == "producthunt/tierwise" and still["upvotes"] == 1204
    runs = reads.source_search(home, action="list", source="producthunt")["sources"][0]
    assert runs["last_run"]["problems"] == 1 and runs["items"] == 5


def test_trustmrr_revenue_pages_obey_robots_and_report_what_they_cannot_read(home):
    with serve_site(TRUSTMRR) as site:
        report = run_crawl(home, "trustmrr", start_url=site.url("/"), delay=0)
        assert "/private/startup/internal-dashboard" not in site.hits
        assert report["pages"] == 6 and report["indexed"] == 3
        assert sorted(reasons(report)) == ["Forbidden by robots.txt",
                                           "no startup name (no JSON-LD name, no h1)"]
        acme = reads.source_search(home, "privacy analytics", source="trustmrr")["results"][0]
        assert acme["meta"]["mrr"] == 12345.0 and acme["meta"]["revenue"] == 250000.0
        assert acme["meta"]["website"] == "https://acme-analytics.example"
        pricefox = reads.source_search(home, "competitor price tracking")["results"][0]
        assert pricefox["meta"]["mrr"] == 4210.0 and "sk_live" not in json.dumps(pricefox)
        tiny = reads.source_search(home, "freelancers invoices")["results"][0]
        assert tiny["meta"]["mrr"] == 980.0

        site.routes = TRUSTMRR_CHANGED
        changed = run_crawl(home, "trustmrr", start_url=site.url("/"), delay=0)
    assert changed["indexed"] == 0 and "layout may have changed" in reasons(changed)[0]
    assert changed["documents_after"] == 3
    assert reads.source_search(home, "privacy analytics")["count"] == 1


def test_an_unreachable_site_is_a_report_not_a_crash(home):
    report = run_crawl(home, "trustmrr", start_url=f"http://127.0.0.1:{free_port()}/", delay=0)
    assert report["indexed"] == 0 and report["pages"] == 0
    assert report["problems"] and report["problems"][0]["url"].startswith("http://127.0.0.1")


def test_unknown_spiders_and_broken_runs_are_errors(home, tmp_path):
    with pytest.raises(BadQuery):
        run_crawl(home, "hackernews")
    with pytest.raises(BadQuery):
        run_crawl(home, "trustmrr", start_url="not a url at all")
    (tmp_path / "taken" / "search.db").mkdir(parents=True)  # the index path is a folder
    with pytest.raises(CrawlFailed) as caught:
        run_crawl(home.with_(sources_root=tmp_path / "taken"), "trustmrr",
                  start_url=f"http://127.0.0.1:{free_port()}/", delay=0)
    assert "exit 1" in caught.value.message


def test_the_cli_runs_a_crawl_through_the_same_runner(home, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLOGRAPH_")}
    env["SOLOGRAPH_HOME"] = str(home.home)
    with serve_site(TRUSTMRR) as site:
        done = subprocess.run(solograph_cmd("sources", "crawl", "trustmrr", "--start-url",
                                            site.url("/"), "--delay", "0", "--json"),
                              env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["indexed"] == 3 and report["documents_after"] == 3
    listed = subprocess.run(solograph_cmd("sources", "list", "--json"), env=env,
                            capture_output=True, text=True, timeout=60)
    assert json.loads(listed.stdout)["sources"][0]["source"] == "trustmrr"


def test_polite_defaults():
    assert POLITE_SETTINGS["ROBOTSTXT_OBEY"] is True
    assert POLITE_SETTINGS["AUTOTHROTTLE_ENABLED"] is True
    assert POLITE_SETTINGS["DOWNLOAD_DELAY"] >= 1
    assert POLITE_SETTINGS["CONCURRENT_REQUESTS_PER_DOMAIN"] == 1
    assert "solograph" in USER_AGENT and "+https://" in USER_AGENT


def test_money():
    assert [money(t) for t in ("$12.5k", "MRR $1,234 / mo", "$2M", "none")] == \
        [12500.0, 1234.0, 2_000_000.0, None]


def test_the_spiders_are_the_crawls_the_core_names():
    """One list: the core's CRAWLS (CLI choices, API schema, job text, source names) is the
    spiders services/scrapers runs."""
    from solograph.sources import CRAWLS, SOURCES
    from solograph_services.scrapers.run import SPIDERS

    assert sorted(SPIDERS) == sorted(CRAWLS)
    assert set(CRAWLS) < set(SOURCES)
