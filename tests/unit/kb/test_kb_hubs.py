"""Pages that list every page (an index, an overview, a glossary) do not win on words they only
list: a wiki page's file name names it (the Russian `Двойная трата` is `double-spend.md`, which
an English title asks for), and a page linking to most of the wiki counts half its score."""

from __future__ import annotations

from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings

TOPICS = {  # file name -> (Russian title, the English words its own text holds once)
    "double-spend": ("Двойная трата", "double spend"),
    "network-effects": ("Семь сетевых эффектов", "network effects"),
    "mempool": ("Мемпул", "mempool"),
    "halving": ("Халвинг", "halving schedule"),
    "difficulty": ("Сложность", "difficulty adjustment"),
    "lightning": ("Лайтнинг", "payment channels"),
    "taproot": ("Тапрут", "schnorr signatures"),
    "segwit": ("Сегвит", "segregated witness"),
    "utxo": ("Выходы", "unspent outputs"),
    "nodes": ("Узлы", "full node"),
    "mining": ("Майнинг", "proof of work"),
    "wallets": ("Кошельки", "seed phrase"),
}


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Settings:
    root = tmp_path_factory.mktemp("hubs") / "kb"
    pages = root / "wiki" / "ru"
    (pages / "concepts").mkdir(parents=True)
    lines, glossary = [], []
    for slug, (title, english) in TOPICS.items():
        filler = " ".join(["Биткоин сеть блок транзакция"] * 20)
        (pages / "concepts" / f"{slug}.md").write_text(
            f"---\ntitle: \"{title}\"\n---\n\n# {title}\n\n{filler}.\n\n## Подробнее\n\n"
            f"{filler}, ({english}), {filler}.\n", encoding="utf-8")
        lines.append(f"- [[ru/concepts/{slug}|{title}]] — {english} ({title})")
        glossary.append(f"### {title} ({english.title()})\n\nСм. [[ru/concepts/{slug}]].\n")
    (pages / "index.md").write_text("# Вики\n\n## Страницы\n\n" + "\n".join(lines) + "\n",
                                    encoding="utf-8")
    (pages / "glossary.md").write_text("# Глоссарий\n\n" + "\n".join(glossary),
                                       encoding="utf-8")
    return Settings(home=root.parent / "home", kb_path=root)


@pytest.mark.parametrize("query, slug", [
    ("double spend", "double-spend"),
    ("mempool", "mempool"),
    ("bitcoin's seven network effects", "network-effects"),
    ("schnorr signatures", "taproot"),
])
def test_the_page_asked_for_comes_before_the_pages_that_list_it(wiki, query, slug):
    top = reads.kb_search(wiki, query, path="wiki/ru")["results"][0]
    assert top["path"] == f"wiki/ru/concepts/{slug}.md", top


def test_a_hub_still_answers_what_only_it_holds(wiki):
    assert reads.kb_search(wiki, "Глоссарий", path="wiki/ru")["results"][0]["path"] == \
        "wiki/ru/glossary.md"
    assert reads.kb_search(wiki, "Страницы вики")["results"][0]["path"] == "wiki/ru/index.md"


def test_only_a_wiki_pages_file_name_names_it(tmp_path: Path):
    import sqlite3

    from solograph.kb.names import names_of
    from solograph.kb.store import db_path

    root = tmp_path / "kb"
    (root / "wiki").mkdir(parents=True)
    (root / "raw").mkdir()
    (root / "raw" / "crypto-anarchist-manifesto.md").write_text(
        "# Манифест\n\nтекст статьи\n", encoding="utf-8")
    (root / "wiki" / "double-spend.md").write_text("# Двойная трата\n\nтекст\n",
                                                    encoding="utf-8")
    (root / "wiki" / "index.md").write_text("# Вики\n\n[[double-spend]]\n", encoding="utf-8")
    settings = Settings(home=tmp_path / "home", kb_path=root)
    reads.kb_search(settings, "текст")  # indexed
    conn = sqlite3.connect(db_path(settings))
    try:
        ids = dict(conn.execute("SELECT path, id FROM docs"))
        names = names_of(conn, list(ids.values()))
    finally:
        conn.close()
    stems = {path: {n.stems for n in names[i].names} for path, i in ids.items()}
    assert ("doubl", "spend") in stems["wiki/double-spend.md"]  # the file name, a name
    assert ("crypto", "anarchist", "manifesto") not in stems["raw/crypto-anarchist-manifesto.md"]
    assert stems["wiki/index.md"] == {("вик",)}  # `index` names no page
