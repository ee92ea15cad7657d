"""Dependencies a project declares in its package manifests: npm, pip, SPM, Gradle and Cargo.

`parse_manifest` never raises. Broken JSON or TOML, wrong types, binary or huge files give
whatever could still be read plus one message naming the problems; `parse_manifest_strict`
is the variant that raises `ManifestError`. Swift and Gradle build scripts are programs, so
they are read with patterns, not parsers: good enough for the declarations people write.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

MAX_CHARS = 1_000_000
# Extras, groups and requirement file names that mean "only while developing".
DEV_GROUPS = frozenset({
    "dev", "develop", "development", "test", "tests", "testing", "lint", "linting",
    "docs", "doc", "typing",
})


@dataclass(frozen=True, slots=True)
class Package:
    manager: str  # "npm" | "pip" | "spm" | "gradle" | "cargo"
    name: str  # normalized, see normalize_name
    spec: str  # version constraint as written, "" when none, or "path:…", "git:…", "url:…"
    dev: bool  # dev, test or build-only dependency


class ManifestError(ValueError):
    """A manifest that could not be read completely; `packages` holds what could."""

    def __init__(self, message: str, packages: list[Package] | None = None) -> None:
        super().__init__(message)
        self.packages = packages or []


def normalize_name(manager: str, name: str) -> str:
    """The form stored in Package.name; use it on queries too (`Flask_SQLAlchemy` -> pip)."""
    name = name.strip()
    if manager == "pip":
        return re.sub(r"[-_.]+", "-", name).lower()
    return name


def manifest_kind(filename: str) -> str | None:
    """The package manager a manifest file belongs to, from its name alone."""
    parts = filename.replace("\\", "/").rstrip("/").split("/")
    name = parts[-1].lower()
    parent = parts[-2].lower() if len(parts) > 1 else ""
    if name == "package.json":
        return "npm"
    if name in ("pyproject.toml", "setup.cfg"):
        return "pip"
    if re.fullmatch(r"[\w.-]*requirements[\w.-]*\.(?:txt|in)", name) or (
            parent == "requirements" and name.endswith((".txt", ".in"))):
        return "pip"
    if name == "package.swift":
        return "spm"
    if name in ("build.gradle", "build.gradle.kts"):
        return "gradle"
    if name == "cargo.toml":
        return "cargo"
    return None


def parse_manifest(filename: str, text: str | bytes) -> tuple[list[Package], str | None]:
    """Packages declared in one manifest, and a message when part of it could not be read."""
    problems: list[str] = []
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            text = text.decode("utf-8", errors="replace")
            problems.append("invalid UTF-8, undecodable bytes replaced")
    if not isinstance(text, str):
        return [], f"expected text, got {type(text).__name__}"
    kind = manifest_kind(filename)
    if kind is None:
        return [], f"not a known manifest: {filename}"
    if "\x00" in text:
        return [], "binary content (NUL bytes), not a manifest"
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return [], "empty file"
    if len(text) > MAX_CHARS:
        cut = text.rfind("\n", 0, MAX_CHARS)
        problems.append(f"file too large ({len(text)} chars), read the first {MAX_CHARS}")
        text = text[:cut if cut > 0 else MAX_CHARS]
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if kind == "npm":
        found = _npm(text, problems)
    elif kind == "cargo":
        found = _cargo(_load_toml(text, problems), problems)
    elif kind == "spm":
        found = _spm(text)
    elif kind == "gradle":
        found = _gradle(text)
    elif name == "pyproject.toml":
        found = _pyproject(_load_toml(text, problems), problems)
    elif name == "setup.cfg":
        found = _setup_cfg(text, problems)
    else:
        found = _requirements(text, _requirements_dev(filename), problems)
    return _dedupe(found), _summary(problems)


def parse_manifest_strict(filename: str, text: str | bytes) -> list[Package]:
    """Like parse_manifest, but raises ManifestError (carrying the partial result) on a problem."""
    packages, error = parse_manifest(filename, text)
    if error is not None:
        raise ManifestError(error, packages)
    return packages


def _summary(problems: list[str]) -> str | None:
    if not problems:
        return None
    message = "; ".join(problems[:5])
    if len(problems) > 5:
        message += f"; and {len(problems) - 5} more problems"
    return message


def _dedupe(packages: list[Package]) -> list[Package]:
    """One entry per name, in first-seen order; a runtime entry wins over a dev one."""
    seen: dict[str, int] = {}
    out: list[Package] = []
    for p in packages:
        if not p.name:
            continue
        i = seen.get(p.name)
        if i is None:
            seen[p.name] = len(out)
            out.append(p)
        elif out[i].dev and not p.dev:
            out[i] = p
    return out


def _type_name(value: object) -> str:
    return {dict: "mapping", list: "list", str: "string"}.get(type(value), type(value).__name__)


def _get(table: dict, key: str, expected: type, where: str, problems: list[str]) -> Any:
    """table[key] when it has the expected type, else an empty one (and a problem if present)."""
    value = table.get(key)
    if value is None:
        return expected()
    if not isinstance(value, expected):
        problems.append(f"{where}: expected {_type_name(expected())}, got {_type_name(value)}")
        return expected()
    return value


# npm ----------------------------------------------------------------------------------------

_NPM_SECTIONS = (("dependencies", False), ("peerDependencies", False),
                 ("optionalDependencies", False), ("devDependencies", True))
_JSON_STR = r'"((?:[^"\\\n]|\\.)*)"'
_NPM_SECTION_RE = re.compile(r'"(' + "|".join(s for s, _ in _NPM_SECTIONS) + r')"\s*:\s*\{([^{}]*)')
_JSON_PAIR_RE = re.compile(_JSON_STR + r"\s*:\s*" + _JSON_STR)


def _npm(text: str, problems: list[str]) -> list[Package]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        problems.append(f"invalid JSON: {exc}")
        return _npm_salvage(text)
    if not isinstance(data, dict):
        problems.append(f"expected a JSON object, got {_type_name(data)}")
        return []
    out = []
    for section, dev in _NPM_SECTIONS:
        for name, spec in _get(data, section, dict, section, problems).items():
            if not isinstance(spec, str):
                problems.append(f"{section}.{name}: expected string, got {_type_name(spec)}")
            else:
                out.append(Package("npm", name.strip(), spec.strip(), dev))
    return out


def _npm_salvage(text: str) -> list[Package]:
    """Dependency sections of a broken package.json, read as patterns up to the first brace."""
    found: list[tuple[int, Package]] = []
    for order, (section, dev) in enumerate(_NPM_SECTIONS):
        for m in _NPM_SECTION_RE.finditer(text):
            if m.group(1) != section:
                continue
            for pair in _JSON_PAIR_RE.finditer(m.group(2)):
                name, spec = pair.group(1).strip(), pair.group(2).strip()
                found.append((order, Package("npm", name, spec, dev)))
    return [p for _, p in sorted(found, key=lambda item: item[0])]


# TOML ---------------------------------------------------------------------------------------

_TOML_ERROR_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def _load_toml(text: str, problems: list[str]) -> dict:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        problems.append(f"invalid TOML: {exc}")
    # Salvage table by table, so a typo under [tool.black] keeps [project] readable.
    merged: dict = {}
    chunks = re.split(r"\n(?=\[)", "\n" + text)
    for chunk in chunks:
        data = _load_toml_chunk(chunk)
        if data:
            _merge(merged, data)
    return merged


def _load_toml_chunk(chunk: str) -> dict | None:
    lines = chunk.split("\n")
    for _ in range(8):
        try:
            return tomllib.loads("\n".join(lines))
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            m = _TOML_ERROR_LINE.search(str(exc))
            bad = int(m.group(1)) - 1 if m else -1
            # A broken header would move its keys to another table: drop the whole table.
            if bad < 0 or bad >= len(lines) or lines[bad].lstrip().startswith("["):
                return None
            del lines[bad]
    return None


def _merge(into: dict, data: dict) -> None:
    for key, value in data.items():
        old = into.get(key)
        if old is None:
            into[key] = value
        elif isinstance(old, dict) and isinstance(value, dict):
            _merge(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            old.extend(value)


# pip ----------------------------------------------------------------------------------------

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
            problems.append(f"{where}: expected string, got {_type_name(req)}")
            continue
        parsed = _pep508(req)
        if parsed is None:
            problems.append(f"{where}: cannot parse requirement {req[:80]!r}")
        else:
            out.append(Package("pip", parsed[0], parsed[1], dev))


def _pyproject(data: dict, problems: list[str]) -> list[Package]:
    out: list[Package] = []
    project = _get(data, "project", dict, "project", problems)
    deps = _get(project, "dependencies", list, "project.dependencies", problems)
    _add_pep508(out, deps, False, "project.dependencies", problems)
    where = "project.optional-dependencies"
    for extra, reqs in _get(project, "optional-dependencies", dict, where, problems).items():
        dev = normalize_name("pip", extra) in DEV_GROUPS
        if isinstance(reqs, list):
            _add_pep508(out, reqs, dev, f"{where}.{extra}", problems)
        else:
            problems.append(f"{where}.{extra}: expected list, got {_type_name(reqs)}")
    for group, items in _get(data, "dependency-groups", dict, "dependency-groups",
                             problems).items():
        if not isinstance(items, list):
            problems.append(f"dependency-groups.{group}: expected list, got {_type_name(items)}")
            continue
        # {include-group = "..."} tables only point at another group, read on its own.
        reqs = [i for i in items if not (isinstance(i, dict) and "include-group" in i)]
        _add_pep508(out, reqs, True, f"dependency-groups.{group}", problems)
    tool = _get(data, "tool", dict, "tool", problems)
    poetry = _get(tool, "poetry", dict, "tool.poetry", problems)
    _poetry_table(out, poetry, "dependencies", False, "tool.poetry", problems)
    _poetry_table(out, poetry, "dev-dependencies", True, "tool.poetry", problems)
    for group, body in _get(poetry, "group", dict, "tool.poetry.group", problems).items():
        if isinstance(body, dict):
            _poetry_table(out, body, "dependencies", True, f"tool.poetry.group.{group}", problems)
        else:
            problems.append(f"tool.poetry.group.{group}: expected mapping, got {_type_name(body)}")
    uv = _get(tool, "uv", dict, "tool.uv", problems)
    where = "tool.uv.dev-dependencies"
    _add_pep508(out, _get(uv, "dev-dependencies", list, where, problems), True, where, problems)
    pdm = _get(tool, "pdm", dict, "tool.pdm", problems)
    where = "tool.pdm.dev-dependencies"
    for group, reqs in _get(pdm, "dev-dependencies", dict, where, problems).items():
        if isinstance(reqs, list):
            _add_pep508(out, reqs, True, f"{where}.{group}", problems)
        else:
            problems.append(f"{where}.{group}: expected list, got {_type_name(reqs)}")
    return out


def _poetry_table(out: list[Package], parent: dict, key: str, dev: bool, where: str,
                  problems: list[str]) -> None:
    where = f"{where}.{key}"
    for name, value in _get(parent, key, dict, where, problems).items():
        if name.lower() == "python":
            continue
        if isinstance(value, list):  # multiple constraints, one per Python or platform
            value = value[0] if value else ""
        spec = _source_spec(value, version_key="version")
        if spec is None:
            problems.append(f"{where}.{name}: unexpected {_type_name(value)}")
        else:
            out.append(Package("pip", normalize_name("pip", name), spec, dev))


def _source_spec(value: object, *, version_key: str) -> str | None:
    """The spec of a Poetry or Cargo dependency value: a string, or a table naming a source."""
    if isinstance(value, str):
        return value.strip()
    if not isinstance(value, dict):
        return None
    if value.get("workspace") is True:
        return "workspace"
    for key in ("path", "git", "url"):
        if isinstance(value.get(key), str):
            return f"{key}:{value[key]}"
    version = value.get(version_key)
    return version.strip() if isinstance(version, str) else ""


def _setup_cfg(text: str, problems: list[str]) -> list[Package]:
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


def _requirements_dev(filename: str) -> bool:
    parts = filename.lower().replace("\\", "/").split("/")
    words = set(re.split(r"[-_.]+", parts[-1])) - {"requirements", "txt", "in"}
    if len(parts) > 1 and parts[-2] == "requirements":
        words.add(parts[-1].rsplit(".", 1)[0])
    return bool(words & DEV_GROUPS)


def _requirements(text: str, dev: bool, problems: list[str]) -> list[Package]:
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
            problems.append(f"line {lineno}: cannot parse requirement {line[:80]!r}")
    return out


# Cargo --------------------------------------------------------------------------------------

_CARGO_SECTIONS = (("dependencies", False), ("dev-dependencies", True),
                   ("dev_dependencies", True), ("build-dependencies", True),
                   ("build_dependencies", True))


def _cargo(data: dict, problems: list[str]) -> list[Package]:
    out: list[Package] = []
    # The workspace table first: a member's `{ workspace = true }` then adds nothing new.
    workspace = _get(data, "workspace", dict, "workspace", problems)
    _cargo_table(out, workspace, "dependencies", False, "workspace", problems)
    for key, dev in _CARGO_SECTIONS:
        _cargo_table(out, data, key, dev, "", problems)
    for cfg, body in _get(data, "target", dict, "target", problems).items():
        if not isinstance(body, dict):
            problems.append(f"target.{cfg}: expected mapping, got {_type_name(body)}")
            continue
        for key, dev in _CARGO_SECTIONS:
            _cargo_table(out, body, key, dev, f"target.{cfg}", problems)
    return out


def _cargo_table(out: list[Package], parent: dict, key: str, dev: bool, where: str,
                 problems: list[str]) -> None:
    where = f"{where}.{key}" if where else key
    for name, value in _get(parent, key, dict, where, problems).items():
        spec = _source_spec(value, version_key="version")
        if spec is None:
            problems.append(f"{where}.{name}: unexpected {_type_name(value)}")
            continue
        real = value.get("package") if isinstance(value, dict) else None
        name = real if isinstance(real, str) else name
        out.append(Package("cargo", name.strip(), spec, dev))


# Swift and Gradle: patterns over comment-free text --------------------------------------------

_STRING = r'"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'"
_COMMENT_OR_STRING = re.compile(rf"{_STRING}|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_MAX_CALL = 4096
_STATEMENT_END = re.compile(r"[\n;{}]")
_PAREN_TOKEN = re.compile(rf"{_STRING}|[()\[\],]")


def _strip_comments(text: str) -> str:
    def keep_strings(m: re.Match[str]) -> str:
        s = m.group()
        return s if s[0] in "\"'" else "\n" * s.count("\n") or " "
    return _COMMENT_OR_STRING.sub(keep_strings, text)


def _paren_pairs(text: str) -> dict[int, int]:
    """Offsets of every matched opening bracket to its closing one, strings skipped."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _PAREN_TOKEN.finditer(text):
        tok = m.group()
        if tok in "([":
            stack.append(m.start())
        elif tok in ")]" and stack:
            pairs[stack.pop()] = m.start()
    return pairs


def _split_args(args: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for m in _PAREN_TOKEN.finditer(args):
        tok = m.group()
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
        elif tok == "," and depth == 0:
            parts.append(args[start:m.start()])
            start = m.end()
    parts.append(args[start:])
    return [p.strip() for p in parts if p.strip()]


def _spm(text: str) -> list[Package]:
    text = _strip_comments(text)
    pairs = _paren_pairs(text)
    out: list[Package] = []
    call = re.compile(r"\.package\s*\(")
    pos = 0
    while m := call.search(text, pos):
        close = pairs.get(m.end() - 1)
        if close is None or close - m.end() > _MAX_CALL:
            pos = m.end()
            continue
        args, pos = text[m.end():close], close + 1
        labelled: dict[str, str] = {}
        rest: list[str] = []
        for part in _split_args(args):
            label = re.fullmatch(r'(name|url|path|id)\s*:\s*"([^"]*)"', part)
            if label:
                labelled[label.group(1)] = label.group(2).strip()
            else:
                rest.append(re.sub(r"\s+", " ", part.replace('"', "")))
        source = labelled.get("url") or labelled.get("path") or labelled.get("id")
        if not source:
            continue
        name = labelled.get("name") or (
            re.split(r"[/:]", source.rstrip("/"))[-1].removesuffix(".git"))
        spec = f"path:{labelled['path']}" if "path" in labelled else ", ".join(rest)
        out.append(Package("spm", name, spec, False))
    return out


_GRADLE_CONFIGS = frozenset({
    "implementation", "api", "compileOnly", "compileOnlyApi", "runtimeOnly", "kapt", "ksp",
    "annotationProcessor", "compile", "runtime", "classpath", "coreLibraryDesugaring",
})
_GRADLE_CONFIG_SUFFIX = re.compile(
    r"[a-z]\w*(?:Implementation|Api|CompileOnly|RuntimeOnly|AnnotationProcessor|Compile)"
    r"|(?:kapt|ksp)[A-Z]\w*")
_GRADLE_CALL = re.compile(r"(?<![\w.$])([a-z]\w*)(?:\s*(\()|[ \t]+(?=[\"'\w]))")
_COORDINATE = re.compile(r"([^:\s@/]+):([^:\s@]+)(?::([^:\s@]*))?(?::[^:\s@]*)?(?:@\w+)?")
_GRADLE_PATTERNS = (
    # (pattern, how a match becomes (name, spec))
    (re.compile(r"\bproject\s*\(\s*(?:path\s*[:=]\s*)?[\"']([^\"']+)[\"']"),
     lambda m: (m.group(1), "project")),
    (re.compile(r"(?<![\w.])(projects(?:\.\w+)+)"), lambda m: (m.group(1), "project")),
    (re.compile(r"\bkotlin\s*\(\s*\"([^\"]+)\"(?:\s*,\s*\"([^\"]*)\")?"),
     lambda m: (f"org.jetbrains.kotlin:kotlin-{m.group(1)}", m.group(2) or "")),
    (re.compile(r"(?<![\w.])(libs(?:\.(?!versions\b|plugins\b)\w+)+?)(?:\.get\(\))?(?![\w.])"),
     lambda m: (m.group(1), "catalog")),
)


def _gradle_dev(config: str) -> bool | None:
    """None when `config` is not a dependency configuration, else whether it is dev-only."""
    if config not in _GRADLE_CONFIGS and not _GRADLE_CONFIG_SUFFIX.fullmatch(config):
        return None
    lower = config.lower()
    return "test" in lower or "debug" in lower or config == "classpath"


def _gradle(text: str) -> list[Package]:
    text = _strip_comments(text)
    pairs = _paren_pairs(text)
    out: list[Package] = []
    pos = 0
    # Each declaration is read once and the scan resumes after it, which keeps it linear.
    while m := _GRADLE_CALL.search(text, pos):
        pos = m.end()
        dev = _gradle_dev(m.group(1))
        if dev is None:
            continue
        if m.group(2):
            close = pairs.get(m.end() - 1)
            if close is None or close - m.end() > _MAX_CALL:
                continue
            args, pos = text[m.end():close], close + 1
        else:  # Groovy without parentheses: up to the end of the statement or a closure
            end = _STATEMENT_END.search(text, m.end(), m.end() + _MAX_CALL)
            pos = end.start() if end else min(len(text), m.end() + _MAX_CALL)
            args = text[m.end():pos]
        out.extend(Package("gradle", name, spec, dev) for name, spec in _gradle_notations(args))
    return out


def _gradle_notations(args: str) -> list[tuple[str, str]]:
    def named(key: str) -> str:
        m = re.search(rf"\b{key}\s*[:=]\s*[\"']([^\"']*)[\"']", args)
        return m.group(1) if m else ""

    if named("group") and named("name"):
        return [(f"{named('group')}:{named('name')}", named("version"))]
    found: list[tuple[int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern, convert in _GRADLE_PATTERNS:
        for m in pattern.finditer(args):
            found.append((m.start(), *convert(m)))
            taken.append(m.span())
    for m in re.finditer(_STRING, args):
        coordinate = _COORDINATE.fullmatch(m.group()[1:-1])
        if coordinate and not any(a <= m.start() < b for a, b in taken):
            name = f"{coordinate.group(1)}:{coordinate.group(2)}"
            found.append((m.start(), name, coordinate.group(3) or ""))
    return [(name, spec) for _, name, spec in sorted(found)]
