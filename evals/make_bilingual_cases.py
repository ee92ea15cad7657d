"""Write evals/kb_bilingual.jsonl: each Russian page title of the bilingual wiki, searched
among the English pages, should find the page's English twin.

    .venv/bin/python evals/make_bilingual_cases.py > evals/kb_bilingual.jsonl

Twins are the pages at the same path under wiki-ru/ and wiki-en/. A title written in both
languages, "Мультиподпись (Multisig)", is searched by its Russian half only, since its English
half would find the page without any alias table. Titles without a Cyrillic letter, and the
catalogs (index.md), are left out. The cases run over the wiki laid out as `kb: pages:
wiki-en/`, the Russian wiki beside it (evals/kb.py, suite kb-bilingual).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOTH = re.compile(r"^\s*([^()]+?)\s*\(([^()]+)\)\s*$")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def title_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", text[:3000], re.M)
    return found.group(1).strip() if found else ""


def russian_title(path: Path) -> str:
    """A Russian page's title, by its Russian half when written in both languages; '' when
    it holds no Cyrillic letter."""
    title = title_of(path)
    both = BOTH.match(title)
    if both and CYRILLIC.search(both.group(1)) and not CYRILLIC.search(both.group(2)):
        title = both.group(1)
    return title if CYRILLIC.search(title) else ""


def main() -> int:
    corpora = Path(os.environ.get("SOLOGRAPH_CORPORA", ROOT.parent / "shared" / "corpora"))
    src = corpora / "wiki" / "21ideas-wiki"
    n = 0
    for ru in sorted((src / "wiki-ru").rglob("*.md")):
        rel = ru.relative_to(src / "wiki-ru").as_posix()
        en = src / "wiki-en" / rel
        if ru.name == "index.md" or not en.is_file():
            continue
        title = russian_title(ru)
        if not title:
            continue
        n += 1
        print(json.dumps({
            "id": f"bilingual-{n}", "query": title, "expected": [f"21ideas:wiki-en/{rel}"],
            "project": "21ideas", "meta": {"path": "wiki-en"}, "tags": ["russian", "title"],
            "notes": f"the title of wiki-ru/{rel}; its twin is wiki-en/{rel}"},
            ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
