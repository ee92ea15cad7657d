"""Debian's chromium, headless, driven through Debian's chromedriver by Selenium: nothing is
downloaded (the driver's path is given, so Selenium Manager never runs). Tests skip without
them unless SOLOGRAPH_REQUIRE_BROWSER=1 (CI), where their absence is a failure."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=en-US"]


def need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if not missing:
        return
    why = f"needs {', '.join(missing)} (apt-get install chromium chromium-driver)"
    if os.environ.get("SOLOGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail(why)
    pytest.skip(why)


@contextmanager
def chromium() -> Iterator:
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="solograph-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshots(fallback: Path) -> Path:
    """Where the screenshots go: $SOLOGRAPH_SCREENSHOTS, else a folder of the test run."""
    folder = Path(os.environ.get("SOLOGRAPH_SCREENSHOTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
