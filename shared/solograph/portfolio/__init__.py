"""The portfolio index: the registry of checkouts, their definitions, files and packages.

Modules: store (portfolio.db), sync (the registry merge and the scan jobs), search (symbol
ranking), answers (symbol_search, project_info); domain modules: registry, scan, files,
definitions/ (tree-sitter), manifests/, info (project facts).
"""

from solograph.index import Answer, Index, Job, Param

STORE = "portfolio"
LAST_SCAN = "last_scan"  # the store's meta key: when the last scan finished

_PROJECT = Param("project", str, 'only this project, e.g. "my-app"', None, max_length=200)

INDEX = Index(
    name=STORE,
    title="portfolio",
    db="solograph.portfolio.store:db_path",
    open="solograph.portfolio.store:opened",
    as_of="solograph.portfolio.store:as_of",
    rebuild="solograph.portfolio.store:rebuild",
    answers=(
        Answer(
            name="symbol_search",
            run="solograph.portfolio.answers:symbol_search",
            schema="solograph.portfolio.shapes:SymbolSearch",
            params=(
                Param("query", str, 'words of a name, e.g. "auth middleware"', http="q"),
                _PROJECT,
                Param("limit", int, "how many definitions, e.g. 20", 20),
            ),
            title="Find definitions across repositories",
            description=(
                "Where a class, function, type or other definition lives across every indexed "
                "repository, matched by the words of its name (camelCase and snake_case alike). "
                "Example: {\"query\": \"auth middleware\"} finds AuthMiddleware and "
                "auth_middleware."),
            route="/v1/symbols", command="symbols", sync=False),
        Answer(
            name="project_info",
            run="solograph.portfolio.answers:project_info",
            schema="solograph.portfolio.shapes:ProjectInfo",
            params=(
                Param("action", str, 'explain, deps, stats, shared, dupes or projects, e.g. '
                      '"explain"', choices=("explain", "deps", "stats", "shared", "dupes",
                                            "projects")),
                Param("project", str, 'the project, for explain and deps, e.g. "my-app"', None,
                      max_length=200),
                Param("package", str, 'for shared: who uses this package, e.g. "react"', None,
                      max_length=200),
                Param("name", str, 'for dupes: only names holding these words, e.g. "escape"',
                      None, max_length=200),
            ),
            title="Project and portfolio facts",
            description=(
                "One project's stack, size, languages, layers and dependencies (explain, deps), "
                "or the whole portfolio: stats, packages shared by several projects (shared), "
                "names defined in several places (dupes), the project list (projects). "
                "Example: {\"action\": \"explain\", \"project\": \"my-app\"}."),
            route="/v1/project_info", sync=False),
        Answer(
            name="symbol_source",
            run="solograph.portfolio.answers:symbol_source",
            params=(
                Param("project", str, 'the project of a symbol hit, e.g. "my-app"',
                      max_length=200),
                Param("path", str, 'its file, e.g. "src/auth.py"', max_length=1000),
                Param("line", int, "its line, e.g. 12"),
                Param("lines", int, "how many lines to show (at most 200)", 40),
            ),
            title="The lines of a definition",
            description="The lines of an indexed file from a symbol hit's line on (redacted), "
                        "with the definitions found there.",
            route="/v1/symbols/source", command="symbol-source", tool=False, sync=False,
            fresh=False),
    ),
    jobs=(
        Job("scan", "solograph.portfolio.sync:scan_portfolio",
            "a scan: the registry merge, then each project under its lock", route="scan"),
        Job("registry", "solograph.portfolio.sync:refresh_registry",
            "a registry merge (find new checkouts)", route="registry"),
    ),
)
