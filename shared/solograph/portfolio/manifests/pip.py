"""pip: PEP 508 requirements in pyproject.toml (PEP 621, dependency groups, Poetry, uv, PDM),
setup.cfg and requirements files."""

from __future__ import annotations

import configparser
import re

from solograph.portfolio.manifests.model import DEV_GROUPS, Package, normalize_name
from solograph.portfolio.manifests.tolerant import get_typed, source_spec, type_name
from solograph.text.secrets import redact_cut

_PEP508_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*")
_CLAUSE = r"(?:~=|===|==|!=|<=|>=|<|>)[^,;\s]+"
_SPEC_RE = re.compile(rf"{_CLAUSE}(?:,{_CLAUSE})*")
_ARCHIVES = (".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".egg")


def _pep508(text: str) -> tuple[str, str] | None:
    """(normalized name, spec) of a PEP 508 requirement; extras and markers are dropped."""
    m = _PEP508_NAME.match(text)
    if not m or m.group(1).lower().endswith(_ARCHIVES):
        return None
    rest = text[m.end():]
    if rest.startswith("@"):
        url = rest[1:].split()
        return (normalize_name("pip", m.group(1)), f"url:{url[0]}") if url else None
    rest = rest.split(";", 1)[0].strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    spec = re.sub(r"\s+", "", rest)
    if spec and not _SPEC_RE.fullmatch(spec):
        return None
    return normalize_name("pip", m.group(1)), spec


def _add_pep508(out: list[Package], reqs: list, dev: bool, where: str,
                problems: list[str]) -> None:
    for req in reqs:
        if not isinstance(req, str):
            problems.append(f"{where}: expected string, got {type_name(req)}")
            continue
        parsed = _pep508(req)
        if parsed is None:
            problems.append(f"{where}: cannot parse requirement {redact_cut(req, 80)!r}")
        else:
            out.append(Package("pip", parsed[0], parsed[1], dev))


def parse_pyproject(data: dict, problems: list[str]) -> list[Package]:
    out: list[Package] = []
    project = get_typed(data, "project", dict, "project", problems)
    deps = get_typed(project, "dependencies", list, "project.dependencies", problems)
    _add_pep508(out, deps, False, "project.dependencies", problems)
    where = "project.optional-dependencies"
    for extra, reqs in get_typed(project, "optional-dependencies", dict, where, problems).items():
        dev = normalize_name("pip", extra) in DEV_GROUPS
        if isinstance(reqs, list):
            _add_pep508(out, reqs, dev, f"{where}.{extra}", problems)
        else:
            problems.append(f"{where}.{extra}: expected list, got {type_name(reqs)}")
    for group, items in get_typed(data, "dependency-groups", dict, "dependency-groups",
                                  problems).items():
        if not isinstance(items, list):
            problems.append(f"dependency-groups.{group}: expected list, got {type_name(items)}")
            continue
        # {include-group = "..."} tables only point at another group, read on its own.
        reqs = [i for i in items if not (isinstance(i, dict) and "include-group" in i)]
        _add_pep508(out, reqs, True, f"dependency-groups.{group}", problems)
    tool = get_typed(data, "tool", dict, "tool", problems)
    poetry = get_typed(tool, "poetry", dict, "tool.poetry", problems)
    _poetry_table(out, poetry, "dependencies", False, "tool.poetry", problems)
    _poetry_table(out, poetry, "dev-dependencies", True, "tool.poetry", problems)
    for group, body in get_typed(poetry, "group", dict, "tool.poetry.group", problems).items():
        if isinstance(body, dict):
            _poetry_table(out, body, "dependencies", True, f"tool.poetry.group.{group}", problems)
        else:
            problems.append(f"tool.poetry.group.{group}: expected mapping, got {type_name(body)}")
    uv = get_typed(tool, "uv", dict, "tool.uv", problems)
    where = "tool.uv.dev-dependencies"
    uv_dev = get_typed(uv, "dev-dependencies", list, where, problems)
    _add_pep508(out, uv_dev, True, where, problems)
    pdm = get_typed(tool, "pdm", dict, "tool.pdm", problems)
    where = "tool.pdm.dev-dependencies"
    for group, reqs in get_typed(pdm, "dev-dependencies", dict, where, problems).items():
        if isinstance(reqs, list):
            _add_pep508(out, reqs, True, f"{where}.{group}", problems)
        else:
            problems.append(f"{where}.{group}: expected list, got {type_name(reqs)}")
    return out


def _poetry_table(out: list[Package], parent: dict, key: str, dev: bool, where: str,
                  problems: list[str]) -> None:
    where = f"{where}.{key}"
    for name, value in get_typed(parent, key, dict, where, problems).items():
        if name.lower() == "python":
            continue
        if isinstance(value, list):  # multiple constraints, one per Python or platform
            value = value[0] if value else ""
        spec = source_spec(value, version_key="version")
        if spec is None:
            problems.append(f"{where}.{name}: unexpected {type_name(value)}")
        else:
            out.append(Package("pip", normalize_name("pip", name), spec, dev))


def parse_setup_cfg(text: str, problems: list[str]) -> list[Package]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.ParsingError as exc:  # raised at the end: what parsed is kept
        problems.append(f"invalid setup.cfg: {str(exc).splitlines()[0]}")
    except configparser.Error as exc:
        problems.append(f"invalid setup.cfg: {str(exc).splitlines()[0]}")
        return []
    out: list[Package] = []
    fields = [("options", "install_requires", False), ("options", "tests_require", True),
              ("options", "setup_requires", True)]
    if parser.has_section("options.extras_require"):
        fields += [("options.extras_require", extra, normalize_name("pip", extra) in DEV_GROUPS)
                   for extra in parser.options("options.extras_require")]
    for section, key, dev in fields:
        lines = parser.get(section, key, fallback="").splitlines()
        reqs = [line for line in (re.sub(r"(^|\s)#.*", "", x).strip() for x in lines)
                if line and not line.startswith(("file:", "attr:"))]
        _add_pep508(out, reqs, dev, f"{section}.{key}", problems)
    return out


def requirements_dev(filename: str) -> bool:
    parts = filename.lower().replace("\\", "/").split("/")
    words = set(re.split(r"[-_.]+", parts[-1])) - {"requirements", "txt", "in"}
    if len(parts) > 1 and parts[-2] == "requirements":
        words.add(parts[-1].rsplit(".", 1)[0])
    return bool(words & DEV_GROUPS)


def parse_requirements(text: str, dev: bool, problems: list[str]) -> list[Package]:
    out: list[Package] = []
    lines = re.sub(r"\\\r?\n", " ", text).splitlines()
    for lineno, raw in enumerate(lines, 1):
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        editable = re.match(r"(?:-e|--editable)(?:\s*=\s*|\s+)?(\S.*)$", line)
        if editable:
            line = editable.group(1)
        elif not line or line.startswith("-"):  # -r, -c, --index-url and other options
            continue
        line = re.split(r"\s+--?[A-Za-z]", line, maxsplit=1)[0]  # --hash=… and friends
        egg = re.search(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if egg:
            target = line.split("#", 1)[0].strip()
            if target.startswith("git+"):
                spec = f"git:{target[4:]}"
            else:
                spec = f"url:{target}" if "://" in target else f"path:{target}"
            out.append(Package("pip", normalize_name("pip", egg.group(1)), spec, dev))
            continue
        parsed = None if editable else _pep508(line)
        if parsed is not None:
            out.append(Package("pip", parsed[0], parsed[1], dev))
        elif not (editable or "://" in line or "/" in line or "\\" in line
                  or line.startswith(".") or line.lower().endswith(_ARCHIVES)):
            problems.append(f"line {lineno}: cannot parse requirement {redact_cut(line, 80)!r}")
    return out
