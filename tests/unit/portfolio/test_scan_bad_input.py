"""A scan over files that cannot be read whole: each is that file's problem, counted with its
reason in the scan report and in `stats`; everything around it is indexed. Plus what the new
definition kinds and manifests give the answers (real SQLite, real grammars, real git)."""

from __future__ import annotations

import os

from solograph import reads
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.portfolio import git_init, write_tree

SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYzQ9xK2LmNvT4rS"


def _scan(settings, tmp_path, files: dict[str, str], name: str = "app"):
    root = tmp_path / "projects" / name
    git_init(root)
    write_tree(root, files)
    refresh_registry(settings)
    return root, scan_portfolio(settings)


def _info(settings, action, **kw):
    return reads.project_info(settings, action, **kw)


def test_a_file_of_braces_is_skipped_and_the_next_file_indexed(settings, tmp_path):
    """Regression: 300 KB of `{` held one scan for 74 s."""
    _, report = _scan(settings, tmp_path, {
        "a/braces.js": "{" * 300_000,
        "b/good.js": "function afterTheBraces() {}\n",
    })
    assert report["skipped"]["too_deep"] == 1
    hits = reads.symbol_search(settings, "after the braces")["results"]
    assert [h["name"] for h in hits] == ["afterTheBraces"]
    problems = _info(settings, "stats")["problems"]["files"]
    assert {"project": "app", "path": "a/braces.js", "language": "javascript",
            "status": "too_deep"} in problems


def test_a_file_parsed_in_part_is_counted_listed_and_keeps_its_definitions(settings, tmp_path):
    _, report = _scan(settings, tmp_path, {
        "lib/tools.sh": ("before() { :; }\n\nbroken() {\n  esac <<< (( \n}\n\n"
                         "after_the_error() {\n  echo ok\n}\n"),
    })
    assert report["parsed_in_part"] == 1 and "1 parsed in part" in report["summary"]
    names = {h["name"] for h in reads.symbol_search(settings, "after the error")["results"]}
    assert "after_the_error" in names
    stats = _info(settings, "stats")
    assert stats["parsed_in_part"] == 1 and stats["skipped"] == {}
    assert stats["problems"]["files"] == [{"project": "app", "path": "lib/tools.sh",
                                           "language": "bash", "status": "syntax_error"}]


def test_a_link_out_of_the_checkout_is_never_followed(settings, tmp_path):
    outside = tmp_path / "elsewhere"
    write_tree(outside, {"secret.py": "def leaked_function():\n    pass\n",
                         "requirements.txt": "leaked-package==1.0\n"})
    root = tmp_path / "projects" / "app"
    git_init(root)
    write_tree(root, {"app/main.py": "def inside_function():\n    pass\n",
                      "app/real.py": "def linked_inside():\n    pass\n"})
    os.symlink(outside / "secret.py", root / "app" / "secret.py")
    os.symlink(outside / "requirements.txt", root / "requirements.txt")
    os.symlink(root / "app" / "real.py", root / "app" / "alias.py")
    refresh_registry(settings)
    report = scan_portfolio(settings)
    assert report["skipped"]["outside"] == 2
    assert "leaked_function" not in {
        h["name"] for h in reads.symbol_search(settings, "leaked function")["results"]}
    found = {(h["path"], h["name"]) for h in reads.symbol_search(settings, "linked_inside")
             ["results"] if h["match"] == "exact"}
    assert found == {("app/real.py", "linked_inside"), ("app/alias.py", "linked_inside")}
    assert _info(settings, "deps", project="app")["packages"] == []
    problems = _info(settings, "stats")["problems"]["files"]
    assert {"project": "app", "path": "app/secret.py", "language": "python",
            "status": "outside"} in problems
    again = scan_portfolio(settings)  # the link stays counted, never read
    assert again["unchanged"] == 4 and again["parsed"] == 0


def test_a_manifest_error_is_stored_redacted(settings, tmp_path):
    _scan(settings, tmp_path, {
        "requirements.txt": f"requests==2.31.0\nAWS_SECRET_ACCESS_KEY={SECRET}\n",
    })
    deps = _info(settings, "deps", project="app")
    error = deps["manifests"][0]["error"]
    assert error and SECRET not in error and "AWS_SECRET_ACCESS_KEY" in error
    assert [p["name"] for p in deps["packages"]] == ["requests"]
    stats = _info(settings, "stats")
    assert SECRET not in str(stats) and stats["problems"]["manifests"][0]["path"] == (
        "requirements.txt")


def test_a_secret_in_a_test_name_or_a_label_is_redacted(settings, tmp_path):
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    _scan(settings, tmp_path, {
        "test/login.bats": f'@test "logs in with {token}" {{\n  run login\n}}\n',
        "infra/main.tf": f'resource "github_token" "{token}" {{}}\n',
    })
    hits = reads.symbol_search(settings, "logs in with")["results"]
    assert hits and all(token not in h["name"] for h in hits)
    assert token not in str(reads.symbol_search(settings, "github token")["results"])


def test_new_manifest_kinds_say_where_each_package_comes_from(settings, tmp_path):
    _scan(settings, tmp_path, {
        "go.mod": "module acme\n\nrequire github.com/spf13/cobra v1.8.0\n",
        "Gemfile": 'source "https://rubygems.org"\ngem "rails", "~> 7.1"\n',
        "tool.gemspec": 'Gem::Specification.new do |s|\n  s.add_dependency "rails"\nend\n',
        "web/composer.json": '{"require": {"php": "^8.2", "laravel/framework": "^11.0"}}',
        "java/pom.xml": ("<project><dependencies><dependency><groupId>junit</groupId>"
                         "<artifactId>junit</artifactId><scope>test</scope></dependency>"
                         "</dependencies></project>"),
        "requirements.txt": "click\n",
        "requirements/dev.txt": "click\n",
    })
    deps = _info(settings, "deps", project="app")
    where = {(p["manager"], p["name"], p["manifest"]) for p in deps["packages"]}
    assert where == {
        ("go", "github.com/spf13/cobra", "go.mod"),
        ("gem", "rails", "Gemfile"),
        ("gem", "rails", "tool.gemspec"),
        ("composer", "laravel/framework", "web/composer.json"),
        ("maven", "junit:junit", "java/pom.xml"),
        ("pip", "click", "requirements.txt"),
        ("pip", "click", "requirements/dev.txt"),
    }
    explain = _info(settings, "explain", project="app")
    assert sorted(explain["dependencies"]) == ["click", "github.com/spf13/cobra",
                                               "laravel/framework", "rails"]
    assert set(explain["managers"]) == {"composer", "gem", "go", "maven", "pip"}
    assert {"rails", "laravel/framework"} <= set(explain["stack"])


def test_a_swift_extension_is_found_by_its_type_and_protocol(settings, tmp_path):
    _scan(settings, tmp_path, {
        "Sources/Args/Date+Argument.swift": (
            "import ArgumentParser\n\nextension Date: ExpressibleByArgument {\n"
            "    public init?(argument: String) { return nil }\n}\n"),
        "Sources/Args/Other.swift": "struct DateFormatterBox {}\n",
    })
    top = reads.symbol_search(settings, "Date ExpressibleByArgument")["results"][0]
    assert (top["name"], top["kind"], top["line"]) == ("Date", "extension", 3)
    init = reads.symbol_search(settings, "Date init")["results"][0]
    assert (init["name"], init["scope"]) == ("init", "Date")


def test_dupes_matches_definition_names_only_and_says_when_nothing_is_found(settings,
                                                                            tmp_path):
    code = ("def parse(text):\n    pass\n\n\nclass Parser:\n    def run(self):\n"
            "        pass\n\n\ndef main():\n    pass\n")
    _scan(settings, tmp_path, {"a/one.py": code, "b/two.py": code})
    dupes = _info(settings, "dupes", name="parse")  # never the run, main of Parser's scope
    assert {g["name"] for g in dupes["groups"]} == {"parse", "Parser"}
    nothing = _info(settings, "dupes", name="escape")
    assert nothing["groups"] == [] and "escape" in nothing["message"]
