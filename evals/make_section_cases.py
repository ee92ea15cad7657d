"""Write the `section` cases of evals/kb.jsonl: a few body words of one heading section.

    .venv/bin/python evals/make_section_cases.py > /tmp/section.jsonl

The words are drawn from the files, never from what the engine returns: a seeded random
section of a wiki page (at least MIN_WORDS words), then two to four of its words that are not
stopwords, not in the page's title, and in at least two pages of the KB (a word found on one
page alone names it without any ranking): for two cases in three any such words alike, for the
rest rarer words likelier. `expected` lists every page with one section
holding all the drawn words (by stem), wiki or not; a draw that more than MAX_ANSWERS pages
answer is dropped. Sections are cut at headings as written (`#` to `######` outside code),
independently of the index's own cutting.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "shared"))

from solograph.text.tokens import STOPWORDS, stem  # noqa: E402

SEED = 13
MIN_WORDS = 40
MAX_ANSWERS = 3
WIKIS = {  # kb name -> (corpus folder, folders of wiki pages, id prefix of the wiki in the KB)
    "21ideas": ("21ideas-wiki", {"wiki-en": "wiki/en", "wiki-ru": "wiki/ru"}, 40),
    "ekgardt": ("ekgardt-llm-wiki", {"knowledge": "knowledge"}, 24),
}
WORD = re.compile(r"[^\W\d_]{4,}")
HEADING = re.compile(r"^#{1,6}\s")
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\[\[([^\]|]*\|)?([^\]]*)\]\]")


def body(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            return text[end + 4:]
    return text


def frontmatter_title(text: str, fallback: str) -> str:
    m = re.search(r"^title:\s*\"?([^\"\n]+)", text[:2000], re.M)
    return m.group(1) if m else fallback


def sections(text: str) -> list[str]:
    out, current, fence = [], [], False
    for line in body(text).split("\n"):
        if FENCE.match(line):
            fence = not fence
        if not fence and HEADING.match(line):
            out.append("\n".join(current))
            current = []
            continue
        current.append(line)
    out.append("\n".join(current))
    return [s for s in out if s.strip()]


def content_words(text: str) -> list[str]:
    text = LINK.sub(lambda m: m.group(2), text)
    text = re.sub(r"https?://\S+", " ", text)
    return [w.lower() for w in WORD.findall(text) if w.lower() not in STOPWORDS]


def draw(rng: random.Random, pool: list[str], n: int, freq: dict[str, int],
         rare: bool) -> list[str]:
    """`n` words of `pool`; with `rare`, rarer words likelier (weight 1 / pages holding the
    word), as a person recalls a section's distinctive words, else any word alike."""
    pool, out = list(pool), []
    while pool and len(out) < n:
        weights = [1 / freq[stem(w)] if rare else 1.0 for w in pool]
        pick = rng.choices(pool, weights=weights)[0]
        pool.remove(pick)
        out.append(pick)
    return out


def main() -> int:
    corpora = Path(os.environ.get("SOLOGRAPH_CORPORA", ROOT.parent / "shared" / "corpora"))
    rng = random.Random(SEED)
    for kb, (folder, wiki_dirs, wanted) in WIKIS.items():
        src = corpora / "wiki" / folder
        pages: dict[str, list[set[str]]] = {}  # KB path -> stems of each section
        wiki: list[tuple[str, str, list[str]]] = []  # (KB path, title, section texts)
        for path in sorted(src.rglob("*.md")):
            rel = path.relative_to(src).as_posix()
            top = rel.split("/", 1)[0]
            kb_path = wiki_dirs[top] + rel[len(top):] if top in wiki_dirs else rel
            text = path.read_text(encoding="utf-8", errors="replace")
            parts = sections(text)
            pages[kb_path] = [{stem(w) for w in content_words(p)} for p in parts]
            if top in wiki_dirs and path.name not in ("index.md", "log.md"):
                wiki.append((kb_path, frontmatter_title(text, path.stem), parts))
        page_freq: dict[str, int] = {}
        for secs in pages.values():
            for s in set().union(*secs) if secs else ():
                page_freq[s] = page_freq.get(s, 0) + 1
        made, tries = 0, 0
        while made < wanted and tries < 5000:
            tries += 1
            kb_path, title, parts = rng.choice(wiki)
            if not parts:
                continue
            section = rng.choice(parts)
            title_stems = {stem(w) for w in content_words(title)}
            pool = list(dict.fromkeys(
                w for w in content_words(section)
                if stem(w) not in title_stems and page_freq.get(stem(w), 0) >= 2))
            if len(content_words(section)) < MIN_WORDS or len(pool) < 4:
                continue
            drawn = draw(rng, pool, rng.choice((2, 3, 3, 4)), page_freq, rare=made % 3 == 2)
            need = {stem(w) for w in drawn}
            if len(need) < len(drawn):
                continue
            answers = sorted(p for p, secs in pages.items() if any(need <= s for s in secs))
            if kb_path not in answers or len(answers) > MAX_ANSWERS:
                continue
            made += 1
            print(json.dumps({
                "id": f"{kb}-section-{made}", "query": " ".join(drawn),
                "expected": [f"{kb}:{p}" for p in answers], "project": kb,
                "tags": ["section", "ru" if re.search("[а-я]", drawn[0]) else "en"],
                "notes": f"words of one section of {kb_path} (evals/make_section_cases.py, "
                         f"seed {SEED})"}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
