"""Sharing the work across hosts, read from the compose files (no engine needed): the first
host's override puts its Redis behind a password on the one address it is told, a worker-only
host reads the checkouts read-only, takes only the `scan` queue and holds no store, and an
embedding-only host takes only the `embed` queue with no mount at all.

.ci/compose-check runs `docker compose config` on both with their required variables set.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.unit.core.test_compose import USER, _load, _mounts

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "${SOLOGRAPH_REDIS_PASSWORD:?"


def test_the_first_host_puts_redis_behind_a_password_on_the_address_it_is_told():
    share = _load("compose.share.yml")["services"]
    stack = _load("docker-compose.yml")["services"]
    redis = share["redis"]
    command = redis["command"]
    assert command[command.index("--requirepass") + 1].startswith(PASSWORD)
    assert redis["environment"]["REDISCLI_AUTH"].startswith(PASSWORD)  # the health check
    (port,) = redis["ports"]
    # A required address, never a wildcard by default.
    assert port.startswith("${SOLOGRAPH_REDIS_PUBLISH_ADDR:?") and "0.0.0.0" not in port
    solograph = {n for n, s in stack.items() if str(s.get("image", "")).startswith("solograph")}
    assert solograph <= set(share)
    for name in solograph:
        url = share[name]["environment"]["SOLOGRAPH_REDIS_URL"]
        assert url.startswith("redis://:" + PASSWORD) and url.endswith("@redis:6379/0"), name


def test_a_worker_only_host_reads_the_checkouts_and_holds_no_store():
    compose = _load("compose.worker.yml")
    (worker,) = compose["services"].values()
    assert worker["command"][:3] == ["worker", "-Q", "scan"]
    mounts = _mounts(worker)
    assert mounts == [{"type": "bind", "source": mounts[0]["source"], "target": "/repos",
                       "read_only": True}]
    assert mounts[0]["source"].startswith("${SOLOGRAPH_REPOS:?")
    assert "volumes" not in compose  # no solograph-data: the store lives on the first host
    env = worker["environment"]
    assert env["CODEGRAPH_SCAN_PATH"] == "/repos"
    assert env["SOLOGRAPH_HOME"].startswith("/tmp/")
    assert re.fullmatch(r"redis://:\$\{SOLOGRAPH_REDIS_PASSWORD:\?[^}]*\}@"
                        r"\$\{SOLOGRAPH_REDIS_HOST:\?[^}]*\}:\$\{SOLOGRAPH_REDIS_PORT:-6379\}/0",
                        env["SOLOGRAPH_REDIS_URL"])
    assert not worker.get("ports")
    assert worker["user"] == USER and worker["init"] is True and worker["read_only"] is True
    assert worker["cap_drop"] == ["ALL"]
    assert worker["image"] == "solograph:latest" and worker["pull_policy"] == "never"
    assert worker["healthcheck"]["test"][-1] == "worker"


def test_an_embedding_only_host_mounts_nothing():
    compose = _load("compose.embed.yml")
    (worker,) = compose["services"].values()
    assert worker["command"][:3] == ["worker", "-Q", "embed"]
    assert not worker.get("volumes") and "volumes" not in compose and not worker.get("ports")
    env = worker["environment"]
    assert env["SOLOGRAPH_HOME"].startswith("/tmp/") and env["SOLOGRAPH_SEMANTIC"] == "on"
    assert env["SOLOGRAPH_REDIS_URL"] == _load("compose.worker.yml")["services"][
        "scan-worker"]["environment"]["SOLOGRAPH_REDIS_URL"]
    assert worker["user"] == USER and worker["read_only"] is True
    assert worker["healthcheck"]["test"][-1] == "embedder"  # its own node name (app.py)


def test_the_hosts_variables_are_documented():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    for name in ("compose.share.yml", "compose.worker.yml", "compose.embed.yml"):
        used = set(re.findall(r"\$\{(\w+)", (ROOT / name).read_text(encoding="utf-8")))
        assert {u for u in used if f"`{u}`" not in readme} == set(), name
        assert {u for u in used if not re.search(rf"^#?\s*{u}=", example, re.M)} == set(), name
    assert "## Sharing the work across hosts" in readme


def test_the_readme_gives_the_commands_of_both_hosts():
    section = (ROOT / "README.md").read_text(encoding="utf-8").split(
        "## Sharing the work across hosts", 1)[1].split("\n## ", 1)[0]
    blocks = "\n".join(re.findall(r"```sh\n(.*?)```", section, flags=re.S))
    assert "docker compose -f docker-compose.yml -f compose.share.yml up" in blocks
    assert "docker compose -f compose.worker.yml up" in blocks
    assert "docker compose -f compose.embed.yml up" in blocks
    assert "requirepass" in section and "TLS" in section
    yaml.safe_load((ROOT / "compose.worker.yml").read_text(encoding="utf-8"))
