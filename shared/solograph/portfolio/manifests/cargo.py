"""Cargo: dependencies of Cargo.toml, its workspace table and its per-target tables."""

from __future__ import annotations

from solograph.portfolio.manifests.model import Package
from solograph.portfolio.manifests.tolerant import get_typed, source_spec, type_name

_CARGO_SECTIONS = (("dependencies", False), ("dev-dependencies", True),
                   ("dev_dependencies", True), ("build-dependencies", True),
                   ("build_dependencies", True))


def parse_cargo(data: dict, problems: list[str]) -> list[Package]:
    out: list[Package] = []
    # The workspace table first: a member's `{ workspace = true }` then adds nothing new.
    workspace = get_typed(data, "workspace", dict, "workspace", problems)
    _cargo_table(out, workspace, "dependencies", False, "workspace", problems)
    for key, dev in _CARGO_SECTIONS:
        _cargo_table(out, data, key, dev, "", problems)
    for cfg, body in get_typed(data, "target", dict, "target", problems).items():
        if not isinstance(body, dict):
            problems.append(f"target.{cfg}: expected mapping, got {type_name(body)}")
            continue
        for key, dev in _CARGO_SECTIONS:
            _cargo_table(out, body, key, dev, f"target.{cfg}", problems)
    return out


def _cargo_table(out: list[Package], parent: dict, key: str, dev: bool, where: str,
                 problems: list[str]) -> None:
    where = f"{where}.{key}" if where else key
    for name, value in get_typed(parent, key, dict, where, problems).items():
        spec = source_spec(value, version_key="version")
        if spec is None:
            problems.append(f"{where}.{name}: unexpected {type_name(value)}")
            continue
        real = value.get("package") if isinstance(value, dict) else None
        name = real if isinstance(real, str) else name
        out.append(Package("cargo", name.strip(), spec, dev))
