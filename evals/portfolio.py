"""The portfolio suite: symbol search over real open-source projects, pinned by version.

Each project is fetched once by package name from its registry (an sdist from PyPI with pip,
a tarball from npm with `npm pack`), checked against a pinned sha256, extracted into
`evals/.corpus/portfolio/<name>/` and made a git checkout (`git init`; its files are untracked,
which the scan lists). Every run indexes those checkouts into a fresh temporary home, so the
score always reflects the current extraction and ranking code.

A result's id is `project:path:qualname`: the project (the checkout's folder name), the path
inside it as the index stores it, and the definition's name prefixed by its enclosing scope as
the index reports it (`Session.get`, `enablePatches.applyPatches_`; a top-level definition is
just its name).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from evals.scoring import Case, QueryRefused, Unavailable

EVALS = Path(__file__).resolve().parent
CASES = EVALS / "portfolio.jsonl"
CORPUS = EVALS / ".corpus"
LIMIT = 20
FETCH_TIMEOUT_S = 300

Log = Callable[[str], None]


@dataclass(frozen=True)
class Pin:
    name: str  # the project's folder, hence its name in the index
    registry: str  # "pypi" or "npm"
    package: str
    version: str
    archive: str  # the file name the client writes
    sha256: str
    language: str


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
)


class FetchError(RuntimeError):
    """A pinned package could not be fetched or did not match its pin."""


# --------------------------------------------------------------------------- corpus


def ensure_corpus(root: Path = CORPUS, pins: Iterable[Pin] = PINS,
                  log: Log = print) -> Path:
    """The folder holding one git checkout per pin, fetching and extracting what is missing.

    A checkout is reused while its stamp matches the pin; anything else is fetched again
    (downloads are cached beside it and re-verified)."""
    pins = list(pins)
    checkouts = root / "portfolio"
    stamps = root / "stamps"
    downloads = root / "downloads"
    for folder in (checkouts, stamps, downloads):
        folder.mkdir(parents=True, exist_ok=True)
    stale = [p for p in pins if not _fresh(p, checkouts, stamps)]
    if not stale:
        return checkouts
    _require_git()
    missing = [p for p in stale if not _verified(downloads / p.archive, p)]
    if missing:
        started = time.perf_counter()
        log(f"portfolio: fetching {', '.join(f'{p.package}=={p.version}' for p in missing)}")
        with ThreadPoolExecutor(max_workers=min(4, len(missing))) as pool:
            for future in [pool.submit(_download, p, downloads) for p in missing]:
                future.result()
        log(f"portfolio: fetched {len(missing)} packages in {time.perf_counter() - started:.1f}s")
    for pin in stale:
        _install(pin, downloads / pin.archive, checkouts / pin.name)
        (stamps / pin.name).write_text(_stamp(pin), encoding="utf-8")
    return checkouts


def _stamp(pin: Pin) -> str:
    return f"{pin.registry} {pin.package} {pin.version} {pin.sha256}\n"


def _fresh(pin: Pin, checkouts: Path, stamps: Path) -> bool:
    stamp = stamps / pin.name
    return ((checkouts / pin.name / ".git").is_dir() and stamp.is_file()
            and stamp.read_text(encoding="utf-8") == _stamp(pin))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _verified(path: Path, pin: Pin) -> bool:
    return path.is_file() and _sha256(path) == pin.sha256


def _require_git() -> None:
    if shutil.which("git") is None:
        raise FetchError("git is not installed; the portfolio suite makes each project a git "
                         "checkout (apt-get install git)")


def _download(pin: Pin, downloads: Path) -> None:
    with tempfile.TemporaryDirectory(dir=downloads, prefix=".fetch-") as tmp:
        if pin.registry == "pypi":
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--no-binary", ":all:", "--dest", tmp, f"{pin.package}=={pin.version}"]
        elif pin.registry == "npm":
            if shutil.which("npm") is None:
                raise FetchError(f"npm is not installed; it fetches {pin.package}")
            cmd = ["npm", "pack", "--silent", "--ignore-scripts", "--pack-destination", tmp,
                   f"{pin.package}@{pin.version}"]
        else:
            raise FetchError(f"unknown registry {pin.registry!r} for {pin.name}")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S,
                                  check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise FetchError(f"{' '.join(cmd[:3])} {pin.package}: no answer in "
                             f"{FETCH_TIMEOUT_S}s") from None
        got = Path(tmp) / pin.archive
        if proc.returncode != 0 or not got.is_file():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise FetchError(f"fetching {pin.package} {pin.version} failed "
                             f"(exit {proc.returncode}): " + " | ".join(tail))
        digest = _sha256(got)
        if digest != pin.sha256:
            raise FetchError(f"{pin.archive}: sha256 {digest} does not match the pin "
                             f"{pin.sha256}")
        os.replace(got, downloads / pin.archive)


def _install(pin: Pin, archive: Path, dest: Path) -> None:
    """Extract `archive` (one top folder) into `dest` and make it a git checkout."""
    parent = dest.parent
    with tempfile.TemporaryDirectory(dir=parent, prefix=f".{pin.name}-") as tmp:
        _extract(archive, Path(tmp))
        tops = list(Path(tmp).iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            raise FetchError(f"{archive.name}: expected one top-level folder, found "
                             f"{sorted(p.name for p in tops)}")
        tree = tops[0]
        proc = subprocess.run(["git", "init", "--quiet", str(tree)], capture_output=True,
                              text=True, check=False, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise FetchError(f"git init {pin.name} failed: {proc.stderr.strip()}")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tree, dest)


def _extract(archive: Path, dest: Path) -> None:
    with tarfile.open(archive, "r:gz") as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+
            tar.extractall(dest, filter="data")
            return
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if (Path(member.name).is_absolute() or ".." in parts
                    or not (member.isfile() or member.isdir())):
                raise FetchError(f"{archive.name}: refusing to extract {member.name!r}")
        tar.extractall(dest)  # every member was checked above


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
                scope, _, name = qualname.rpartition(".")
                row = conn.execute(
                    "SELECT 1 FROM symbols s JOIN files f ON f.id = s.file_id "
                    "JOIN projects p ON p.id = s.project_id "
                    "WHERE p.name = ? AND f.path = ? AND s.name = ? AND s.scope = ? LIMIT 1",
                    (project, path, name, scope)).fetchone()
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
        checkouts = ensure_corpus(log=log)
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

