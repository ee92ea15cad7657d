"""The incremental scan: definitions, files and packages of every registered project.

A file is re-read only when its size or mtime changed; deleted files leave the index. Work on
the files happens outside the write lock; each project's changes are then written in one short
transaction, so a crash leaves the index as it was before that project started.

A file that cannot be read whole is that file's problem, never the scan's: it keeps a status
(the scan report and `stats` count and list them): `syntax_error` (parsed in part: every
definition outside the broken region is still indexed), `too_slow` (past the extractor's time
budget), `too_deep` (nested past its limit), `binary`, `huge`, `unreadable`, and `outside` (a
symbolic link to a place outside the checkout: never followed).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from solograph.portfolio import LAST_SCAN
from solograph.portfolio.clean import ensure_clean
from solograph.portfolio.definitions import (
    Definition,
    DefinitionExtractor,
    language_for_content,
    language_for_path,
)
from solograph.portfolio.files import list_files
from solograph.portfolio.manifests import Package, manifest_kind, parse_manifest
from solograph.portfolio.registry import Project
from solograph.store import set_meta, transaction
from solograph.text.plural import plural
from solograph.text.secrets import redact
from solograph.text.tokens import fold_name, identifier_index_text, index_text

BINARY_SNIFF_BYTES = 8192
# File statuses counted as skipped: nothing, or only what came before the limit, was read.
SKIPPED = ("binary", "huge", "unreadable", "too_slow", "too_deep", "outside")
LISTING_THREADS = 8

Progress = Callable[[str, int, int], None]  # (project name, files done, files to read)


@dataclass
class ScanReport:
    projects: int = 0
    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    symbols: int = 0
    parsed_in_part: int = 0  # a syntax error: what surrounds it is still indexed
    manifests: int = 0
    manifest_errors: int = 0  # manifests read in part or not at all (`deps` says why)
    packages: int = 0
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKIPPED, 0))
    missing: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"projects": self.projects, "files": self.files, "parsed": self.parsed,
                "unchanged": self.unchanged, "deleted": self.deleted, "symbols": self.symbols,
                "parsed_in_part": self.parsed_in_part, "manifests": self.manifests,
                "manifest_errors": self.manifest_errors,
                "packages": self.packages, "skipped": dict(self.skipped),
                "missing": list(self.missing), "seconds": round(self.seconds, 3)}

    def summary(self) -> str:
        skipped = ", ".join(f"{v} {k}" for k, v in self.skipped.items() if v) or "none"
        bad = f" ({self.manifest_errors} read in part)" if self.manifest_errors else ""
        line = (f"scanned {plural(self.projects, 'project')}: {plural(self.files, 'file')}, "
                f"{self.parsed} read, {self.unchanged} unchanged, {self.deleted} removed, "
                f"{plural(self.symbols, 'definition')} indexed, {self.parsed_in_part} parsed in "
                f"part, skipped: {skipped}; {plural(self.packages, 'package')} from "
                f"{plural(self.manifests, 'manifest')}{bad} in {self.seconds:.2f}s")
        if self.missing:
            line += f"; missing checkouts: {', '.join(self.missing)}"
        return line


@dataclass
class _FileResult:
    rel: str
    language: str
    size: int
    mtime_ns: int
    status: str
    lines: int = 0
    definitions: list[Definition] = field(default_factory=list)


@dataclass
class _ManifestResult:
    rel: str
    manager: str
    size: int
    mtime_ns: int
    packages: list[Package]
    error: str | None


def scan(conn: sqlite3.Connection, projects: list[Project], *, max_file_bytes: int = 1_000_000,
         progress: Progress | None = None) -> ScanReport:
    report = ScanReport()
    started = time.perf_counter()
    ensure_clean(conn)  # what older rules let through leaves before anything is added
    extractor = DefinitionExtractor()
    changed_symbols = 0
    present = [p for p in projects if p.path.is_dir()]
    report.missing.extend(p.name for p in projects if not p.path.is_dir())
    # Listing a checkout is mostly waiting on `git ls-files`: list them all side by side.
    with ThreadPoolExecutor(max_workers=LISTING_THREADS) as pool:
        listings = dict(zip((p.id for p in present), pool.map(_listing, present), strict=True))
    for project in present:
        report.projects += 1
        changed_symbols += _scan_project(conn, project, listings[project.id], extractor,
                                         report, max_file_bytes=max_file_bytes,
                                         progress=progress)
    if changed_symbols > 1000:
        with transaction(conn):
            conn.execute("INSERT INTO symbols_fts(symbols_fts) VALUES ('optimize')")
    with transaction(conn):
        set_meta(conn, LAST_SCAN, str(time.time()))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    report.seconds = time.perf_counter() - started
    return report


def _stat(root: Path, rel: str) -> os.stat_result | None:
    """The file's own stat; for a symbolic link, its target's when the target is a file
    inside the checkout. A link leaving the checkout is never followed: OUTSIDE."""
    path = root / rel
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            if not _inside(root, path):
                return OUTSIDE
            st = os.stat(path)
    except (OSError, RuntimeError):  # RuntimeError: a link loop
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _inside(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    target = os.path.realpath(path)
    return os.path.commonpath([real_root, target]) == real_root


# What _stat returns for a link out of the checkout (a marker, compared by identity).
OUTSIDE = os.stat_result((0,) * 10)


def _listing(project: Project) -> list[str]:
    return list_files(project.path)


def _scan_project(conn: sqlite3.Connection, project: Project, listing: list[str],
                  extractor: DefinitionExtractor, report: ScanReport, *, max_file_bytes: int,
                  progress: Progress | None) -> int:
    root = project.path
    known = {r["path"]: (r["id"], r["size"], r["mtime_ns"]) for r in conn.execute(
        "SELECT id, path, size, mtime_ns FROM files WHERE project_id = ?", (project.id,))}
    known_manifests = {r["path"]: (r["id"], r["size"], r["mtime_ns"]) for r in conn.execute(
        "SELECT id, path, size, mtime_ns FROM manifests WHERE project_id = ?", (project.id,))}

    to_read: list[tuple[str, str, os.stat_result]] = []
    manifests_to_read: list[tuple[str, str, os.stat_result]] = []
    present: set[str] = set()
    present_manifests: set[str] = set()
    for rel in listing:
        language = language_for_path(rel)
        manager = manifest_kind(rel)
        if language is None and manager is None:
            continue
        st = _stat(root, rel)
        if st is None:
            continue
        if st is OUTSIDE:
            _count_outside(report, rel, language, present, known, to_read)
            continue
        if language is not None:
            present.add(rel)
            report.files += 1
            old = known.get(rel)
            if old and old[1] == st.st_size and old[2] == st.st_mtime_ns:
                report.unchanged += 1
            else:
                to_read.append((rel, language, st))
        if manager is not None:
            present_manifests.add(rel)
            old = known_manifests.get(rel)
            if not (old and old[1] == st.st_size and old[2] == st.st_mtime_ns):
                manifests_to_read.append((rel, manager, st))

    results: list[_FileResult] = []
    for done, (rel, language, st) in enumerate(to_read, 1):
        if st is OUTSIDE:
            results.append(_FileResult(rel, language, 0, 0, "outside"))
        else:
            results.append(_read_source(root, rel, language, st, extractor, max_file_bytes))
        if progress and (done % 50 == 0 or done == len(to_read)):
            progress(project.name, done, len(to_read))
    manifest_results = [_read_manifest(root, rel, manager, st, max_file_bytes)
                        for rel, manager, st in manifests_to_read]

    gone = [known[p][0] for p in known.keys() - present]
    gone_manifests = [known_manifests[p][0] for p in known_manifests.keys() - present_manifests]
    added = 0
    with transaction(conn):
        conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in gone])
        conn.executemany("DELETE FROM manifests WHERE id = ?", [(i,) for i in gone_manifests])
        for result in results:
            added += _write_file(conn, project.id, result)
        for result in manifest_results:
            _write_manifest(conn, project.id, result)
        conn.execute("UPDATE projects SET scanned_at = ? WHERE id = ?", (time.time(), project.id))

    report.deleted += len(gone)
    report.parsed += len(results)
    report.symbols += added
    for result in results:
        if result.status in report.skipped:
            report.skipped[result.status] += 1
        elif result.status == "syntax_error":
            report.parsed_in_part += 1
    report.manifests += len(manifest_results)
    report.manifest_errors += sum(m.error is not None for m in manifest_results)
    report.packages += sum(len(m.packages) for m in manifest_results)
    return added + len(gone)


def _count_outside(report: ScanReport, rel: str, language: str | None, present: set[str],
                   known: dict[str, tuple[int, int, int]],
                   to_read: list[tuple[str, str, os.stat_result]]) -> None:
    """A link out of the checkout is listed as a file with status `outside` (stats lists
    it), never read; a manifest behind one is left out."""
    if language is None:
        report.skipped["outside"] += 1
        return
    present.add(rel)
    report.files += 1
    old = known.get(rel)
    if old and old[1] == 0 and old[2] == 0:
        report.unchanged += 1
    else:
        to_read.append((rel, language, OUTSIDE))


def _read_source(root: Path, rel: str, language: str, st: os.stat_result,
                 extractor: DefinitionExtractor, max_file_bytes: int) -> _FileResult:
    result = _FileResult(rel, language, st.st_size, st.st_mtime_ns, "ok")
    if st.st_size > max_file_bytes:
        result.status = "huge"
        return result
    try:
        data = (root / rel).read_bytes()
    except OSError:
        result.status = "unreadable"
        return result
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        result.status = "binary"
        return result
    result.lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    result.language = language = language_for_content(language, rel, data)
    parsed = extractor.extract(language, data)
    result.definitions = parsed.definitions
    if parsed.too_deep:
        result.status = "too_deep"
    elif parsed.too_slow:
        result.status = "too_slow"
    elif parsed.has_error:
        result.status = "syntax_error"
    return result


def _read_manifest(root: Path, rel: str, manager: str, st: os.stat_result,
                   max_file_bytes: int) -> _ManifestResult:
    if st.st_size > max_file_bytes:
        return _ManifestResult(rel, manager, st.st_size, st.st_mtime_ns, [], "file too large")
    try:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return _ManifestResult(rel, manager, st.st_size, st.st_mtime_ns, [], str(exc))
    packages, error = parse_manifest(rel, text)
    return _ManifestResult(rel, manager, st.st_size, st.st_mtime_ns, packages, error)


def _write_file(conn: sqlite3.Connection, project_id: int, r: _FileResult) -> int:
    row = conn.execute("SELECT id FROM files WHERE project_id = ? AND path = ?",
                       (project_id, r.rel)).fetchone()
    if row:
        file_id = row[0]
        conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        conn.execute("UPDATE files SET language = ?, lines = ?, size = ?, mtime_ns = ?, "
                     "status = ? WHERE id = ?",
                     (r.language, r.lines, r.size, r.mtime_ns, r.status, file_id))
    else:
        file_id = conn.execute(
            "INSERT INTO files (project_id, path, language, lines, size, mtime_ns, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (project_id, r.rel, r.language, r.lines, r.size, r.mtime_ns, r.status)).lastrowid
    # Names are text from the file like any other (a bats test's, a Terraform label): they
    # are redacted before they are stored. A file's definitions share a few scopes.
    scopes: dict[str, tuple[str, str]] = {}
    rows = []
    for d in r.definitions:
        if d.scope not in scopes:
            clean = redact(d.scope)
            scopes[d.scope] = (clean, index_text(clean))
        scope, scope_words = scopes[d.scope]
        name = redact(d.name)
        words = identifier_index_text(name)
        if d.terms:  # words it is found by beside its name (a Swift extension's protocols)
            words = f"{words} {identifier_index_text(redact(d.terms))}"
        rows.append((file_id, project_id, name, d.kind, d.line, scope, fold_name(name),
                     words, scope_words))
    conn.executemany(
        "INSERT INTO symbols (file_id, project_id, name, kind, line, scope, name_key, words, "
        "scope_words) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def _write_manifest(conn: sqlite3.Connection, project_id: int, m: _ManifestResult) -> None:
    conn.execute("DELETE FROM manifests WHERE project_id = ? AND path = ?", (project_id, m.rel))
    manifest_id = conn.execute(
        "INSERT INTO manifests (project_id, path, manager, size, mtime_ns, error) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (project_id, m.rel, m.manager, m.size, m.mtime_ns,
         redact(m.error) if m.error is not None else None)).lastrowid
    conn.executemany(
        "INSERT INTO packages (manifest_id, project_id, manager, name, spec, dev) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(manifest_id, project_id, p.manager, p.name, redact(p.spec), int(p.dev))
         for p in m.packages])
