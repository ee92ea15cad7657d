"""What the portfolio index knows about projects: explain, deps, stats, shared, dupes."""

from __future__ import annotations

import sqlite3
from collections import Counter

from solograph.portfolio import LAST_SCAN
from solograph.portfolio.registry import Project
from solograph.store import get_meta
from solograph.text.tokens import match_all, query_terms

# Packages that name a stack better than the language alone, checked in this order.
FRAMEWORKS = (
    "next", "react", "vue", "svelte", "@angular/core", "express", "fastify", "@nestjs/core",
    "django", "fastapi", "flask", "celery", "scrapy", "torch", "tensorflow", "streamlit",
    "actix-web", "axum", "tokio", "rocket", "bevy", "tauri", "leptos",
    "org.springframework.boot:spring-boot-starter", "io.ktor:ktor-server-core",
    "androidx.compose.ui:ui", "swift-composable-architecture", "vapor",
    "org.springframework.boot:spring-boot-starter-web", "rails", "sinatra",
    "laravel/framework", "symfony/framework-bundle", "github.com/gin-gonic/gin",
    "github.com/labstack/echo/v4", "github.com/gofiber/fiber/v2",
)
MAX_DEPS = 200
MAX_PROBLEMS = 100  # files and manifests `stats` lists as not read whole


def explain(conn: sqlite3.Connection, project: Project) -> dict:
    pid = project.id
    languages = [
        {"language": r["language"], "files": r["files"], "lines": r["lines"]}
        for r in conn.execute(
            "SELECT language, COUNT(*) AS files, SUM(lines) AS lines FROM files "
            "WHERE project_id = ? GROUP BY language ORDER BY lines DESC, language", (pid,))]
    size = conn.execute(
        "SELECT COUNT(*) AS files, COALESCE(SUM(lines), 0) AS lines FROM files "
        "WHERE project_id = ?", (pid,)).fetchone()
    definitions = conn.execute("SELECT COUNT(*) FROM symbols WHERE project_id = ?",
                               (pid,)).fetchone()[0]
    kinds = {r[0]: r[1] for r in conn.execute(
        "SELECT kind, COUNT(*) FROM symbols WHERE project_id = ? GROUP BY kind "
        "ORDER BY COUNT(*) DESC, kind", (pid,))}
    layers: Counter[str] = Counter()
    for (path,) in conn.execute("SELECT path FROM files WHERE project_id = ?", (pid,)):
        layers[path.split("/", 1)[0] if "/" in path else "."] += 1
    packages = _packages(conn, pid)
    managers = sorted({p["manager"] for p in packages})
    names = {p["name"] for p in packages}
    frameworks = [f for f in FRAMEWORKS if f in names]
    stack = [lang["language"] for lang in languages[:3]] + frameworks[:5]
    return {
        "action": "explain", "project": project.name, "path": str(project.path),
        "stack": stack, "managers": managers,
        "size": {"files": size["files"], "lines": size["lines"], "definitions": definitions},
        "languages": languages, "kinds": kinds,
        "layers": [{"folder": k, "files": v} for k, v in
                   sorted(layers.items(), key=lambda kv: (-kv[1], kv[0]))[:12]],
        # One name per package: a package declared by several manifests is listed once.
        "dependencies": list(dict.fromkeys(p["name"] for p in packages if not p["dev"]))[:15],
        "scanned_at": project.scanned_at,
    }


def _packages(conn: sqlite3.Connection, project_id: int) -> list[dict]:
    return [{"manager": r["manager"], "name": r["name"], "spec": r["spec"],
             "dev": bool(r["dev"]), "manifest": r["manifest"]}
            for r in conn.execute(
                "SELECT p.manager, p.name, p.spec, p.dev, m.path AS manifest FROM packages p "
                "JOIN manifests m ON m.id = p.manifest_id WHERE p.project_id = ? "
                "ORDER BY p.dev, m.path, p.id LIMIT ?", (project_id, MAX_DEPS))]


def deps(conn: sqlite3.Connection, project: Project) -> dict:
    manifests = [{"path": r["path"], "manager": r["manager"], "error": r["error"]}
                 for r in conn.execute("SELECT path, manager, error FROM manifests "
                                       "WHERE project_id = ? ORDER BY path", (project.id,))]
    return {"action": "deps", "project": project.name, "manifests": manifests,
            "packages": _packages(conn, project.id)}


def stats(conn: sqlite3.Connection) -> dict:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    return {
        "action": "stats",
        "projects": one("SELECT COUNT(*) FROM projects WHERE removed = 0"),
        "scanned": one("SELECT COUNT(*) FROM projects WHERE removed = 0 "
                       "AND scanned_at IS NOT NULL"),
        "files": one("SELECT COUNT(*) FROM files"),
        "lines": one("SELECT COALESCE(SUM(lines), 0) FROM files"),
        "definitions": one("SELECT COUNT(*) FROM symbols"),
        "packages": one("SELECT COUNT(*) FROM packages"),
        "languages": [{"language": r[0], "files": r[1], "definitions": r[2]} for r in conn.execute(
            "SELECT f.language, COUNT(DISTINCT f.id), COUNT(s.id) FROM files f "
            "LEFT JOIN symbols s ON s.file_id = f.id GROUP BY f.language "
            "ORDER BY COUNT(DISTINCT f.id) DESC, f.language")],
        # A syntax error is no skip: what surrounds it is indexed (parsed in part).
        "parsed_in_part": one("SELECT COUNT(*) FROM files WHERE status = 'syntax_error'"),
        "skipped": {r[0]: r[1] for r in conn.execute(
            "SELECT status, COUNT(*) FROM files WHERE status NOT IN ('ok', 'syntax_error') "
            "GROUP BY status ORDER BY status")},
        "projects_by_size": [{"project": r[0], "files": r[1], "definitions": r[2]}
                             for r in conn.execute(
            "SELECT p.name, (SELECT COUNT(*) FROM files WHERE project_id = p.id), "
            "(SELECT COUNT(*) FROM symbols WHERE project_id = p.id) AS defs FROM projects p "
            "WHERE p.removed = 0 ORDER BY defs DESC, p.name LIMIT 20")],
        "problems": _problems(conn),
        "last_scan": _float(get_meta(conn, LAST_SCAN)),
    }


def _problems(conn: sqlite3.Connection) -> dict:
    """The files and manifests not read whole, and why: so a user can see that what was
    left out is a grammar's or a limit's problem, not their code's."""
    files = [{"project": r[0], "path": r[1], "language": r[2], "status": r[3]}
             for r in conn.execute(
                 "SELECT p.name, f.path, f.language, f.status FROM files f "
                 "JOIN projects p ON p.id = f.project_id WHERE f.status != 'ok' "
                 "ORDER BY f.status, p.name, f.path LIMIT ?", (MAX_PROBLEMS,))]
    manifests = [{"project": r[0], "path": r[1], "manager": r[2], "error": r[3]}
                 for r in conn.execute(
                     "SELECT p.name, m.path, m.manager, m.error FROM manifests m "
                     "JOIN projects p ON p.id = m.project_id WHERE m.error IS NOT NULL "
                     "ORDER BY p.name, m.path LIMIT ?", (MAX_PROBLEMS,))]
    return {"files": files, "manifests": manifests}


def _float(value: str | None) -> float | None:
    return float(value) if value is not None else None


def shared(conn: sqlite3.Connection, package: str | None = None, *, limit: int = 50) -> dict:
    """Packages used by more than one project; with `package`, who uses it and at what spec."""
    if package:
        users = [{"project": r[0], "manager": r[1], "spec": r[2], "dev": bool(r[3])}
                 for r in conn.execute(
                     "SELECT DISTINCT pr.name, p.manager, p.spec, p.dev FROM packages p "
                     "JOIN projects pr ON pr.id = p.project_id "
                     "WHERE p.name = ? COLLATE NOCASE AND pr.removed = 0 "
                     "ORDER BY pr.name LIMIT ?", (package, MAX_DEPS))]
        return {"action": "shared", "package": package, "projects": users}
    rows = conn.execute(
        "SELECT p.manager, p.name, COUNT(DISTINCT p.project_id) AS n, "
        "GROUP_CONCAT(DISTINCT pr.name) AS users FROM packages p "
        "JOIN projects pr ON pr.id = p.project_id WHERE pr.removed = 0 "
        "GROUP BY p.manager, p.name HAVING n > 1 ORDER BY n DESC, p.name LIMIT ?",
        (limit,)).fetchall()
    return {"action": "shared", "package": None, "packages": [
        {"manager": r[0], "name": r[1], "projects": sorted(r[3].split(","))} for r in rows]}


def dupes(conn: sqlite3.Connection, name: str | None = None, *, limit: int = 30) -> dict:
    """Names defined in several places; with `name`, the names holding its words (the
    definition's own name, never its enclosing scope's)."""
    terms = query_terms(name) if name else []
    if name and not terms:
        rows = []
    elif name:
        rows = conn.execute(
            "SELECT s.name_key FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid "
            "WHERE symbols_fts MATCH ? GROUP BY s.name_key HAVING COUNT(*) > 1 "
            "ORDER BY COUNT(*) DESC, s.name_key LIMIT ?",
            (f"words : ({match_all(terms)})", limit)).fetchall()
    else:
        rows = conn.execute(
            "SELECT name_key FROM symbols GROUP BY name_key "
            "HAVING COUNT(DISTINCT project_id) > 1 "
            "ORDER BY COUNT(DISTINCT project_id) DESC, COUNT(*) DESC, name_key LIMIT ?",
            (limit,)).fetchall()
    groups = []
    for (key,) in rows:
        places = [{"project": r[0], "path": r[1], "line": r[2], "kind": r[3], "name": r[4],
                   "scope": r[5]} for r in conn.execute(
            "SELECT p.name, f.path, s.line, s.kind, s.name, s.scope FROM symbols s "
            "JOIN files f ON f.id = s.file_id JOIN projects p ON p.id = s.project_id "
            "WHERE s.name_key = ? ORDER BY p.name, f.path, s.line LIMIT 50", (key,))]
        groups.append({"name": places[0]["name"] if places else key,
                       "projects": len({p["project"] for p in places}),
                       "places": places})
    answer: dict = {"action": "dupes", "name": name, "groups": groups}
    if not groups:
        answer["message"] = (f"no name holding {name!r} is defined in more than one place"
                             if name else "no name is defined in more than one project")
    return answer


def projects(conn: sqlite3.Connection) -> dict:
    """The registered projects with their size."""
    rows = conn.execute(
        "SELECT p.name, p.path, p.scanned_at, "
        "(SELECT COUNT(*) FROM files WHERE project_id = p.id) AS files, "
        "(SELECT COUNT(*) FROM symbols WHERE project_id = p.id) AS definitions "
        "FROM projects p WHERE p.removed = 0 ORDER BY p.name").fetchall()
    return {"action": "projects", "count": len(rows), "projects": [
        {"name": r["name"], "path": r["path"], "files": r["files"],
         "definitions": r["definitions"], "scanned_at": r["scanned_at"]} for r in rows]}
