from pathlib import Path

import pytest

from solograph.config import Settings, is_private
from solograph.errors import ConfigError


def test_defaults(tmp_path):
    s = Settings.from_env({"HOME": str(tmp_path)}, cwd=tmp_path)
    assert s.home == Path("~/.solo").expanduser()
    assert s.portfolio_db.name == "portfolio.db"
    assert s.max_file_bytes == 1_000_000


def test_scan_paths_are_comma_separated(tmp_path):
    s = Settings.from_env({"CODEGRAPH_SCAN_PATH": f"{tmp_path}/a, {tmp_path}/b,,",
                           "SOLOGRAPH_HOME": str(tmp_path / "h")}, cwd=tmp_path)
    assert s.scan_paths == (tmp_path / "a", tmp_path / "b")
    assert s.home == tmp_path / "h"


def test_scope_from_env_wins_over_yaml(tmp_path):
    (tmp_path / ".solograph.yaml").write_text("scope: [one, two]\n")
    assert Settings.from_env({}, cwd=tmp_path).scan_scope == ("one", "two")
    assert Settings.from_env({"SOLOGRAPH_SCOPE": "a b"}, cwd=tmp_path).scan_scope == ("a", "b")


def test_scope_from_the_kb_config(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / ".solograph.yaml").write_text("scope: alpha beta\nkb:\n  pages: wiki/\n")
    assert Settings.from_env({"KB_PATH": str(kb)}, cwd=tmp_path).scan_scope == ("alpha", "beta")


@pytest.mark.parametrize("text", ["scope: 5\n", "scope: {a: 1}\n", "- just a list\n",
                                  "scope: [unclosed\n"])
def test_bad_yaml_scope_is_a_clear_error_for_a_scan_only(tmp_path, text):
    (tmp_path / ".solograph.yaml").write_text(text)
    settings = Settings.from_env({}, cwd=tmp_path)  # a search never reads `scope:`
    with pytest.raises(ConfigError, match=".solograph.yaml"):
        assert settings.scan_scope is None


def test_bad_integer_setting(tmp_path):
    with pytest.raises(ConfigError, match="SOLOGRAPH_MAX_FILE_BYTES"):
        Settings.from_env({"SOLOGRAPH_MAX_FILE_BYTES": "lots"}, cwd=tmp_path)


def test_private_marker_in_a_parent(tmp_path):
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / ".solograph-private").touch()
    (tmp_path / "secret" / "deep").mkdir()
    assert is_private(tmp_path / "secret" / "deep")
    assert not is_private(tmp_path)
    (tmp_path / "spot").mkdir()
    (tmp_path / "spot" / ".metadata_never_index").touch()
    assert is_private(tmp_path / "spot")
