"""The portfolio suite: symbol search over real open-source projects, pinned by version.

Each project is fetched once by package name from its registry (an sdist from PyPI with pip,
a tarball from npm with `npm pack`, a source package from Debian with `apt-get download`;
evals/fetch.py), checked against a pinned sha256, extracted into
`evals/.corpus/portfolio/<name>/` and made a git checkout (`git init`; its files are untracked,
which the scan lists). Every run indexes those checkouts into a fresh temporary home, so the
score always reflects the current extraction and ranking code.

A result's id is `project:path:qualname`: the project (the checkout's folder name), the path
inside it as the index stores it, and the definition's name prefixed by its enclosing scope as
the index reports it (`Session.get`, `enablePatches.applyPatches_`; a top-level definition is
just its name).
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from evals.fetch import CORPUS, FetchError, Pin, ensure_corpus
from evals.scoring import Case, QueryRefused, Unavailable

EVALS = Path(__file__).resolve().parent
CASES = EVALS / "portfolio.jsonl"
LIMIT = 20

Log = Callable[[str], None]

__all__ = ["CORPUS", "PINS", "FetchError", "Pin", "open_runner", "result_id"]

PINS: tuple[Pin, ...] = (
    Pin("requests", "pypi", "requests", "2.32.3", "requests-2.32.3.tar.gz",
        "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760", "python"),
    Pin("click", "pypi", "click", "8.1.7", "click-8.1.7.tar.gz",
        "ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de", "python"),
    Pin("rich", "pypi", "rich", "13.7.1", "rich-13.7.1.tar.gz",
        "9be308cb1fe2f1f57d67ce99e95af38a1e2bc71ad9813b0e247cf7ffbcc3a432", "python"),
    Pin("express", "npm", "express", "4.19.2", "express-4.19.2.tgz",
        "1b18c90e7e9fc4cb3e4dfe6b5f11c21b85509162e88ca5c6b63b9c6b5ca085bf", "javascript"),
    Pin("commander", "npm", "commander", "12.1.0", "commander-12.1.0.tgz",
        "56affc6ddafe486f94b428ae2823d059cf60d4dae2f33eaaf1b1ec4306f73173", "javascript"),
    Pin("immer", "npm", "immer", "10.1.1", "immer-10.1.1.tgz",
        "946cc79684ad1e080b09d4f2da14247b272aa667f3aaa100f35846148689f08f", "typescript"),
    Pin("expo-modules-core", "npm", "expo-modules-core", "1.12.26",
        "expo-modules-core-1.12.26.tgz",
        "6b1a51222c4c08dfe001f8e0dcf29001342202cef3ee840a415b173030d6cf23", "swift"),
    Pin("bats", "npm", "bats", "1.13.0", "bats-1.13.0.tgz",
        "b7ae290dbc7e44709d5e3430698f3048a978bef871c6063f5fca49a20e5aaf58", "bash"),
    Pin("log", "debian", "librust-log-dev", "0.4.17-3", "librust-log-dev_0.4.17-3_amd64.deb",
        "bd34d9fc5aaa80121cb1446f848ec99993f97c18f743bcb3f6c4824644c1d0cd", "rust"),
    Pin("terraform-json", "debian", "golang-github-hashicorp-terraform-json-dev", "0.5.0-3",
        "golang-github-hashicorp-terraform-json-dev_0.5.0-3_all.deb",
        "d11be9acf4dacfe1c3efd5f31f145cd93c6cb1b119f5c27b38c4977c3f764f69", "hcl"),
)


# --------------------------------------------------------------------------- runner


def result_id(hit: dict) -> str:
    """`project:path:qualname` of one symbol_search result."""
    qualname = f"{hit['scope']}.{hit['name']}" if hit.get("scope") else hit["name"]
    return f"{hit['project']}:{hit['path']}:{qualname}"


class PortfolioRunner:
    def __init__(self, settings) -> None:
        self.settings = settings

    def search(self, case: Case) -> list[str]:
        from solograph.errors import BadQuery, UnknownProject
        from solograph.reads import symbol_search

        try:
            answer = symbol_search(self.settings, case.query, project=case.project,
                                   limit=LIMIT)
        except (BadQuery, UnknownProject) as exc:
            raise QueryRefused(exc.message) from None
        return [result_id(hit) for hit in answer["results"]]

    def indexed(self, ids: Iterable[str]) -> set[str]:
        """The ids among `ids` that name a definition in the index (diagnostics for misses:
        a missing one is an extraction gap, not a ranking one)."""
        wanted = set(ids)
        found: set[str] = set()
        conn = sqlite3.connect(f"file:{self.settings.portfolio_db}?mode=ro", uri=True)
        try:
            for item in wanted:
                project, _, rest = item.partition(":")
                path, _, qualname = rest.rpartition(":")
                # A name may hold dots itself (a Terraform address): match the whole.
                row = conn.execute(
                    "SELECT 1 FROM symbols s JOIN files f ON f.id = s.file_id "
                    "JOIN projects p ON p.id = s.project_id "
                    "WHERE p.name = ? AND f.path = ? AND (CASE WHEN s.scope = '' THEN s.name "
                    "ELSE s.scope || '.' || s.name END) = ? LIMIT 1",
                    (project, path, qualname)).fetchone()
                if row:
                    found.add(item)
        finally:
            conn.close()
        return found


@contextmanager
def open_runner(log: Log = print) -> Iterator[PortfolioRunner]:
    """Fetch (once) and index the pinned projects into a temporary home; yield the runner."""
    from solograph.config import Settings
    from solograph.portfolio.sync import refresh_registry, scan_portfolio

    try:
        started = time.perf_counter()
        checkouts = ensure_corpus("portfolio", PINS, log=log)
        log(f"portfolio: corpus ready in {time.perf_counter() - started:.1f}s "
            f"({len(PINS)} projects: {', '.join(p.name for p in PINS)})")
    except FetchError as exc:
        if os.environ.get("SOLOGRAPH_EVAL_OFFLINE"):
            raise Unavailable(f"corpus not fetched ({exc})") from None
        raise
    with tempfile.TemporaryDirectory(prefix="solograph-eval-") as tmp:
        settings = Settings(home=Path(tmp) / "home", scan_paths=(checkouts,))
        refresh_registry(settings)
        report = scan_portfolio(settings)
        log(f"portfolio: {report['summary']}")
        yield PortfolioRunner(settings)

