"""Source jobs on a real worker: crawls on the `sources` queue, each in its own subprocess, so
one prefork child runs crawl after crawl (in-process, Twisted's reactor would refuse the
second: ReactorNotRestartable)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from solograph import reads
from solograph_services.common.jobs import create_celery, job_table, submit
from tests.support import procs
from tests.support.sites import PRODUCTHUNT, TRUSTMRR, serve_site

pytestmark = pytest.mark.integration
SOURCES_DB = 10


@pytest.fixture(scope="module")
def scrapers(tmp_path_factory: pytest.TempPathFactory, redis_url: str, svc):
    base = tmp_path_factory.mktemp("scrapers")
    home = svc.make_home(base, base / "repos", svc.with_db(redis_url, SOURCES_DB))
    celery = create_celery(home.settings)
    cmd = procs.solograph_cmd("worker", "-Q", "sources", "-c", "1")
    try:
        with procs.process(cmd, env=home.env, log=home.logs / "scrapers.log") as proc:
            deadline = time.monotonic() + 30
            while not celery.control.ping(timeout=0.5):
                assert proc.poll() is None and time.monotonic() < deadline, "worker not ready"
            yield home, celery
    except BaseException:
        print(svc.show_log(home.logs / "scrapers.log"))
        raise
    finally:
        celery.close()


def test_crawls_run_one_after_another_in_one_worker_child(scrapers, svc):
    home, celery = scrapers
    jobs = job_table()
    assert jobs["crawl"].queue == jobs["index_youtube"].queue == "sources"
    with serve_site(PRODUCTHUNT) as ph, serve_site(TRUSTMRR) as tm:
        first = svc.wait_for_job(celery, submit(celery, "crawl", spider="producthunt",
                                                start_url=ph.url("/"), max_pages=1,
                                                delay=0))
        second = svc.wait_for_job(celery, submit(celery, "crawl", spider="trustmrr",
                                                 start_url=tm.url("/"), max_pages=3,
                                                 delay=0))
    assert first["state"] == "SUCCESS", first
    assert second["state"] == "SUCCESS", second
    assert first["result"]["indexed"] == 3  # the first page only (--max-pages 1)
    assert second["result"]["documents_after"] > first["result"]["documents_after"]
    listed = reads.source_search(home.settings, action="list")
    assert {s["source"] for s in listed["sources"]} == {"producthunt", "trustmrr"}


def test_bad_jobs_fail_cleanly_and_youtube_reports_bad_targets(scrapers, svc):
    home, celery = scrapers
    failed = svc.wait_for_job(celery, submit(celery, "crawl", spider="hackernews"))
    assert failed["state"] == "FAILURE" and failed["error"]["error"] == "bad_query"
    report = svc.wait_for_job(celery, submit(celery, "index_youtube", targets=["not a video"]))
    assert report["state"] == "SUCCESS"
    assert report["result"]["problems"] == [{"url": "not a video",
                                             "reason": "not a YouTube video URL or id"}]


def test_jobs_submitted_over_http(scrapers, svc):
    home, celery = scrapers
    with svc.api(home, log_name="api-sources.log") as (_, base), serve_site(TRUSTMRR) as site:
        def post(path: str, body: dict) -> tuple[int, dict]:
            request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        assert post("/v1/jobs/crawl", {"spider": "hackernews"})[0] == 422
        assert post("/v1/jobs/crawl", {"spider": "trustmrr", "delay": 0})[0] == 422
        assert post("/v1/jobs/index-youtube", {})[0] == 400
        code, queued = post("/v1/jobs/crawl", {"spider": "trustmrr", "max_pages": 2,
                                               "start_url": site.url("/"), "delay": 0.5})
        assert (code, queued["queue"]) == (202, "sources")
        done = svc.wait_for_job(celery, queued["job"])
    assert done["state"] == "SUCCESS" and done["result"]["pages"] == 2
