"""Real projects for the suites, fetched by package name from a registry and pinned by sha256.

A pin names a package at an exact version in one registry: an sdist from PyPI (`pip
download`), a tarball from npm (`npm pack`), or a `.deb` from Debian (`apt-get download`;
Debian's `golang-*-dev`, `librust-*-dev`, `ruby-*` and `php-*` packages carry the source of
the languages PyPI and npm do not). The download is checked against the pin, extracted into
`<root>/<suite>/<name>/` and made a git checkout (`git init`; its files are untracked, which
the scan lists). Downloads are cached beside the checkouts and re-verified; a checkout is
reused while its stamp matches its pin.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

EVALS = Path(__file__).resolve().parent
CORPUS = EVALS / ".corpus"
FETCH_TIMEOUT_S = 300
REGISTRIES = ("pypi", "npm", "debian")

Log = Callable[[str], None]


@dataclass(frozen=True)
class Pin:
    name: str  # the project's folder, hence its name in the index
    registry: str  # "pypi", "npm" or "debian"
    package: str
    version: str
    archive: str  # the file name the client writes
    sha256: str
    language: str  # the main language it is there for


class FetchError(RuntimeError):
    """A pinned package could not be fetched or did not match its pin."""


def ensure_corpus(suite: str, pins: Iterable[Pin], root: Path = CORPUS,
                  log: Log = print) -> Path:
    """The folder holding one git checkout per pin, fetching and extracting what is missing."""
    pins = list(pins)
    checkouts = root / suite
    stamps = root / "stamps" / suite
    downloads = root / "downloads"
    for folder in (checkouts, stamps, downloads):
        folder.mkdir(parents=True, exist_ok=True)
    stale = [p for p in pins if not _fresh(p, checkouts, stamps)]
    if not stale:
        return checkouts
    _require("git", "the suites make each project a git checkout (apt-get install git)")
    missing = [p for p in stale if not _verified(downloads / p.archive, p)]
    if missing:
        started = time.perf_counter()
        log(f"{suite}: fetching {', '.join(f'{p.package}=={p.version}' for p in missing)}")
        with ThreadPoolExecutor(max_workers=min(4, len(missing))) as pool:
            for future in [pool.submit(_download, p, downloads) for p in missing]:
                future.result()
        log(f"{suite}: fetched {len(missing)} packages in {time.perf_counter() - started:.1f}s")
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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _verified(path: Path, pin: Pin) -> bool:
    return path.is_file() and sha256(path) == pin.sha256


def _require(tool: str, why: str) -> None:
    if shutil.which(tool) is None:
        raise FetchError(f"{tool} is not installed; {why}")


def fetch_command(pin: Pin, dest: str) -> list[str]:
    if pin.registry == "pypi":
        return [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                "--no-binary", ":all:", "--dest", dest, f"{pin.package}=={pin.version}"]
    if pin.registry == "npm":
        _require("npm", f"it fetches {pin.package}")
        return ["npm", "pack", "--silent", "--ignore-scripts", "--pack-destination", dest,
                f"{pin.package}@{pin.version}"]
    if pin.registry == "debian":
        _require("apt-get", f"it fetches {pin.package}")
        _require("dpkg-deb", f"it unpacks {pin.package}")
        return ["apt-get", "download", "-qq", f"{pin.package}={pin.version}"]
    raise FetchError(f"unknown registry {pin.registry!r} for {pin.name}")


_apt_updated = False


def _download(pin: Pin, downloads: Path) -> None:
    """Fetch `pin` into `downloads`; for a Debian package on a machine whose package lists are
    missing or old (a fresh one), the lists are read again once and the fetch retried."""
    global _apt_updated
    try:
        _download_once(pin, downloads)
    except FetchError:
        if pin.registry != "debian" or _apt_updated or os.geteuid() != 0:
            raise
        _apt_updated = True
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False,
                       timeout=FETCH_TIMEOUT_S, stdin=subprocess.DEVNULL)
        _download_once(pin, downloads)


def _download_once(pin: Pin, downloads: Path) -> None:
    with tempfile.TemporaryDirectory(dir=downloads, prefix=".fetch-") as tmp:
        os.chmod(tmp, 0o755)  # apt-get hands the download to its own unprivileged user
        cmd = fetch_command(pin, tmp)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S,
                                  check=False, stdin=subprocess.DEVNULL, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise FetchError(f"{' '.join(cmd[:3])} {pin.package}: no answer in "
                             f"{FETCH_TIMEOUT_S}s") from None
        got = Path(tmp) / pin.archive
        if proc.returncode != 0 or not got.is_file():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise FetchError(f"fetching {pin.package} {pin.version} failed "
                             f"(exit {proc.returncode}): " + " | ".join(tail))
        digest = sha256(got)
        if digest != pin.sha256:
            raise FetchError(f"{pin.archive}: sha256 {digest} does not match the pin "
                             f"{pin.sha256}")
        os.replace(got, downloads / pin.archive)


def _install(pin: Pin, archive: Path, dest: Path) -> None:
    """Extract `archive` into `dest` and make it a git checkout."""
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=f".{pin.name}-") as tmp:
        if pin.registry == "debian":
            tree = Path(tmp) / "tree"
            _unpack_deb(archive, tree)
        else:
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


def _unpack_deb(archive: Path, tree: Path) -> None:
    """The files of a .deb, without its documentation (changelogs and copyright notes)."""
    proc = subprocess.run(["dpkg-deb", "-x", str(archive), str(tree)], capture_output=True,
                          text=True, check=False, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise FetchError(f"dpkg-deb -x {archive.name} failed: {proc.stderr.strip()}")
    for doc in ("usr/share/doc", "usr/share/lintian", "usr/share/man"):
        shutil.rmtree(tree / doc, ignore_errors=True)
    # Debian links some files to shared copies elsewhere on the system: drop dangling links.
    for folder, _dirs, files in os.walk(tree):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                path.unlink()


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
