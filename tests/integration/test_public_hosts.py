"""Beyond loopback, for a stack published on all addresses: the Host names and addresses it is
published under (SOLOGRAPH_PUBLIC_HOSTS, by default the machine's own) are accepted, any other
is refused with 421; `/health` asked from beyond loopback without the token says only up or
down, with the token (or from loopback) everything.

Before, with a token set and a bind on 0.0.0.0, a request naming the machine's LAN address was
refused with 421, and /health showed store state and worker names to anyone. TestClient for
the three apps' guard (its client address is not loopback); a real `solograph api` on 0.0.0.0
reached through this machine's own non-loopback address."""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from solograph.config import Settings
from solograph_services.api.app import create_app
from solograph_services.common.security import allowed_host_names, machine_addresses
from solograph_services.mcp.server import http_app
from solograph_services.search.app import create_app as create_search_app
from tests.support import procs

TOKEN = "public-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LAN = "192.168.1.23"


def published(tmp_path: Path, **fields) -> Settings:
    return Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects",
                    host="0.0.0.0", token=TOKEN, **fields)


def apps(settings: Settings) -> dict:
    return {"api": create_app(settings), "mcp": http_app(settings),
            "search": create_search_app(settings)}


@pytest.mark.parametrize("which", ["api", "mcp", "search"])
def test_the_address_it_is_published_on_is_accepted_and_a_foreign_one_refused(
        tmp_path: Path, which: str):
    settings = published(tmp_path, public_hosts=(LAN, "solo.lan"))
    with TestClient(apps(settings)[which], base_url=f"http://{LAN}:8765") as c:
        up = c.get("/health", headers=AUTH)
        assert up.status_code in (200, 503), up.text
        for host in (f"{LAN}:8765", "solo.lan", "SOLO.LAN:8765", "127.0.0.1:8765"):
            assert c.get("/health", headers={**AUTH, "Host": host}).status_code != 421, host
        for host in ("192.168.1.24:8765", "evil.example", "0.0.0.0:8765", "solo.lan.evil"):
            refused = c.get("/health", headers={**AUTH, "Host": host})
            assert refused.status_code == 421, host
            assert refused.json()["error"] == "bad_host"


def test_by_default_the_machines_own_names_and_addresses_are_accepted(tmp_path: Path):
    own = machine_addresses()
    assert socket.gethostname() in own
    names = allowed_host_names(published(tmp_path))
    assert socket.gethostname().lower() in names
    assert {a if ":" not in a else f"[{a}]" for a in own} <= names | {a.upper() for a in own}
    # Told where it is published, it accepts those and not the machine's guesses.
    told = allowed_host_names(published(tmp_path, public_hosts=(LAN,)))
    assert LAN in told and socket.gethostname().lower() not in told - {"localhost"}
    # On loopback nothing changes: only loopback names and what was listed.
    loopback = allowed_host_names(Settings(home=tmp_path, host="127.0.0.1"))
    assert socket.gethostname().lower() not in loopback - {"localhost", "127.0.0.1"}


@pytest.mark.parametrize("which", ["api", "mcp", "search"])
def test_health_beyond_loopback_without_the_token_says_only_up_or_down(
        tmp_path: Path, which: str):
    settings = published(tmp_path, public_hosts=(LAN,))
    with TestClient(apps(settings)[which], base_url=f"http://{LAN}:8765") as c:
        full = c.get("/health", headers=AUTH)
        bare = c.get("/health")
        assert bare.status_code == full.status_code
        assert bare.json() == {"status": "up" if full.status_code == 200 else "down"}
        assert len(full.json()) > 1  # the token shows everything
        assert int(bare.headers["content-length"]) == len(bare.content)
    with TestClient(apps(settings)[which], base_url=f"http://{LAN}:8765",
                    client=("127.0.0.1", 50000)) as c:
        assert len(c.get("/health").json()) > 1  # from loopback, everything


def _lan_address() -> str | None:
    for address in sorted(machine_addresses()):
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            continue
        if ip.version == 4 and not ip.is_loopback:
            return address
    return None


@pytest.mark.integration
def test_a_real_api_on_all_addresses_answers_by_the_machines_own_address(tmp_path: Path):
    lan = _lan_address()
    if lan is None:
        pytest.skip("this machine has no IPv4 address beyond loopback")
    port = procs.free_port()
    env = {"SOLOGRAPH_HOME": str(tmp_path / "home"), "SOLOGRAPH_HOST": "0.0.0.0",
           "SOLOGRAPH_TOKEN": TOKEN, "SOLOGRAPH_PUBLISHED_HOST": "", "SOLOGRAPH_PUBLIC_HOSTS": "",
           "CLAUDE_PROJECTS_PATH": str(tmp_path / "projects"), "KB_PATH": "",
           "SOLOGRAPH_REDIS_URL": ""}
    with procs.process(procs.solograph_cmd("api", "--port", str(port)), env=env,
                       log=tmp_path / "api.log") as proc:
        procs.wait_for_port(port, proc=proc)

        def get(host_header: str, auth: bool) -> tuple[int, dict]:
            headers = {"Host": host_header, **(AUTH if auth else {})}
            request = urllib.request.Request(f"http://{lan}:{port}/health", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read())

        code, bare = get(f"{lan}:{port}", auth=False)
        assert code in (200, 503) and set(bare) == {"status"}, bare
        code, full = get(f"{lan}:{port}", auth=True)
        assert "stores" in full, full
        code, name = get(f"{socket.gethostname()}:{port}", auth=True)
        assert code != 421, name
        assert get(f"203.0.113.9:{port}", auth=True)[0] == 421
