"""The scan's CPU-bound step: read one batch of a plan (`portfolio.plan`) into plain data.

It needs the files and nothing else: it never opens a store, so any worker on any host that
mounts the same checkouts at the same paths can run it. What it returns is ready to insert:
names, scopes, manifest errors and package specs already redacted (secrets never enter an index,
and never travel), with the words each definition is found by, so the writer only writes.

A file that cannot be read whole is that file's problem, never the batch's: it keeps a status
(`syntax_error`, `too_slow`, `too_deep`, `binary`, `huge`, `unreadable`, `outside`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from solograph.portfolio.definitions import Definition, DefinitionExtractor, language_for_content
from solograph.portfolio.manifests import parse_manifest
from solograph.text.secrets import redact
from solograph.text.tokens import fold_name, identifier_index_text, index_text

BINARY_SNIFF_BYTES = 8192
PROGRESS_EVERY = 50

# (files of the batch read so far, files in the batch)
BatchProgress = Callable[[int, int], None]


def read_batch(batch: dict, *, max_file_bytes: int,
               extractor: DefinitionExtractor | None = None,
               progress: BatchProgress | None = None) -> dict:
    """{"files": [file result], "manifests": [manifest result]} for one batch.

    A file result: {"path", "language", "size", "mtime_ns", "status", "lines", "symbols":
    [[name, kind, line, scope, name_key, words, scope_words], ...]}; a manifest result:
    {"path", "manager", "size", "mtime_ns", "error", "packages": [[manager, name, spec, dev]]}."""
    root = Path(batch["root"])
    extractor = extractor or DefinitionExtractor()
    files = []
    entries = batch["files"]
    for done, (rel, language, size, mtime_ns, outside) in enumerate(entries, 1):
        if outside:
            files.append(_file(rel, language, 0, 0, "outside"))
        else:
            files.append(read_source(root, rel, language, size, mtime_ns, extractor,
                                     max_file_bytes))
        if progress and (done % PROGRESS_EVERY == 0 or done == len(entries)):
            progress(done, len(entries))
    manifests = [read_manifest(root, *entry, max_file_bytes=max_file_bytes)
                 for entry in batch["manifests"]]
    return {"files": files, "manifests": manifests}


def _file(rel: str, language: str, size: int, mtime_ns: int, status: str) -> dict:
    return {"path": rel, "language": language, "size": size, "mtime_ns": mtime_ns,
            "status": status, "lines": 0, "symbols": []}


def read_source(root: Path, rel: str, language: str, size: int, mtime_ns: int,
                extractor: DefinitionExtractor, max_file_bytes: int) -> dict:
    result = _file(rel, language, size, mtime_ns, "ok")
    if size > max_file_bytes:
        result["status"] = "huge"
        return result
    try:
        data = (root / rel).read_bytes()
    except OSError:
        result["status"] = "unreadable"
        return result
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        result["status"] = "binary"
        return result
    result["lines"] = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    result["language"] = language = language_for_content(language, rel, data)
    parsed = extractor.extract(language, data)
    result["symbols"] = symbol_rows(parsed.definitions)
    if parsed.too_deep:
        result["status"] = "too_deep"
    elif parsed.too_slow:
        result["status"] = "too_slow"
    elif parsed.has_error:
        result["status"] = "syntax_error"
    return result


def symbol_rows(definitions: list[Definition]) -> list[list]:
    """Each definition as the row the store keeps. Names are text from the file like any other
    (a bats test's, a Terraform label): they are redacted first. A file's definitions share a
    few scopes."""
    scopes: dict[str, tuple[str, str]] = {}
    rows = []
    for d in definitions:
        if d.scope not in scopes:
            clean = redact(d.scope)
            scopes[d.scope] = (clean, index_text(clean))
        scope, scope_words = scopes[d.scope]
        name = redact(d.name)
        words = identifier_index_text(name)
        if d.terms:  # words it is found by beside its name (a Swift extension's protocols)
            words = f"{words} {identifier_index_text(redact(d.terms))}"
        rows.append([name, d.kind, d.line, scope, fold_name(name), words, scope_words])
    return rows


def read_manifest(root: Path, rel: str, manager: str, size: int, mtime_ns: int, *,
                  max_file_bytes: int) -> dict:
    result = {"path": rel, "manager": manager, "size": size, "mtime_ns": mtime_ns,
              "error": None, "packages": []}
    if size > max_file_bytes:
        result["error"] = "file too large"
        return result
    try:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        result["error"] = redact(str(exc))
        return result
    packages, error = parse_manifest(rel, text)
    result["error"] = redact(error) if error is not None else None
    result["packages"] = [[p.manager, p.name, redact(p.spec), int(p.dev)] for p in packages]
    return result
