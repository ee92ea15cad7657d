"""The page for people in a real headless Chromium against a real `solograph ui` (uvicorn):
search and open a session, unfold a tool call, follow a wiki link to its backlink, the graph
draws one node per page and opens a page on click, hostile text runs nothing, and a
token-protected server refuses the page until it is opened once with ?token=."""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from tests.support.browser import chromium, need_browser, screenshots
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http
from tests.support.web import HOSTILE_ID, LONG_ID, LONG_MESSAGES, SESSION_ID, build_memory

pytestmark = pytest.mark.integration
TOKEN = "t0ken-for-the-page-" + "x" * 24


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLOGRAPH_", "CLAUDE_"))}
    env.update(CLAUDE_PROJECTS_PATH=str(settings.claude_projects), KB_PATH=str(settings.kb_path),
               SOLOGRAPH_HOME=str(settings.home), PYTHONUNBUFFERED="1",
               CODEGRAPH_SCAN_PATH=",".join(str(p) for p in settings.scan_paths), **extra)
    return env


@pytest.fixture(scope="module")
def memory(tmp_path_factory) -> Settings:
    need_browser()
    return build_memory(tmp_path_factory.mktemp("web-memory"))


def _serve(settings: Settings, logs: Path, **extra: str):
    port = free_port()
    return port, process(solograph_cmd("ui", "--port", str(port)), env=_env(settings, **extra),
                         log=logs)


@pytest.fixture(scope="module")
def server(memory, tmp_path_factory):
    log = tmp_path_factory.mktemp("web-logs") / "ui.log"
    port, running = _serve(memory, log)
    with running as proc:
        try:
            wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        except (RuntimeError, TimeoutError):
            pytest.fail(log.read_text(errors="replace"))
        assert f"http://127.0.0.1:{port}/ui/" in log.read_text()  # the address it printed
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return screenshots(tmp_path_factory.mktemp("screenshots"))


def _by(css: str):
    from selenium.webdriver.common.by import By

    return By.CSS_SELECTOR, css


def _wait(driver, css: str):
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 15).until(ec.presence_of_element_located(_by(css)))


def _untouched(driver) -> None:
    assert driver.execute_script("return window.__pwned === undefined")
    assert driver.title != "pwned"


def test_search_then_read_a_session_and_unfold_a_tool_call(server, browser, shots):
    from selenium.webdriver.common.keys import Keys

    browser.get(server + "/ui/")
    _wait(browser, "#box-sessions")
    assert "What the memory holds" in browser.page_source
    browser.save_screenshot(str(shots / "start.png"))
    browser.find_element(*_by("body")).send_keys("/")  # the key focuses search
    assert browser.switch_to.active_element.get_attribute("id") == "q"
    browser.switch_to.active_element.send_keys("webhook retry", Keys.ENTER)
    _wait(browser, "#group-sessions .hit")
    for group in ("sessions", "kb", "symbols", "sources"):
        assert browser.find_elements(*_by(f"#group-{group}"))
    browser.save_screenshot(str(shots / "search.png"))
    hit = next(a for a in browser.find_elements(*_by("#group-sessions a.hit-title"))
               if SESSION_ID in a.get_attribute("href"))
    hit.click()
    first = _wait(browser, "#first-match")
    assert "match" in first.get_attribute("class").split()
    assert browser.current_url.endswith("#first-match")
    assert browser.find_elements(*_by(".msg.sub-agent"))  # the sub-agent's messages inline
    tool = browser.find_element(*_by("details.tool"))
    assert tool.get_attribute("open") is None
    assert not tool.find_element(*_by("dd")).is_displayed()
    tool.find_element(*_by("summary")).click()
    assert tool.get_attribute("open") is not None
    assert "pytest -k webhook_retry" in tool.find_element(*_by("dd")).text
    assert "claude --resume " + SESSION_ID in browser.find_element(*_by("#resume")).text
    browser.save_screenshot(str(shots / "reader.png"))


def test_a_long_session_opens_on_the_page_of_its_match(server, browser, shots):
    browser.get(f"{server}/ui/session/{LONG_ID}?q=needle#first-match")
    first = _wait(browser, "#first-match")
    assert "the needle sits here" in first.text
    shown = browser.find_elements(*_by(".msg"))
    assert 0 < len(shown) <= 100 < LONG_MESSAGES  # one screen, not the whole session
    browser.find_element(*_by(".pager a.next")).click()
    _wait(browser, ".msg")
    assert "offset=" in browser.current_url


def test_a_wiki_link_leads_to_a_page_whose_backlink_leads_back(server, browser, shots):
    browser.get(server + "/ui/kb/page?ref=wiki/recipe-box.md")
    _wait(browser, ".markdown")
    link = next(a for a in browser.find_elements(*_by(".markdown a.wikilink"))
                if "agent-sandboxing" in a.get_attribute("href"))
    link.click()
    _wait(browser, "#backlinks")
    assert "Agent sandboxing" in browser.find_element(*_by(".markdown h1")).text
    browser.save_screenshot(str(shots / "wiki.png"))
    back = next(a for a in browser.find_elements(*_by("#backlinks a"))
                if "recipe-box" in a.get_attribute("href"))
    back.click()
    _wait(browser, ".markdown h1")
    assert "Recipe box" in browser.find_element(*_by(".markdown h1")).text
    # The index page's link to a page nobody wrote is marked broken, in the text and the list.
    browser.get(server + "/ui/kb/page?ref=wiki/index.md")
    broken = browser.find_elements(*_by(".markdown span.broken"))
    assert [b.text for b in broken] == ["missing-page"]
    assert "broken" in browser.find_element(*_by("#links")).text


def test_the_graph_draws_each_page_once_and_a_click_opens_it(server, browser, memory, shots):
    pages = reads.kb_graph(memory, nodes=True)["nodes"]
    browser.get(server + "/ui/kb/graph")
    _wait(browser, "#graph a.node circle")
    nodes = browser.find_elements(*_by("#graph a.node"))
    drawn = sorted(n.get_attribute("data-path") for n in nodes)
    assert drawn == sorted(p["path"] for p in pages) and len(drawn) == len(pages) > 3
    browser.save_screenshot(str(shots / "graph.png"))
    target = next(n for n in nodes
                  if n.get_attribute("data-path") == "wiki/privacy-architecture.md")
    target.find_element(*_by("circle")).click()
    _wait(browser, ".markdown h1")
    assert "ref=wiki/privacy-architecture.md" in browser.current_url


def test_a_symbol_hit_shows_its_lines(server, browser, shots):
    browser.get(server + "/ui/search?q=auth+middleware")
    _wait(browser, "#group-symbols a.hit-title").click()
    here = _wait(browser, "pre.code .line.here")
    assert "AuthMiddleware" in here.text or "auth_middleware" in here.text.lower()
    browser.save_screenshot(str(shots / "symbol.png"))
    browser.get(server + "/ui/sessions")
    _wait(browser, "table.list tbody tr")
    browser.save_screenshot(str(shots / "sessions.png"))


def test_hostile_text_runs_nothing(server, browser, shots):
    for url in (f"/ui/session/{HOSTILE_ID}", "/ui/kb/page?ref=wiki/hostile.md",
                "/ui/search?q=hostile+transcript", "/ui/kb/graph"):
        browser.get(server + url)
        _wait(browser, "main")
        _untouched(browser)
        assert not browser.find_elements(*_by("main script:not(#graph-data), main iframe, "
                                              "main img[onerror], main [onload]"))
        hrefs = [a.get_attribute("href") or "" for a in browser.find_elements(*_by("a"))]
        assert not [h for h in hrefs if h.lower().startswith(("javascript:", "data:"))]
    browser.get(server + "/ui/kb/page?ref=wiki/hostile.md")
    assert "<script>document.title='pwned'" in browser.find_element(*_by(".markdown")).text
    browser.save_screenshot(str(shots / "hostile.png"))
    # The CSP stops inline script even when it does get into the page.
    ran = browser.execute_script(
        "var s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
        "document.head.appendChild(s); return window.__inline === undefined;")
    assert ran is True
    with urllib.request.urlopen(server + "/ui/") as response:
        policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def test_a_token_server_refuses_the_page_until_given_the_token(memory, tmp_path_factory,
                                                               browser, shots):
    log = tmp_path_factory.mktemp("web-token") / "ui.log"
    port, running = _serve(memory, log, SOLOGRAPH_TOKEN=TOKEN)
    base = f"http://127.0.0.1:{port}"
    with running as proc:
        wait_for_http(f"{base}/health", proc=proc)
        assert f"{base}/ui/?token={TOKEN}" in log.read_text()  # printed as Jupyter prints it
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/ui/")
        refused.value.close()
        assert refused.value.code == 401
        browser.delete_all_cookies()
        browser.get(f"{base}/ui/")
        assert "What the memory holds" not in browser.page_source
        assert "token" in browser.page_source
        browser.get(f"{base}/ui/?token=wrong")
        assert "What the memory holds" not in browser.page_source
        browser.get(f"{base}/ui/?token={TOKEN}")
        _wait(browser, "#box-sessions")
        assert "token=" not in browser.current_url  # dropped from the address at once
        cookie = browser.get_cookie("solograph_token")
        assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
        browser.get(f"{base}/ui/sessions")
        _wait(browser, "table.list tbody tr")
        # The cookie is for the page only: the JSON API still wants the bearer header.
        browser.get(f"{base}/v1/sessions/list")
        assert "unauthorized" in browser.page_source
