"""Which command lines the kept command server may run, and where its socket lives."""

from __future__ import annotations

import os

import pytest

from solograph_services.cli import command_client as client


@pytest.mark.parametrize("argv", [
    ["symbols", "auth"], ["sessions", "webhook", "--json"], ["kb", "get", "x.md"],
    ["explain", "app"], ["stats"], ["kb-graph", "--check"], ["usage"],
    ["sources", "search", "pricing"], ["sources", "list"], ["sessions", "--help"],
    ["hook"], ["hook", "--kb-path", "notes"],
], ids=" ".join)
def test_reads_are_handed_over(argv):
    assert client.served(argv)


@pytest.mark.parametrize("argv", [
    [], ["--version"], ["--help"], ["scan"], ["registry"], ["sync-sessions"], ["index-kb"],
    ["hook", "--help"], ["mcp"], ["api"], ["worker"], ["refresh"], ["rebuild"],
    ["memgate", "train", "-"],
    ["sources", "index-youtube", "-c", "x"], ["sources"], ["cli-server", "--status"],
], ids=lambda a: " ".join(a) or "(none)")
def test_writes_services_and_stdin_readers_run_where_typed(argv):
    assert not client.served(argv)


def test_off_never_tries(monkeypatch, tmp_path):
    monkeypatch.setenv("SOLOGRAPH_CLI_SERVER", "off")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert client.run(["symbols", "x"]) is None
    assert not (tmp_path / "solograph").exists()


def test_the_folder_must_be_this_users_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert client.folder() == str(tmp_path / "solograph")  # not made yet: made private
    (tmp_path / "solograph").mkdir(mode=0o700)
    assert client.folder() == str(tmp_path / "solograph")
    os.chmod(tmp_path / "solograph", 0o755)
    assert client.folder() is None
    os.rmdir(tmp_path / "solograph")
    (tmp_path / "mine").mkdir(mode=0o700)
    (tmp_path / "solograph").symlink_to(tmp_path / "mine")
    assert client.folder() is None  # a planted link, even to a folder of ours
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/folder")
    assert client.folder() == f"/tmp/solograph-{os.getuid()}"


def test_one_socket_per_installed_copy(tmp_path):
    path = client.socket_path(str(tmp_path))
    assert path.startswith(str(tmp_path) + "/cli-") and path.endswith(".sock")
    assert path == client.socket_path(str(tmp_path))


def test_a_platform_without_unix_sockets_runs_the_command_here(monkeypatch, tmp_path):
    import _socket

    (tmp_path / "solograph").mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("SOLOGRAPH_CLI_SERVER", "auto")
    monkeypatch.delattr(_socket, "AF_UNIX")
    assert client.run(["symbols", "x"]) is None
    monkeypatch.setattr(client, "PENDING", [])
    monkeypatch.setattr(client.os, "posix_spawn", None)  # no posix_spawn: nothing started
    client.start(str(tmp_path / "solograph"), str(tmp_path / "solograph" / "cli-1.sock"))
