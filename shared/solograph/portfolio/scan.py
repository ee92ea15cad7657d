"""The incremental scan: definitions, files and packages of every registered project.

A file is re-read only when its size or mtime changed; deleted files leave the index. A scan is
three plain steps, so the worker pool can spread it (`portfolio.plan`: what changed, where the
store is; `portfolio.read`: parse a batch of files, anywhere the files are; `portfolio.write`:
apply one project in one short transaction, where the store is). `scan` runs them in-process,
one project after another: a crash leaves the index as it was before that project started.

A file that cannot be read whole is that file's problem, never the scan's: it keeps a status
(the scan report and `stats` count and list them): `syntax_error` (parsed in part: every
definition outside the broken region is still indexed), `too_slow` (past the extractor's time
budget), `too_deep` (nested past its limit), `binary`, `huge`, `unreadable`, and `outside` (a
symbolic link to a place outside the checkout: never followed).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from solograph.portfolio.clean import ensure_clean
from solograph.portfolio.definitions import DefinitionExtractor
from solograph.portfolio.plan import plan_projects
from solograph.portfolio.read import read_batch
from solograph.portfolio.registry import Project
from solograph.portfolio.write import SKIPPED, finish_scan, write_project
from solograph.text.plural import plural

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

    def add(self, plan: dict, written: dict) -> None:
        """One project: its plan (`portfolio.plan`) and what writing it did."""
        self.projects += 1
        self.files += plan["files"]
        self.unchanged += plan["unchanged"] + written["unchanged"]
        self.skipped["outside"] += plan["outside"]
        for key in ("parsed", "deleted", "symbols", "parsed_in_part", "manifests",
                    "manifest_errors", "packages"):
            setattr(self, key, getattr(self, key) + written[key])
        for status, count in written["skipped"].items():
            self.skipped[status] += count

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


def scan(conn: sqlite3.Connection, projects: list[Project], *, max_file_bytes: int = 1_000_000,
         progress: Progress | None = None) -> ScanReport:
    """Plan, read and write each project in turn, in this process."""
    report = ScanReport()
    started = time.perf_counter()
    ensure_clean(conn)  # what older rules let through leaves before anything is added
    extractor = DefinitionExtractor()
    changed = 0
    report.missing.extend(p.name for p in projects if not p.path.is_dir())
    for plan in plan_projects(conn, projects):
        name, total = plan["project"]["name"], len(plan["read"])

        def tell(done: int, _: int, name: str = name, total: int = total) -> None:
            if progress:
                progress(name, done, total)
        # One batch: the files of a project in one process are read in one go.
        batch = {"root": plan["project"]["path"], "files": plan["read"],
                 "manifests": plan["manifests"]}
        result = read_batch(batch, max_file_bytes=max_file_bytes, extractor=extractor,
                            progress=tell)
        written = write_project(conn, plan, [result])
        report.add(plan, written)
        changed += written["changed"]
    finish_scan(conn, changed=changed)
    report.seconds = time.perf_counter() - started
    return report
