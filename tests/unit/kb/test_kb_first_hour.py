"""The KB rows a newcomer meets first: one page read through `kb_search` (still five tools),
the hint that names that argument and a command that pastes, `--expand` that a catalog hit does
not flood, and the warnings that replace silent zeros."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from solograph import reads
from solograph.config import Settings
from solograph.kb.hint import Hint
from solograph.kb.sync import index_kb
from solograph_services.mcp.server import build_server
from tests.support.kb import make_kb
from tests.support.procs import solograph_cmd


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def kb(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path),
                    claude_projects=tmp_path / "claude")


def test_kb_search_reads_one_page_or_section_with_get(kb):
    whole = reads.kb_search(kb, get="wiki/agent-sandboxing.md")
    assert whole["path"] == "wiki/agent-sandboxing.md" and "results" not in whole
    assert "Seatbelt profiles" in whole["text"]
    section = reads.kb_search(kb, get="wiki/agent-sandboxing.md#Setup")
    assert section["section"].endswith("Setup") and "sandbox-exec" in section["text"]
    assert "Outbound network" not in section["text"]
    assert section == reads.kb_get(kb, "wiki/agent-sandboxing.md#Setup")  # the page alone


@pytest.mark.anyio
async def test_the_tool_schema_and_description_say_get(kb):
    async with Client(build_server(kb), raise_exceptions=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("kb_search", {"get": "wiki/recipe-box.md"})
    assert len(tools) == 5
    tool = tools["kb_search"]
    assert "get" in tool.input_schema["properties"] and "`get`" in tool.description
    assert tool.input_schema.get("required", []) == []  # a query, or a page to get
    assert {"results", "text"} <= set(tool.output_schema["properties"])  # a search or a page
    answer = json.loads(result.content[0].text)
    assert answer["path"] == "wiki/recipe-box.md" and result.structured_content == answer


def test_the_hint_names_get_and_its_command_pastes():
    text = Hint("wiki/my notes/it's here.md", "Its here", "here").text
    assert 'kb_search with get "wiki/my notes/it\'s here.md"' in text
    command = text.split("`")[1]
    assert shlex.split(command) == ["solograph", "kb", "get", "wiki/my notes/it's here.md"]


def test_a_catalog_hit_passes_no_links_on(tmp_path):
    root = tmp_path / "notes"
    (root / "wiki").mkdir(parents=True)
    pages = {"index.md": "# Index\n\n- [[alpha]] zeppelin\n- [[beta]]\n- [[gamma]]\n",
             "alpha.md": "# Alpha\n\nzeppelin hangars, see [[gamma]]\n",
             "beta.md": "# Beta\n\nboats\n", "gamma.md": "# Gamma\n\nmasts\n"}
    for name, text in pages.items():
        (root / "wiki" / name).write_text(text, encoding="utf-8")
    settings = Settings(home=tmp_path / "home", kb_path=root)
    answer = reads.kb_search(settings, "zeppelin", expand=True)
    assert {r["path"] for r in answer["results"]} == {"wiki/index.md", "wiki/alpha.md"}
    # gamma comes through alpha's link; beta, listed only by the catalog, does not
    assert [(e["path"], e["linked_from"]) for e in answer["expanded"]] == [
        ("wiki/gamma.md", ["wiki/alpha.md"])]


def test_a_kb_without_its_wiki_folder_says_so(tmp_path):
    root = tmp_path / "notes"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nzeppelin\n", encoding="utf-8")
    settings = Settings(home=tmp_path / "home", kb_path=root)
    answer = reads.kb_search(settings, "zeppelin")
    assert answer["count"] == 1 and "kb: pages:" in answer["warnings"][0]
    assert "no wiki/ folder" in answer["warnings"][0]
    assert "kb: pages:" in reads.kb_graph(settings)["warnings"][0]
    assert "warning:" in index_kb(settings)["summary"]
    (root / ".solograph.yaml").write_text("kb:\n  pages: docs/\n", encoding="utf-8")
    assert "warnings" not in reads.kb_search(settings, "zeppelin")


def run(args: list[str], cwd: Path, home: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k != "KB_PATH"}
    return subprocess.run(solograph_cmd(*args), cwd=cwd, capture_output=True, text=True,
                          timeout=60, env={**clean, "SOLOGRAPH_HOME": str(home), **env})


def test_kb_without_kb_path_says_it_used_this_folder(tmp_path):
    root = make_kb(tmp_path)
    done = run(["kb", "recipe", "--json"], root, tmp_path / "home")
    assert done.returncode == 0 and json.loads(done.stdout)["count"] > 0
    assert f"KB_PATH is not set; using the current folder {root}" in done.stderr
    quiet = run(["kb", "recipe"], root, tmp_path / "home", KB_PATH=str(root))
    assert "KB_PATH" not in quiet.stderr


def test_kb_get_without_a_page_is_an_error_not_a_search(tmp_path):
    root = make_kb(tmp_path)
    done = run(["kb", "get"], root, tmp_path / "home", KB_PATH=str(root))
    assert done.returncode == 1 and "`kb get` needs the page" in done.stderr
    assert done.stdout == ""
