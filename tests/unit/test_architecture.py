"""Imports flow one way: services import the core; the core imports no framework, no CLI
library and no service; services never reach into each other except through
`services/common`, and the command line starts the others only through their entry points."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "shared" / "solograph"
SERVICES = ROOT / "services"
FORBIDDEN_IN_CORE = {"fastapi", "starlette", "uvicorn", "celery", "kombu", "billiard", "redis",
                     "mcp", "httpx", "httpx2", "scrapy", "twisted", "solograph_services",
                     "argparse", "click", "typer"}
SERVICE_NAMES = ("api", "worker", "mcp", "search", "scrapers", "cli", "hook")
# The one console script starts each service and runs the hook: through these entry modules
# only, imported when their command runs.
ENTRY_POINTS = {"solograph_services.api.app", "solograph_services.mcp.server",
                "solograph_services.mcp.stdio",
                "solograph_services.worker.app", "solograph_services.search.app",
                "solograph_services.hook.main"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_core_imports_no_web_queue_or_mcp_framework():
    offenders = {}
    for path in CORE.rglob("*.py"):
        bad = {m for m in imported_modules(path) if m.split(".")[0] in FORBIDDEN_IN_CORE}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_services_do_not_reach_into_each_other():
    offenders = {}
    for service in SERVICE_NAMES:
        folder = SERVICES / service
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            for module in imported_modules(path):
                parts = module.split(".")
                if (parts[0] == "solograph_services" and len(parts) > 1
                        and parts[1] in SERVICE_NAMES and parts[1] != service
                        and not (service == "cli" and module in ENTRY_POINTS)):
                    offenders.setdefault(str(path.relative_to(ROOT)), []).append(module)
    assert offenders == {}


def _index_names() -> set[str]:
    from solograph.indexes import all_indexes

    return {index.name for index in all_indexes()}


def _constants(path: Path) -> set[str]:
    """The string constants of a module, its docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docs}


def test_the_meaning_lanes_engine_names_no_index():
    """semantic/ is the engine below the indexes: each index's part of the lane is its own
    `meaning` module, reached through `Index.lane`; the engine imports none of them and
    branches on no index's name."""
    from solograph.indexes import PACKAGES

    names = _index_names()
    offenders = {}
    for path in (CORE / "semantic").rglob("*.py"):
        bad = {m for m in imported_modules(path)
               if any(m == p or m.startswith(p + ".") for p in PACKAGES)}
        bad |= {f"the name {c!r}" for c in _constants(path) if c in names}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_each_lane_is_its_index_meaning_module():
    from solograph.index import resolve
    from solograph.indexes import all_indexes
    from solograph.semantic.lane import StoreLane

    for index in all_indexes():
        refs = [a.meaning for a in index.answers if a.meaning]
        if not index.lane:
            assert not refs and not index.embed_job, index.name
            continue
        package = index.lane.partition(":")[0]
        assert package.endswith(".meaning"), index.name
        assert isinstance(resolve(index.lane), StoreLane) and resolve(index.lane).store == \
            index.name
        assert all(r.partition(":")[0] == package for r in refs), index.name
        assert index.job(index.embed_job), index.name


def test_every_index_package_has_the_four_entry_modules():
    from solograph.indexes import PACKAGES

    for package in PACKAGES:
        folder = CORE / package.split(".", 1)[1]
        assert {"store.py", "sync.py", "search.py", "answers.py"} <= {
            p.name for p in folder.iterdir()}, package


def test_the_index_descriptions_name_code_that_exists():
    from solograph.index import resolve
    from solograph.indexes import all_indexes

    for index in all_indexes():
        refs = [index.db, index.open, index.as_of, index.sync]
        refs += [a.run for a in index.answers] + [a.schema for a in index.answers]
        refs += [j.run for j in index.jobs]
        for ref in filter(None, refs):
            assert resolve(ref) is not None, ref
        assert index.sync_job == "" or index.job(index.sync_job), index.name


def test_every_subpackage_is_listed_for_packaging():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {"solograph.migrations"} | {f"solograph.migrations.{d.name}"
                                        for d in (ROOT / "migrations").iterdir()
                                        if d.is_dir() and list(d.glob("*.sql"))}
    for base, prefix in ((CORE, "solograph"), (SERVICES, "solograph_services")):
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([prefix, *rel.parts]) if rel.parts else prefix)
    # Folders of data inside a package (the page's templates and assets) are listed as the
    # SQL folders are, so setuptools ships them without warning.
    for folder in SERVICES.rglob("*"):
        if folder.is_dir() and (folder.parent / "__init__.py").exists() and \
                not (folder / "__init__.py").exists() and folder.name != "__pycache__" and \
                any(f.is_file() for f in folder.iterdir()):
            found.add(".".join(["solograph_services", *folder.relative_to(SERVICES).parts]))
    assert found == listed


def test_every_store_has_migrations_shipped():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = project["tool"]["setuptools"]["package-data"]
    for store in (ROOT / "migrations").iterdir():
        if store.is_dir() and store.name != "__pycache__":
            assert list(store.glob("*.sql")), store
            assert data[f"solograph.migrations.{store.name}"] == ["*.sql"], store


def test_the_license_is_an_spdx_string():
    """A `{text = ...}` table makes setuptools print a deprecation box on every install."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"]


def test_migration_numbers_are_unique_per_store():
    """Two migrations of one store with the same number would apply in name order only by
    luck of their names; each number is taken once."""
    for store in (ROOT / "migrations").iterdir():
        if store.is_dir():
            numbers = [p.name.split("_", 1)[0] for p in store.glob("*.sql")]
            assert len(numbers) == len(set(numbers)), store.name


# Queues that are not an index's name, each admitted on purpose.
ADMITTED_QUEUES = {
    "scan": "a scan's file reads, which any worker with the checkouts may take (any host)",
    "embed": "the meaning lane's embedding: texts in, vectors out (any host)",
}


def test_queue_names_are_the_indexes_plus_the_admitted_ones():
    from solograph.indexes import all_indexes
    from solograph_services.common.jobs import SCAN_PARTS, job_table, queues

    names = {index.name for index in all_indexes()}
    assert names <= set(queues())
    assert set(queues()) - names <= set(ADMITTED_QUEUES)
    # Jobs travel on their index's queue (or an admitted one); a scan's parts stay on the
    # portfolio's, but its reads, which never open the store.
    assert {job.queue for job in job_table().values()} <= names | set(ADMITTED_QUEUES)
    assert {name: part.queue for name, part in SCAN_PARTS.items()} == {
        "read": "scan", "write": "portfolio", "finish": "portfolio"}


INDEX_PACKAGES = ("portfolio", "sessions", "kb", "sources")


def core_module(path: Path) -> str:
    parts = list(path.relative_to(CORE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_imports(path: Path, modules: set[str]) -> set[str]:
    """The core modules `path` imports anywhere: at the top, inside functions, and for type
    checking only (a type-only import is still a knot in the layers). `from package import
    module` is an edge to the module, not to the package it comes from."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            found |= subs & modules or {node.module}
            found |= {node.module} if subs - modules else set()
    return found & modules - {core_module(path)}


def test_settings_and_the_store_import_no_index_and_no_lane():
    modules = {core_module(p) for p in CORE.rglob("*.py")}
    for name in ("config.py", "store.py"):
        reached = core_imports(CORE / name, modules)
        bad = {m for m in reached if m.split(".")[1] in (*INDEX_PACKAGES, "semantic",
                                                         "indexes", "index")}
        assert bad == set(), (name, bad)


# A type-only import in a pair of modules that another change owns: the one knot left.
KNOWN_KNOTS: list[list[str]] = []


def test_the_core_has_no_import_cycle():
    paths = {core_module(p): p for p in CORE.rglob("*.py")}
    graph = {m: core_imports(p, set(paths)) for m, p in paths.items()}
    # Tarjan's strongly connected components: a component of more than one module is a cycle.
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    knots: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                knots.append(sorted(component))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    assert sorted(knots) == KNOWN_KNOTS
