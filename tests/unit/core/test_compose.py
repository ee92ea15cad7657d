"""The compose stack's invariants, read from the files with PyYAML (no engine needed).

scripts/compose-test.sh runs the stack for real; these checks keep the promises it relies on
from drifting: read-only host folders, a writable data volume, loopback-only ports, the host
user's uid, one beat, health-gated start order, and a Dockerfile that builds from any base.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
PUBLISH = "${SOLOGRAPH_PUBLISH_ADDR:-127.0.0.1}"
USER = "${SOLOGRAPH_UID:-1000}:${SOLOGRAPH_GID:-1000}"
DATA_VOLUME = "solograph-data"
DATA_DIR = "/data"


class _ComposeLoader(yaml.SafeLoader):
    """SafeLoader plus compose's `!reset` / `!override` merge tags (used by compose.test.yml)."""


def _tagged(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_ComposeLoader.add_constructor("!reset", _tagged)
_ComposeLoader.add_constructor("!override", _tagged)


def _load(name: str) -> dict:
    return yaml.load((ROOT / name).read_text(encoding="utf-8"), Loader=_ComposeLoader)


@pytest.fixture(scope="module")
def compose() -> dict:
    return _load("docker-compose.yml")


@pytest.fixture(scope="module")
def services(compose: dict) -> dict:
    return compose["services"]


def _solograph_services(services: dict) -> dict:
    return {n: s for n, s in services.items() if str(s.get("image", "")).startswith("solograph")}


def _mounts(service: dict) -> list[dict]:
    """Every volume entry as {type, source, target, read_only}, short or long syntax."""
    out = []
    for entry in service.get("volumes", []):
        if isinstance(entry, dict):
            out.append({"type": entry.get("type", "volume"), "source": str(entry.get("source", "")),
                        "target": entry["target"], "read_only": bool(entry.get("read_only"))})
            continue
        # Short syntax SOURCE:TARGET[:MODE]; a ${VAR...} source may hold ':' only inside braces.
        parts = re.findall(r"(?:\$\{[^}]*\}|[^:])+", entry)
        source, target = parts[0], parts[1]
        modes = parts[2].split(",") if len(parts) > 2 else []
        # A path, or a variable that may hold one, is a bind mount; a plain name is a volume.
        bind = source.startswith(("/", ".", "~", "$"))
        out.append({"type": "bind" if bind else "volume", "source": source, "target": target,
                    "read_only": "ro" in modes})
    return out


def test_the_stack_has_its_services(services):
    assert {"redis", "api", "worker", "beat", "mcp"} <= set(services)
    assert set(_solograph_services(services)) >= {"api", "worker", "beat", "mcp"}


def test_every_host_bind_mount_is_read_only(services):
    binds = [(name, m) for name, s in services.items() for m in _mounts(s) if m["type"] == "bind"]
    assert {m["target"] for _, m in binds} >= {"/repos", "/claude-projects", "/kb"}
    for name, mount in binds:
        assert mount["read_only"], f"{name}: {mount['source']} -> {mount['target']} is writable"


def test_host_folders_come_from_their_variables(services):
    for name, service in _solograph_services(services).items():
        by_target = {m["target"]: m["source"] for m in _mounts(service)}
        assert by_target["/repos"].startswith("${SOLOGRAPH_REPOS"), name
        assert by_target["/claude-projects"].startswith("${CLAUDE_PROJECTS"), name
        assert by_target["/kb"].startswith("${SOLOGRAPH_KB"), name
        env = service["environment"]
        assert env["CODEGRAPH_SCAN_PATH"] == "/repos"
        assert env["CLAUDE_PROJECTS_PATH"] == "/claude-projects"
        assert env["KB_PATH"] == "/kb"


def test_the_data_volume_is_mounted_writable_everywhere(compose, services):
    assert DATA_VOLUME in compose["volumes"]
    for name, service in services.items():
        for mount in _mounts(service):
            if mount["source"] == DATA_VOLUME:
                assert not mount["read_only"], f"{name} mounts {DATA_VOLUME} read-only"
    for name, service in _solograph_services(services).items():
        data = [m for m in _mounts(service) if m["source"] == DATA_VOLUME]
        assert [m["target"] for m in data] == [DATA_DIR], name
        assert service["environment"]["SOLOGRAPH_HOME"] == DATA_DIR, name


def test_init_everywhere(services):
    for name, service in services.items():
        assert service.get("init") is True, name


def test_every_long_running_service_has_a_healthcheck(services):
    for name, service in services.items():
        if service.get("restart") in (None, "no"):
            continue  # a one-shot job, not a server
        check = service.get("healthcheck") or {}
        assert not check.get("disable"), name
        assert check.get("test"), f"{name} has no healthcheck"
    assert all("healthcheck" in services[n] for n in ("redis", "api", "worker", "beat", "mcp"))


def test_http_services_probe_their_health_endpoint(services):
    for name, port_var in (("api", "SOLOGRAPH_API_PORT"), ("mcp", "SOLOGRAPH_MCP_PORT")):
        probe = " ".join(services[name]["healthcheck"]["test"])
        assert "/health" in probe and port_var in probe, name


def test_depends_on_waits_for_health(services):
    for name, service in services.items():
        deps = service.get("depends_on", {})
        assert isinstance(deps, dict), f"{name}: depends_on must use conditions"
        for dep, spec in deps.items():
            assert spec.get("condition") == "service_healthy", f"{name} -> {dep}"
    for name in _solograph_services(services):
        assert "redis" in services[name]["depends_on"], name


def test_ports_publish_on_the_publish_address_only(services):
    published = 0
    for name, service in services.items():
        for port in service.get("ports", []):
            published += 1
            if isinstance(port, dict):
                assert port.get("host_ip") == PUBLISH, f"{name}: {port}"
            else:
                assert str(port).startswith(PUBLISH + ":"), f"{name}: {port}"
        if "ports" in service:
            assert service["environment"]["SOLOGRAPH_PUBLISHED_HOST"] == PUBLISH, name
    assert published >= 2
    assert "ports" not in services["redis"]


def test_services_know_where_they_are_published(services):
    for name, service in _solograph_services(services).items():
        env = service["environment"]
        assert env["SOLOGRAPH_PUBLISHED_HOST"] == PUBLISH, name
        assert env["SOLOGRAPH_TOKEN"] == "${SOLOGRAPH_TOKEN:-}", name
        allowed = set(env["SOLOGRAPH_ALLOWED_HOSTS"].split(","))
        assert {"api", "mcp"} <= allowed, name


def test_exactly_one_beat(services):
    beats = [n for n, s in services.items() if "beat" in (s.get("command") or [])[:1]]
    assert beats == ["beat"]
    beat = services["beat"]
    assert (beat.get("deploy") or {}).get("replicas", 1) == 1
    assert beat.get("scale", 1) == 1


def test_solograph_services_run_as_the_host_user(services):
    for name, service in _solograph_services(services).items():
        assert service.get("user") == USER, name


def test_one_image_built_once_and_never_pulled(services):
    mine = _solograph_services(services)
    search = mine.pop("search")  # the sources API has its own slim image (Dockerfile.search)
    assert search["image"] == "solograph-search:latest"
    assert search["build"]["dockerfile"] == "Dockerfile.search"
    assert search.get("pull_policy") == "never"
    assert {s["image"] for s in mine.values()} == {"solograph:latest"}
    assert [n for n, s in mine.items() if "build" in s] == ["api"]
    for name, service in mine.items():
        assert service.get("pull_policy") == "never", name


@pytest.mark.parametrize("dockerfile", ["Dockerfile", "Dockerfile.search"])
def test_dockerfile_takes_its_base_as_an_argument(dockerfile):
    lines = [ln.strip() for ln in (ROOT / dockerfile).read_text(encoding="utf-8").splitlines()]
    arg = lines.index("ARG BASE=python:3.12-slim")
    froms = [i for i, ln in enumerate(lines) if ln.upper().startswith("FROM ")]
    assert froms and lines[froms[0]] == "FROM ${BASE}" and arg < froms[0]
    # The test engine has no BuildKit.
    assert not any(ln.lower().startswith("# syntax=") for ln in lines)
    assert not any("--mount" in ln for ln in lines if ln.upper().startswith("RUN"))


def test_dockerignore_keeps_local_state_out():
    ignored = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
    assert {".git", ".venv", ".env", "bench/.work", "evals/.corpus"} <= ignored


def test_env_example_documents_every_variable(compose):
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{(\w+)", text))
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^(\w+)=", example, flags=re.M))
    assert used - documented == set()


def test_the_test_override_stays_on_loopback(services):
    override = _load("compose.test.yml")["services"]
    assert set(override) == set(services)
    for name, service in override.items():
        assert service.get("network_mode") == "host", name
        assert not service.get("ports"), name  # `!reset []`
    for name in _solograph_services(services):
        env = override[name]["environment"]
        assert env["SOLOGRAPH_HOST"] == "127.0.0.1", name
        assert env["SOLOGRAPH_REDIS_URL"].startswith("redis://127.0.0.1:"), name
        for mount in override[name]["volumes"]:
            assert mount["read_only"] is True, name
    assert override["api"]["build"]["args"]["BASE"] == "solograph-base:test"
    assert "--bind" in override["redis"]["command"]


def test_the_image_names_the_gid_the_services_run_as(services):
    """Celery takes a gid missing from /etc/group for root's and warns "running with superuser
    privileges": the one build passes SOLOGRAPH_GID and the Dockerfile gives it a group."""
    assert services["api"]["build"]["args"]["SOLOGRAPH_GID"] == "${SOLOGRAPH_GID:-1000}"
    assert USER.endswith(":${SOLOGRAPH_GID:-1000}")
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "ARG SOLOGRAPH_GID=1000" in dockerfile
    assert re.search(r'getent group "\$SOLOGRAPH_GID" .*\|\| groupadd --gid "\$SOLOGRAPH_GID"',
                     dockerfile)
    override = _load("compose.test.yml")["services"]["api"]["build"]["args"]
    assert override["SOLOGRAPH_GID"] == "${SOLOGRAPH_TEST_GID:-0}"
