"""The KB suites: kb_search over the two real wikis in ../shared/corpora/wiki/.

- `21ideas`: the bilingual Bitcoin wiki laid out as Quartz publishes it, wiki/en and wiki/ru
  (its links are [[en/...]] and [[ru/...]]), with its 312 Russian source articles in raw/ and
  its docs/ beside the wiki: Russian notes outside the wiki, as the two lanes expect.
- `ekgardt`: the agent-kept English wiki, `kb: pages: knowledge/`.

Cases name their KB in `project` and may scope the search with `meta.path` (the Russian
questions for English pages search wiki/en only, where no Russian page can answer). A result's
id is `<kb>:<path from the KB root>`, e.g. `21ideas:wiki/en/concepts/taproot.md`.

Three suites run the same cases: `kb` with the hand-kept alias tables in evals/kb_aliases/
(the configuration a user has), `kb-noalias` without any, and `kb-suggested` with the groups
`kb-aliases --suggest` proposes from each wiki itself. Needs SOLOGRAPH_CORPORA (skipped
otherwise).

A fourth, `kb-bilingual`, runs evals/kb_bilingual.jsonl (each Russian title should find its
English twin) over the bilingual wiki laid out as `kb: pages: wiki-en/` with wiki-ru/ beside
it, with the groups `kb-aliases --suggest` proposes there. A fifth, `kb-aliasnames`, runs the same
cases with no table, each English page naming its twin's Russian title in its frontmatter
`aliases:` instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from evals import semantic
from evals.scoring import Case, QueryRefused, Unavailable

EVALS = Path(__file__).resolve().parent
CASES = EVALS / "kb.jsonl"
QUESTIONS = EVALS / "kb_questions.jsonl"
BILINGUAL = EVALS / "kb_bilingual.jsonl"
ALIASES = EVALS / "kb_aliases"
LIMIT = 20

Log = Callable[[str], None]


def corpora() -> Path:
    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    if not raw or not (Path(raw) / "wiki").is_dir():
        raise Unavailable("SOLOGRAPH_CORPORA is not set (the real wikis live there)")
    return Path(raw)


def _copy(dst: Path, src: Path) -> None:
    """A copy of a corpus file or folder inside the KB: a symbolic link would leave the KB
    folder, and the index never follows one that does."""
    if src.is_dir():
        shutil.copytree(src, dst, copy_function=shutil.copy2)
    else:
        shutil.copy2(src, dst)


def layout_21ideas(src: Path, root: Path) -> tuple[Path, Path]:
    (root / "wiki").mkdir(parents=True)
    _copy(root / "wiki" / "en", src / "wiki-en")
    _copy(root / "wiki" / "ru", src / "wiki-ru")
    for name in ("raw", "docs", "README.md", "CLAUDE.md"):
        _copy(root / name, src / name)
    return root, root / "wiki"


def layout_ekgardt(src: Path, root: Path) -> tuple[Path, Path]:
    root.mkdir(parents=True)
    for entry in src.iterdir():
        if entry.name != "knowledge":
            _copy(root / entry.name, entry)
    (root / "knowledge").mkdir()  # a real folder, so the alias table can be written in it
    for entry in (src / "knowledge").iterdir():
        _copy(root / "knowledge" / entry.name, entry)
    (root / ".solograph.yaml").write_text("kb:\n  pages: knowledge/\n", encoding="utf-8")
    return root, root / "knowledge"


def layout_21ideas_en(src: Path, root: Path) -> tuple[Path, Path]:
    """The bilingual wiki with the English one as the wiki (`kb: pages: wiki-en/`) and its
    Russian twin beside it, as a bilingual vault often is."""
    root.mkdir(parents=True)
    for name in ("wiki-en", "wiki-ru", "raw", "docs", "README.md", "CLAUDE.md"):
        _copy(root / name, src / name)
    (root / ".solograph.yaml").write_text("kb:\n  pages: wiki-en/\n", encoding="utf-8")
    return root, root / "wiki-en"


def layout_21ideas_en_aliased(src: Path, root: Path) -> tuple[Path, Path]:
    """The `pages: wiki-en/` layout where each English page names its Russian twin's title in
    its frontmatter `aliases:`, as bilingual vaults do, and no alias table is kept."""
    import json
    import re

    from evals.make_bilingual_cases import russian_title

    root.mkdir(parents=True)
    for path in sorted((src / "wiki-en").rglob("*")):
        rel = path.relative_to(src / "wiki-en")
        out = root / "wiki-en" / rel
        if path.is_dir():
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        twin = src / "wiki-ru" / rel
        name = russian_title(twin) if path.suffix == ".md" and twin.is_file() else ""
        text = path.read_text(encoding="utf-8")
        if name and text.startswith("---\n"):
            text = re.sub(r"^aliases:.*\n", "", text, flags=re.M)
            text = "---\naliases: " + json.dumps([name], ensure_ascii=False) + "\n" + text[4:]
        out.write_text(text, encoding="utf-8")
    for name in ("wiki-ru", "raw", "docs", "README.md", "CLAUDE.md"):
        _copy(root / name, src / name)
    (root / ".solograph.yaml").write_text("kb:\n  pages: wiki-en/\n", encoding="utf-8")
    return root, root / "wiki-en"


KBS = {"21ideas": ("21ideas-wiki", layout_21ideas), "ekgardt": ("ekgardt-llm-wiki",
                                                                layout_ekgardt)}


@dataclass
class KbRunner:
    settings: dict[str, object]  # kb name -> Settings
    fused: bool = False

    def search(self, case: Case) -> list[str]:
        from solograph import reads
        from solograph.errors import BadQuery

        kb = case.project or "21ideas"
        path = case.meta.get("path") if case.meta else None
        settings = semantic.lane_on(self.settings[kb]) if self.fused else self.settings[kb]
        try:
            answer = reads.kb_search(settings, case.query, path=path, limit=LIMIT)
        except BadQuery as exc:
            raise QueryRefused(exc.message) from None
        return [f"{kb}:{r['path']}" for r in answer["results"]]

    def indexed(self, ids: tuple[str, ...]) -> set[str]:
        import sqlite3

        found = set()
        for item in ids:
            kb, _, path = item.partition(":")
            conn = sqlite3.connect(self.settings[kb].kb_db)
            try:
                if conn.execute("SELECT 1 FROM docs WHERE path = ?", (path,)).fetchone():
                    found.add(item)
            finally:
                conn.close()
        return found


def _indexed(aliases: str, log: Log, kbs: dict) -> dict:
    """Each KB laid out, indexed and given its alias table, in a home kept for the run: the
    suites over one layout and table (lexical and fused at every share) share it."""
    from solograph import reads
    from solograph.config import Settings
    from solograph.kb.sync import index_kb

    src = corpora() / "wiki"

    def build(folder: Path) -> dict:
        settings = {}
        for name, (corpus, layout) in kbs.items():
            root, wiki = layout(src / corpus, folder / name)
            s = Settings(home=folder / "home", kb_path=root)
            report = index_kb(s)
            if aliases == "hand":
                (wiki / "_aliases.yaml").write_text(
                    (ALIASES / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
            elif aliases == "suggested":
                yaml = reads.kb_aliases(s, suggest=True)["yaml"]
                (wiki / "_aliases.yaml").write_text(yaml, encoding="utf-8")
            groups = reads.kb_aliases(s)["groups"]
            log(f"kb ({aliases} aliases): {name}: {report['summary']}; {groups} alias groups")
            settings[name] = s
        return settings
    key = ("kb", aliases, tuple((n, c, layout.__name__) for n, (c, layout) in kbs.items()))
    return semantic.KEPT.get(key, build)  # type: ignore[return-value]


def _open(aliases: str, log: Log, kbs: dict = KBS,
          share: int | None = None) -> Iterator[KbRunner]:
    """The runner over the KBs; fused (`share` not None) with that share of each wiki
    folder's sections embedded, the rest of each KB waiting."""
    if share is not None:
        semantic.require()
    settings = _indexed(aliases, log, kbs)
    if share is not None:
        from solograph.kb import meaning as lane
        from solograph.store import connect_writer

        for name, s in settings.items():
            conn = connect_writer(s.kb_db, "kb")
            try:
                wiki = {r[0] for r in conn.execute(
                    "SELECT s.id FROM sections s JOIN docs d ON d.id = s.doc "
                    "WHERE d.in_pages = 1")}
                semantic.embed_share(lane.LANE, conn, share, log, f"kb: {name}",
                                     eligible=wiki.__contains__)
            finally:
                conn.close()
    yield KbRunner(settings, share is not None)


@contextmanager
def open_runner(log: Log = print) -> Iterator[KbRunner]:
    yield from _open("hand", log)


@contextmanager
def open_runner_noalias(log: Log = print) -> Iterator[KbRunner]:
    yield from _open("none", log)


@contextmanager
def open_runner_suggested(log: Log = print) -> Iterator[KbRunner]:
    yield from _open("suggested", log)


def open_runner_fused(aliases: str, share: int = 100):
    """The fused runner over the KBs with `aliases` ("hand", "none", "suggested")."""
    @contextmanager
    def opened(log: Log = print) -> Iterator[KbRunner]:
        yield from _open(aliases, log, share=share)
    return opened


@contextmanager
def open_runner_bilingual(log: Log = print) -> Iterator[KbRunner]:
    yield from _open("suggested", log, {"21ideas": ("21ideas-wiki", layout_21ideas_en)})


@contextmanager
def open_runner_aliasnames(log: Log = print) -> Iterator[KbRunner]:
    yield from _open("none", log, {"21ideas": ("21ideas-wiki", layout_21ideas_en_aliased)})
