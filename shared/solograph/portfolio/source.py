"""The lines of one indexed file around a definition: what a person reads under a symbol hit.

Only a file the index holds is read (its project and path from the files table, never a path
from the request), through the project's folder without leaving it, and its text is redacted
as any indexed text is, since the file on disk may hold a secret the index never kept.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from solograph.errors import BadQuery, NotFound
from solograph.portfolio import registry

BEFORE = 3  # lines shown above the definition
MAX_LINES = 200
MAX_BYTES = 1_000_000  # a scan counts larger files as huge and never parses them


def symbol_source(conn: sqlite3.Connection, *, project: str, path: str, line: int,
                  lines: int = 40) -> dict:
    """`lines` lines of `path` in `project` from a little above `line`, with the definitions
    the index found in that stretch."""
    from solograph.text.secrets import redact

    if not path or line < 1:
        raise BadQuery("give the file's path and a line from a symbol hit",
                       hint='{"project": "my-app", "path": "src/auth.py", "line": 12}')
    found = registry.get_project(conn, project)
    row = conn.execute("SELECT id, language, lines FROM files WHERE project_id = ? AND path = ?",
                       (found.id, path)).fetchone()
    if row is None:
        raise NotFound(f"{path!r} is not an indexed file of {project!r}",
                       hint="take the path from a symbol search result")
    root = Path(found.path).resolve()
    file = (root / path).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        raise NotFound(f"{path!r} is no longer in {project!r}", hint="scan the project again")
    if file.stat().st_size > MAX_BYTES:
        raise BadQuery(f"{path!r} is over {MAX_BYTES} bytes", hint="open it in an editor")
    text = redact(file.read_bytes().decode("utf-8", errors="replace"))
    every = text.splitlines()
    count = max(1, min(int(lines), MAX_LINES))
    start = max(1, int(line) - BEFORE)
    shown = every[start - 1:start - 1 + count]
    defs = [{"name": r[0], "kind": r[1], "line": r[2], "scope": r[3]} for r in conn.execute(
        "SELECT name, kind, line, scope FROM symbols WHERE file_id = ? AND line BETWEEN ? AND ? "
        "ORDER BY line LIMIT 200", (row["id"], start, start + len(shown)))]
    return {"project": found.name, "path": path, "language": row["language"], "line": int(line),
            "start": start, "total_lines": len(every), "lines": shown, "definitions": defs}
