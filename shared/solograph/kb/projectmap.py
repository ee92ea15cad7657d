"""The project map the hook gives once per session: the registered project holding the
session's folder, from the portfolio store (stack, size, languages, layers, first
dependencies), and which tool answers what."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from solograph.text.plural import plural

MAX_DEPS = 10


def tools_line() -> str:
    """Which tool answers what: every MCP tool the indexes offer, by its title, so a new
    index's tool is named here too."""
    from solograph.indexes import all_answers

    tools = [f"{a.name} ({a.title[:1].lower()}{a.title[1:].rstrip('.')})"
             for _index, a in all_answers() if a.tool]
    return "Ask solograph before grepping: " + "; ".join(tools) + "."


def find_project(conn: sqlite3.Connection, cwd: str) -> sqlite3.Row | None:
    """The registered project whose folder holds `cwd` (the deepest one)."""
    cwd = cwd.rstrip("/") or "/"
    best = None
    for row in conn.execute("SELECT id, name, path, removed, scanned_at FROM projects "
                            "WHERE removed = 0"):
        root = row["path"].rstrip("/")
        if (cwd == root or cwd.startswith(root + "/")) and (
                best is None or len(root) > len(best["path"].rstrip("/"))):
            best = row
    return best


def project_map(db: Path, cwd: str) -> tuple[str, str] | None:
    """(project name, the map's text) for the project holding `cwd`, or None."""
    if not cwd or not db.exists():
        return None
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.5)
    conn.row_factory = sqlite3.Row
    try:
        row = find_project(conn, cwd)
        if row is None or row["scanned_at"] is None:
            return None
        from solograph.portfolio.info import explain  # only when there is a map to give
        from solograph.portfolio.registry import Project

        project = Project(id=row["id"], name=row["name"], path=Path(row["path"]),
                          removed=False, scanned_at=row["scanned_at"])
        return row["name"], render(explain(conn, project))
    finally:
        conn.close()


def render(e: dict) -> str:
    size = e["size"]
    lines = [f"Project map: {e['project']} ({e['path']}), from the solograph portfolio index.",
             f"Stack: {', '.join(e['stack']) or 'unknown'}. Size: "
             f"{plural(size['files'], 'file')}, {plural(size['lines'], 'line')}, "
             f"{plural(size['definitions'], 'definition')}."]
    if e["languages"]:
        lines.append("Languages: " + ", ".join(f"{x['language']} ({plural(x['files'], 'file')})"
                                               for x in e["languages"][:6]) + ".")
    if e["layers"]:
        lines.append("Layers: " + ", ".join(f"{x['folder']}/ ({x['files']})"
                                            for x in e["layers"][:8]) + ".")
    if e["dependencies"]:
        lines.append("First dependencies: " + ", ".join(e["dependencies"][:MAX_DEPS]) + ".")
    lines.append(tools_line())
    return "\n".join(lines)
