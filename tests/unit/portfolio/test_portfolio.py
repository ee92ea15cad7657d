"""The portfolio index end to end on a fixture portfolio: registry, scan, search, info."""

from __future__ import annotations

import os
import shutil

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery, UnknownProject
from solograph.portfolio import registry
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from solograph.store import connect_writer
from tests.support.portfolio import make_portfolio


def _build(settings, base):
    make_portfolio(base)
    refresh_registry(settings)
    return settings, scan_portfolio(settings)


@pytest.fixture
def portfolio(settings, tmp_path):
    """A scanned portfolio a test may change."""
    return _build(settings, tmp_path)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """One scanned portfolio shared by the tests that only read it."""
    base = tmp_path_factory.mktemp("portfolio")
    return _build(Settings(home=base / "home", scan_paths=(base / "projects",)), base)


def names(answer):
    return [r["name"] for r in answer["results"]]


def test_registry_finds_each_checkout_once_including_nested(settings, tmp_path):
    root = make_portfolio(tmp_path)
    report = refresh_registry(settings)
    assert sorted(report["added"]) == ["native-tools", "py-service", "vendor-lib", "web-app"]
    again = refresh_registry(settings)
    assert again["added"] == [] and again["known"] == 4
    # A worktree-style checkout (.git is a file) is found too.
    wt = root / ".worktrees" / "feature"
    wt.mkdir(parents=True)
    (wt / ".git").write_text("gitdir: /elsewhere/.git/worktrees/feature\n")
    assert refresh_registry(settings)["added"] == ["feature"]


def test_removed_project_stays_out(settings, tmp_path):
    make_portfolio(tmp_path)
    refresh_registry(settings)
    conn = connect_writer(settings.portfolio_db, "portfolio")
    registry.remove(conn, "web-app")
    conn.close()
    assert refresh_registry(settings)["added"] == []
    scan_portfolio(settings)
    answer = reads.project_info(settings, "projects")
    assert "web-app" not in [p["name"] for p in answer["projects"]]
    assert reads.symbol_search(settings, "login form")["results"] == []


def test_unknown_project_fails_the_run_with_a_clear_message(settings, tmp_path):
    make_portfolio(tmp_path)
    refresh_registry(settings)
    with pytest.raises(UnknownProject, match="nope"):
        scan_portfolio(settings, projects=["web-app", "nope"])
    with pytest.raises(UnknownProject):
        scan_portfolio(settings.with_(scope=("nope",)))


def test_private_checkout_is_never_registered_and_purged_later(settings, tmp_path):
    root = make_portfolio(tmp_path)
    refresh_registry(settings)
    (root / "py-service" / ".solograph-private").touch()
    report = refresh_registry(settings)
    assert report["purged"] == ["py-service"]
    names_ = [p["name"] for p in reads.project_info(settings, "projects")["projects"]]
    assert "py-service" not in names_


def test_scan_summary_counts_skips(scanned):
    _, report = scanned
    assert report["projects"] == 4
    assert report["skipped"]["binary"] == 1
    assert report["skipped"]["huge"] == 1
    assert report["parsed_in_part"] >= 1
    assert report["symbols"] > 30
    assert "scanned 4 projects" in report["summary"]


@pytest.mark.parametrize(("query", "name", "language_path"), [
    ("auth middleware", "AuthMiddleware", None),
    ("parse http response", "parseHTTPResponse2", "src/auth/middleware.ts"),
    ("login form", "LoginForm", "src/components/LoginForm.tsx"),
    ("escape html", "escapeHtml", "lib/escape.js"),
    ("montage profile", "MontageProfile", "Sources/App/Recorder.swift"),
    ("main activity", "MainActivity", "android/src/Main.kt"),
    ("token bucket", "TokenBucket", "core/src/lib.rs"),
    ("listen and serve", "ListenAndServe", "cmd/server/main.go"),
    ("billing service", "BillingService", "java/src/Billing.java"),
    ("total amount", "total_amount", "ruby/lib/invoice.rb"),
    ("ring push", "ring_push", "c/src/ring.c"),
    ("widget", "Widget", "cpp/src/widget.cpp"),
    ("shopping cart", "ShoppingCart", "php/src/Cart.php"),
    ("s3 bucket logs", "aws_s3_bucket.logs", "infra/main.tf"),
    ("aws_s3_bucket.logs", "aws_s3_bucket.logs", "infra/main.tf"),
    ("deploy release", "deploy_release", "scripts/deploy.sh"),
    ("user accounts", "user_accounts", "db/schema.sql"),
    ("good function", "good_function", "app/broken.py"),
])
def test_definitions_found_per_language(scanned, query, name, language_path):
    settings, _ = scanned
    answer = reads.symbol_search(settings, query)
    assert answer["results"], query
    top = answer["results"][0]
    assert top["name"] == name
    if language_path:
        assert top["path"] == language_path


def test_every_spelling_and_exact_name_first(scanned):
    settings, _ = scanned
    found = names(reads.symbol_search(settings, "auth middleware"))
    assert {"AuthMiddleware", "auth_middleware"} <= set(found[:3])
    # the exact name outranks a longer name holding the same words
    exact = reads.symbol_search(settings, "escape")["results"]
    assert exact[0]["name"] == "escape" and exact[0]["match"] == "exact"
    assert "escapeHtml" in names(reads.symbol_search(settings, "escape"))


def test_all_words_rank_above_some_words(scanned):
    settings, _ = scanned
    results = reads.symbol_search(settings, "auth state")["results"]
    assert results[0]["name"] == "useAuthState"
    tiers = [r["match"] for r in results]
    assert tiers == sorted(tiers, key=["exact", "all", "some"].index)
    assert "some" in tiers  # AuthMiddleware holds only one of the words


def test_scope_and_methods(scanned):
    settings, _ = scanned
    hits = reads.symbol_search(settings, "draw")["results"]
    assert any(h["scope"] == "Widget" and h["kind"] == "method" for h in hits)
    refill = reads.symbol_search(settings, "refill")["results"][0]
    assert refill["scope"] == "TokenBucket"


def test_project_filter_and_unknown_project(scanned):
    settings, _ = scanned
    hits = reads.symbol_search(settings, "auth middleware", project="py-service")["results"]
    assert hits and {h["project"] for h in hits} == {"py-service"}
    with pytest.raises(UnknownProject):
        reads.symbol_search(settings, "x", project="nope")


def test_ignored_vendored_and_nested_files_stay_out(scanned):
    settings, _ = scanned
    for query in ("left pad", "bundled", "generated client", "not indexed"):
        assert reads.symbol_search(settings, query)["results"] == [], query
    nested = reads.symbol_search(settings, "nested repo function")["results"]
    assert [h["project"] for h in nested if h["match"] != "some"] == ["vendor-lib"]


def test_fts_syntax_never_errors(scanned):
    settings, _ = scanned
    for q in ['"auth', "auth AND", "NEAR(auth middleware)", "auth*", "{words}: auth", "a:b"]:
        reads.symbol_search(settings, q)
    with pytest.raises(BadQuery):
        reads.symbol_search(settings, "   ")


def _touch(path):
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_incremental_rescan_reads_only_what_changed(portfolio, tmp_path):
    settings, _ = portfolio
    again = scan_portfolio(settings)
    assert again["parsed"] == 0 and again["deleted"] == 0
    assert again["unchanged"] == again["files"]

    root = tmp_path / "projects"
    target = root / "py-service" / "app" / "auth_middleware.py"
    target.write_text(target.read_text() + "\n\ndef freshly_added():\n    pass\n")
    _touch(target)
    (root / "web-app" / "lib" / "escape.js").unlink()
    report = scan_portfolio(settings)
    assert report["parsed"] == 1
    assert report["deleted"] == 1
    assert names(reads.symbol_search(settings, "freshly added"))[0] == "freshly_added"
    assert "escapeHtml" not in names(reads.symbol_search(settings, "escape html"))


def test_deleted_checkout_is_reported_missing(portfolio, tmp_path):
    settings, _ = portfolio
    shutil.rmtree(tmp_path / "projects" / "web-app")
    assert scan_portfolio(settings)["missing"] == ["web-app"]
    assert refresh_registry(settings)["missing"] == ["web-app"]


def test_explain_deps_stats_shared_dupes(scanned):
    settings, _ = scanned
    ex = reads.project_info(settings, "explain", project="web-app")
    assert ex["size"]["files"] >= 2
    assert "react" in ex["stack"] and "next" in ex["stack"]
    assert {lang["language"] for lang in ex["languages"]} >= {"typescript", "tsx", "javascript"}
    deps = reads.project_info(settings, "deps", project="native-tools")
    managers = {p["manager"] for p in deps["packages"]}
    assert managers == {"spm", "gradle", "cargo"}
    py = {p["name"]: p for p in
          reads.project_info(settings, "deps", project="py-service")["packages"]}
    assert py["fastapi"]["dev"] is False and py["pytest"]["dev"] is True and py["ruff"]["dev"]
    stats = reads.project_info(settings, "stats")
    assert stats["projects"] == 4 and stats["definitions"] > 30
    assert len(stats["languages"]) >= 15
    dupes = reads.project_info(settings, "dupes", name="auth middleware")
    assert dupes["groups"] and dupes["groups"][0]["projects"] == 2


def test_shared_packages(settings, tmp_path):
    root = make_portfolio(tmp_path)
    (root / "py-service" / "package.json").write_text('{"dependencies": {"react": "18"}}')
    refresh_registry(settings)
    scan_portfolio(settings)
    shared = reads.project_info(settings, "shared")
    assert {"manager": "npm", "name": "react", "projects": ["py-service", "web-app"]} in \
        shared["packages"]
    who = reads.project_info(settings, "shared", package="react")
    assert [p["project"] for p in who["projects"]] == ["py-service", "web-app"]


def test_secrets_in_manifest_specs_are_redacted(settings, tmp_path):
    root = make_portfolio(tmp_path)
    token = "ghp_" + "a1B2" * 9
    (root / "py-service" / "requirements.txt").write_text(
        f"private-lib @ git+https://user:{token}@github.com/org/lib.git\n")
    refresh_registry(settings)
    scan_portfolio(settings)
    raw = settings.portfolio_db.read_bytes()
    assert token.encode() not in raw
    for suffix in ("-wal",):
        wal = settings.portfolio_db.with_name(settings.portfolio_db.name + suffix)
        if wal.exists():
            assert token.encode() not in wal.read_bytes()


def test_a_manifest_error_quoting_a_secret_is_redacted(settings, tmp_path):
    # A line pip cannot parse is quoted in the error, cut to 80 characters: redacted first.
    root = make_portfolio(tmp_path)
    secret = "ghp_" + "a1B2" * 9
    for pad in (0, 30, 50):
        (root / "py-service" / f"requirements-{pad}.txt").write_text(
            "x" * pad + f" GITHUB_TOKEN={secret}\nrequests==2.31\n")
    refresh_registry(settings)
    scan_portfolio(settings)
    deps = reads.project_info(settings, "deps", project="py-service")
    dumped = reads.to_json(deps)
    assert "cannot parse requirement" in dumped and "[REDACTED]" in dumped
    assert secret[:12] not in dumped
    assert secret[:12].encode() not in settings.portfolio_db.read_bytes()


def test_a_store_written_under_older_rules_is_cleaned_at_the_next_scan(settings, tmp_path):
    make_portfolio(tmp_path)
    refresh_registry(settings)
    scan_portfolio(settings)
    token = "ghp_" + "a1B2" * 9
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:  # what an older version left: an error and a spec stored as read
        conn.execute("UPDATE manifests SET error = ?", (f"line 1: bad {token!r}",))
        conn.execute("UPDATE packages SET spec = ?", (f"git+https://u:{token}@github.com/o/r",))
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'rules_version'")
    finally:
        conn.close()
    scan_portfolio(settings)
    assert token.encode() not in settings.portfolio_db.read_bytes()
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        errors = {r[0] for r in conn.execute("SELECT error FROM manifests")}
    finally:
        conn.close()
    assert errors == {"line 1: bad '[REDACTED]'"}


def test_answers_are_compact_json(scanned):
    settings, _ = scanned
    text = reads.to_json(reads.symbol_search(settings, "auth middleware", limit=2))
    assert text.startswith('{"query":"auth middleware"') and ", " not in text[:40]



@pytest.mark.parametrize(("query", "name"), [
    ("shoping cart", "ShoppingCart"), ("billing servce", "BillingService"),
    ("montage profle", "MontageProfile"), ("deploy relase", "deploy_release"),
])
def test_a_typo_is_respelt_from_the_index_vocabulary(scanned, query, name):
    settings, _ = scanned
    top = reads.symbol_search(settings, query)["results"][0]
    assert (top["name"], top["match"]) == (name, "respelt")


def test_a_word_spelt_right_is_not_respelt(scanned):
    settings, _ = scanned
    assert {r["match"] for r in reads.symbol_search(settings, "shopping cart")["results"]} \
        <= {"exact", "all", "some"}


def test_the_spelling_typed_wins_a_folded_tie(scanned):
    settings, _ = scanned
    snake = reads.symbol_search(settings, "auth_middleware")["results"]
    assert snake[0]["name"] == "auth_middleware"
    pascal = reads.symbol_search(settings, "AuthMiddleware")["results"]
    assert [r["name"] for r in pascal[:2]] == ["AuthMiddleware", "AuthMiddleware"]
    # a plain lowercase word says nothing of spelling: BM25 keeps its order
    assert {r["name"] for r in reads.symbol_search(settings, "authmiddleware")["results"][:3]} \
        >= {"AuthMiddleware", "auth_middleware"}


@pytest.mark.parametrize("path, test", [
    ("tests/test_core.py", True), ("pkg/test_core.py", True), ("cmd/command_test.go", True),
    ("src/app.test.ts", True), ("src/app.spec.tsx", True), ("Tests/AppTests/AppTests.swift", True),
    ("spec/models/user_spec.rb", True), ("src/__tests__/x.js", True),
    ("src/FooTest.java", True), ("src/testing_utils.py", False), ("src/contest.py", False),
    ("src/latest/app.py", False), ("src/attest.go", False),
])
def test_what_a_test_path_is(path, test):
    from solograph.portfolio.search import is_test_path

    assert is_test_path(path) is test


def test_source_before_tests_at_an_equal_match(settings, tmp_path):
    from tests.support.portfolio import git_init, write_tree

    root = tmp_path / "projects"
    git_init(root / "cli")
    write_tree(root / "cli", {
        "command.go": "package cli\n\ntype Command struct{}\n\nfunc (c *Command) Execute() {}\n",
        "command_test.go": "package cli\n\nfunc executeCommand() {}\n\n"
                           "func TestExecuteCommand() {}\n",
        "tests/helpers.py": "def execute_command():\n    pass\n",
    })
    settings = Settings(home=tmp_path / "home", scan_paths=(root,))
    refresh_registry(settings)
    scan_portfolio(settings)
    found = reads.symbol_search(settings, "execute command")["results"]
    assert found[0]["name"] == "Execute" and found[0]["scope"] == "Command"
    assert {r["name"] for r in found[1:]} >= {"executeCommand", "execute_command"}
    # spelt as typed still wins: the only `execute_command` is the test helper
    assert reads.symbol_search(settings, "execute_command")["results"][0]["name"] == \
        "execute_command"


def test_a_test_holding_every_word_comes_after_the_source_holding_some(settings, tmp_path):
    from tests.support.portfolio import git_init, write_tree

    root = tmp_path / "projects"
    git_init(root / "click")
    write_tree(root / "click", {
        "src/click/termui.py": "def prompt(text):\n    pass\n\n\ndef confirm(text):\n    pass\n",
        "tests/test_termui.py": "def test_confirmation_prompt(runner):\n"
                                "    def cli():\n        pass\n",
    })
    settings = Settings(home=tmp_path / "home", scan_paths=(root,))
    refresh_registry(settings)
    scan_portfolio(settings)
    found = [r["name"] for r in reads.symbol_search(settings, "confirm prompt")["results"]]
    assert set(found[:2]) == {"confirm", "prompt"} and "test_confirmation_prompt" in found[2:]
    # named exactly, the test is the answer
    assert reads.symbol_search(settings, "test confirmation prompt")["results"][0]["name"] \
        == "test_confirmation_prompt"


def test_a_method_asked_name_first_then_its_class_is_exact(settings, tmp_path):
    """`execute command` is Command.Execute, as `color parse` is Color.parse: cobra's
    command.go holds many definitions with both words, which BM25 puts first."""
    from tests.support.portfolio import git_init, write_tree

    root = tmp_path / "projects"
    git_init(root / "cobra")
    many = "".join(f"func (c *Command) executeCommandStep{i}() {{}}\n\n" for i in range(8))
    write_tree(root / "cobra", {
        "command.go": "package cobra\n\ntype Command struct{}\n\n"
                      "func (c *Command) Execute() error { return nil }\n\n"
                      "func (c *Command) ExecuteC() (*Command, error) { return c, nil }\n\n"
                      "type ExecutableCommandOptions struct{}\n\n" + many,
    })
    settings = Settings(home=tmp_path / "home", scan_paths=(root,))
    refresh_registry(settings)
    scan_portfolio(settings)
    top = reads.symbol_search(settings, "execute command")["results"]
    assert (top[0]["name"], top[0]["scope"], top[0]["match"]) == ("Execute", "Command", "exact")
