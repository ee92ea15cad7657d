"""The link graph: hubs, connectors, orphans, broken links, pages missing from index.md,
backlinks, the --check gate; on a fixture and on the two real wikis, against counts made here
independently with a plain regex and file lookups."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from tests.support.kb import layout_21ideas, layout_ekgardt, make_kb
from tests.support.procs import solograph_cmd


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path))


def test_fixture_graph(settings):
    g = reads.kb_graph(settings)
    assert (g["pages"], g["links"], g["edges"]) == (6, 12, 8)
    assert g["orphans"] == ["wiki/broken-front.md", "wiki/orphan-note.md"]
    assert g["missing_from_index"] == ["wiki/broken-front.md", "wiki/orphan-note.md"]
    assert g["broken"] == [
        {"from": "wiki/index.md", "line": 9, "target": "missing-page", "reason": "no page"},
        {"from": "wiki/recipe-box.md", "line": 20, "target": "nowhere", "reason": "no page"},
        {"from": "wiki/recipe-box.md", "line": 21,
         "target": "agent-sandboxing#No such heading", "reason": "no heading"}]
    assert [f["path"] for f in g["frontmatter"]] == ["wiki/broken-front.md"]
    assert g["problems"] == 2 + 2 + 3 + 1
    assert g["hubs"][0] == {"path": "wiki/agent-sandboxing.md", "title": "Agent sandboxing",
                            "inbound": 2, "out": 2}


def test_check_prints_only_problems_and_fails(settings):
    g = reads.kb_graph(settings, check=True)
    assert "hubs" not in g and g["problems"] == 8
    env = {**os.environ, "SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path)}
    out = subprocess.run(solograph_cmd("kb-graph", "--check"), env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1
    assert "orphan: wiki/orphan-note.md" in out.stdout and "hubs" not in out.stdout


def test_check_passes_on_a_clean_wiki(tmp_path):
    pages = {"wiki/index.md": "- [[a]]\n- [[b]]\n", "wiki/a.md": "# A\n\n[[b]]\n",
             "wiki/b.md": "# B\n\n[[a#A]]\n"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    assert reads.kb_graph(settings, check=True)["problems"] == 0
    env = {**os.environ, "SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path)}
    out = subprocess.run(solograph_cmd("kb-graph", "--check", "--json"), env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and '"problems":0' in out.stdout


def test_backlinks_of_one_page(settings):
    g = reads.kb_graph(settings, page="recipe-box")
    assert g["page"] == "wiki/recipe-box.md"
    assert [(b["from"], b["line"]) for b in g["backlinks"]] == [
        ("wiki/agent-sandboxing.md", 10), ("wiki/index.md", 7),
        ("wiki/privacy-architecture.md", 8)]
    assert [x["path"] for x in g["links"]] == ["wiki/agent-sandboxing.md", None,
                                               "wiki/agent-sandboxing.md"]


def test_connectors_are_pages_on_the_paths_between_others(tmp_path):
    pages = {"wiki/a.md": "[[hub]]", "wiki/b.md": "[[hub]]", "wiki/c.md": "[[hub]]",
             "wiki/hub.md": "[[d]]", "wiki/d.md": "[[e]]", "wiki/e.md": "x"}
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path, pages=pages,
                                                                config=""))
    g = reads.kb_graph(settings)
    assert [c["path"] for c in g["connectors"]][:2] == ["wiki/hub.md", "wiki/d.md"]
    assert g["hubs"][0]["path"] == "wiki/hub.md"


# --------------------------------------------------------------- the real wikis, independently

LINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.M)


def md_files(root: Path) -> list[Path]:
    out = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out += [Path(folder) / f for f in files if f.endswith(".md") and not f.startswith(".")]
    return out


def outside_code(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        text = "\n" * text[:end].count("\n") + text[end + 4:] if end > 0 else text
    kept, fence = [], None
    for line in text.split("\n"):
        mark = re.match(r"\s{0,3}(`{3,}|~{3,})", line)
        if fence:
            if mark and mark.group(1)[0] == fence[0] and len(mark.group(1)) >= len(fence):
                fence = None
            kept.append("")
            continue
        if mark:
            fence = mark.group(1)
            kept.append("")
            continue
        kept.append(re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", line))
    return "\n".join(kept)


def headings(path: Path) -> set[str]:
    found = set()
    for h in HEADING.findall(outside_code(path.read_text(encoding="utf-8"))):
        plain = h.replace("**", "").replace("`", "").strip()
        found.add(plain.casefold())
        found.add(re.sub(r"[^\w\- ]", "", plain.casefold()).strip().replace(" ", "-"))
    return found


def independent(root: Path, wiki: Path, resolve) -> dict:
    pages = md_files(wiki)
    catalogs = {p for p in pages if p.name == "index.md"}
    content = {p for p in pages if p not in catalogs
               and not any(x.startswith("_") for x in p.relative_to(root).parts)}
    links = broken = 0
    inbound: dict[Path, set[Path]] = {p: set() for p in pages}
    listed: set[Path] = set()
    for page in pages:
        for m in LINK.finditer(outside_code(page.read_text(encoding="utf-8"))):
            links += 1
            inner = m.group(1).replace("\\|", "|").split("|")[0]
            target, _, anchor = inner.partition("#")
            found = resolve(target.strip()) if target.strip() else page
            if found is None or (anchor and not anchor.startswith("^") and found.suffix == ".md"
                                 and anchor.split("#")[-1].strip().casefold()
                                 not in headings(found)):
                broken += 1
                continue
            if found in inbound and found != page:
                if page in catalogs:
                    listed.add(found)
                else:
                    inbound[found].add(page)
    orphans = sorted(str(p.relative_to(root)) for p in content if not inbound[p])
    missing = sorted(str(p.relative_to(root)) for p in content if p not in listed)
    return {"pages": len(pages), "links": links, "broken": broken, "orphans": orphans,
            "missing_from_index": missing}


def check_graph(root: Path, wiki: Path, resolve, home: Path) -> dict:
    expected = independent(root, wiki, resolve)
    g = reads.kb_graph(Settings(home=home, kb_path=root))
    got = {"pages": g["pages"], "links": g["links"], "broken": len(g["broken"]),
           "orphans": g["orphans"], "missing_from_index": g["missing_from_index"]}
    assert got == expected
    return g


def test_the_21ideas_graph(corpora, tmp_path):
    root = layout_21ideas(corpora, tmp_path)

    def resolve(target: str) -> Path | None:  # its links are [[en/...]] and [[ru/...]]
        path = root / "wiki" / f"{target}.md"
        return path if path.is_file() else None

    g = check_graph(root, root / "wiki", resolve, tmp_path / "home")
    assert g["pages"] == 164 and g["links"] > 2500
    assert {"from": "wiki/en/glossary.md", "line": 272,
            "target": "en/concepts/lightning network", "reason": "no page"} in g["broken"]
    assert g["hubs"][0]["path"] == "wiki/ru/glossary.md"


def test_the_ekgardt_graph(corpora, tmp_path):
    root = layout_ekgardt(corpora, tmp_path)
    by_name: dict[str, list[Path]] = {}
    for p in md_files(root):
        by_name.setdefault(p.stem.casefold(), []).append(p)

    def resolve(target: str) -> Path | None:  # a path from the root, else a file's name
        path = root / f"{target}.md"
        if path.is_file():
            return path
        found = by_name.get(Path(target).name.casefold())
        return found[0] if found and len(found) == 1 else None

    g = check_graph(root, root / "knowledge", resolve, tmp_path / "home")
    assert g["pages"] == 45
    assert "knowledge/log.md" in g["missing_from_index"]
