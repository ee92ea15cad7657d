"""symbol_source: the lines of an indexed file around a definition, redacted, and nothing but
an indexed file of the named project."""

from __future__ import annotations

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery, NotFound, UnknownProject
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.portfolio import make_portfolio

KEY = "sk-ant-api03-" + "Q" * 90


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("source")
    root = make_portfolio(base)
    (root / "py-service" / "app" / "config.py").write_text(
        f"API_KEY = '{KEY}'\n\n\ndef load_config():\n    return API_KEY\n")
    s = Settings(home=base / "home", scan_paths=(root,))
    refresh_registry(s)
    scan_portfolio(s)
    return s


def test_the_lines_from_the_definition_on_with_what_is_defined_there(settings):
    hit = next(h for h in reads.symbol_search(settings, "auth middleware")["results"]
               if h["name"] == "auth_middleware")
    answer = reads.symbol_source(settings, hit["project"], hit["path"], hit["line"], lines=5)
    assert answer["start"] == max(1, hit["line"] - 3)
    assert answer["lines"][hit["line"] - answer["start"]] == "def auth_middleware(app):"
    assert len(answer["lines"]) == 5 and answer["total_lines"] == 11
    assert "auth_middleware" in [d["name"] for d in answer["definitions"]]


def test_a_secret_in_the_file_is_redacted(settings):
    answer = reads.symbol_source(settings, "py-service", "app/config.py", 4)
    assert KEY not in "\n".join(answer["lines"])
    assert "[REDACTED]" in answer["lines"][0]


@pytest.mark.parametrize(("project", "path", "error"), [
    ("py-service", "../../../../etc/passwd", NotFound),
    ("py-service", "app/not-there.py", NotFound),
    ("py-service", "/etc/passwd", NotFound),
    ("nope", "app/auth_middleware.py", UnknownProject),
    ("py-service", "", BadQuery),
])
def test_only_an_indexed_file_of_the_project_is_read(settings, project, path, error):
    with pytest.raises(error):
        reads.symbol_source(settings, project, path, 1)
