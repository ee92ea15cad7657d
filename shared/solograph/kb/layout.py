"""A KB's layout, from `.solograph.yaml` at its root.

    kb:
      pages: wiki/                    # the wiki: [[links]], index.md, _aliases.yaml (default wiki/)
      stacks: 1-methodology/stacks    # YAML templates for "which stack for X?" (default none)
      exclude: [archive, clients/acme]  # a bare name anywhere, or a path from the root
      memory_gate: harness/memory-gate.json  # weights for the memory nudge (default none)
      language: en                    # the wiki's language: alias groups point to it (default:
                                      # read from the pages)
      inbox: 3-inbox/                 # notes waiting to be compacted (default 3-inbox/)
    scope: [my-app, other-app]        # the portfolio scan's (read by config.py)

An unknown key, or a value of the wrong shape, is an error that names it: a typo must never
fall back to a default in silence. PyYAML is imported only when the file has to be parsed, so
the hook, which reuses the parsed layout cached in the index, never pays for it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path, PurePosixPath

from solograph.config import CONFIG_FILE
from solograph.errors import ConfigError
from solograph.frozen import Frozen

TOP_LEVEL = ("kb", "scope")
KB_KEYS = ("pages", "stacks", "exclude", "memory_gate", "language", "inbox")
DEFAULT_PAGES = "wiki"
DEFAULT_INBOX = "3-inbox"


class Layout(Frozen):
    pages: str = DEFAULT_PAGES  # relative to the root, '/' separated, no trailing '/'; '' = all
    stacks: str = ""
    exclude: tuple[str, ...] = ()
    memory_gate: str = ""
    language: str = ""  # a language code, lowercase ('en', 'ru', 'pt-br'); '' = read the pages
    inbox: str = DEFAULT_INBOX

    @property
    def pages_prefix(self) -> str:
        """'wiki/' (or '' when the whole KB is the wiki): what page paths start with."""
        return f"{self.pages}/" if self.pages else ""

    def in_pages(self, rel: str) -> bool:
        return rel.startswith(self.pages_prefix)

    def excluded(self, rel: str) -> bool:
        """True when a KB-relative path is excluded: a bare name matches any component, a path
        with '/' matches from the root."""
        parts = rel.split("/")
        for rule in self.exclude:
            if "/" in rule:
                if rel == rule or rel.startswith(rule + "/"):
                    return True
            elif rule in parts:
                return True
        return False

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Layout:
        data = json.loads(text)
        return cls(pages=data["pages"], stacks=data["stacks"], exclude=tuple(data["exclude"]),
                   memory_gate=data["memory_gate"], language=data.get("language", ""),
                   inbox=data.get("inbox", DEFAULT_INBOX))


def missing_folders(root: Path, layout: Layout) -> list[str]:
    """What the layout points at and the folder lacks, as warnings: a KB with no wiki folder
    answers `--pages`, the graph and the hint with nothing, which must not pass for an empty
    wiki."""
    if layout.pages and not (root / layout.pages).is_dir():
        return [f"the KB at {root} has no {layout.pages}/ folder, so the wiki (--pages, "
                f"kb-graph, the prompt hint) is empty: set `kb: pages:` in its {CONFIG_FILE} "
                "to the folder of your linked pages, or `pages: .` for the whole KB"]
    return []


def config_stat(root: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of the root's .solograph.yaml, or None when it has none."""
    try:
        st = os.stat(root / CONFIG_FILE)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def load_layout(root: Path) -> Layout:
    """The layout stated in root/.solograph.yaml, the defaults when there is none."""
    path = root / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return Layout()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    return parse_layout(text, str(path))


def parse_layout(text: str, where: str = CONFIG_FILE) -> Layout:
    import yaml  # only here: the hook reuses the layout cached in the index

    from solograph import bounded_yaml

    try:
        data = bounded_yaml.load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: invalid YAML: {exc}") from None
    if data is None:
        return Layout()
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping at the top level "
                          f"({', '.join(k + ':' for k in TOP_LEVEL)})")
    _check_keys(data, TOP_LEVEL, where, "")
    section = data.get("kb")
    if section is None:
        return Layout()
    if not isinstance(section, dict):
        raise ConfigError(f"{where}: `kb:` must be a mapping of {', '.join(KB_KEYS)}")
    _check_keys(section, KB_KEYS, where, "kb.")
    return Layout(
        pages=_folder(section.get("pages", DEFAULT_PAGES), where, "pages", allow_root=True),
        stacks=_folder(section.get("stacks"), where, "stacks") if section.get("stacks") else "",
        exclude=_exclude(section.get("exclude"), where),
        memory_gate=(_folder(section.get("memory_gate"), where, "memory_gate")
                     if section.get("memory_gate") else ""),
        language=_language(section.get("language"), where),
        inbox=_folder(section.get("inbox", DEFAULT_INBOX), where, "inbox"),
    )


def _check_keys(data: dict, known: tuple[str, ...], where: str, prefix: str) -> None:
    import difflib

    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.5)
            guess = f" (did you mean `{prefix}{close[0]}`?)" if close else ""
            raise ConfigError(f"{where}: unknown key `{prefix}{str(key)[:80]}`{guess}",
                              hint=f"known keys: {', '.join(prefix + k for k in known)}")


def _folder(value: object, where: str, key: str, *, allow_root: bool = False) -> str:
    if not isinstance(value, str) or (not value.strip() and not allow_root):
        raise ConfigError(f"{where}: `kb.{key}` must be a path inside the KB, "
                          f"got {_short(value)}")
    raw = value.strip().replace("\\", "/")
    pure = PurePosixPath(raw)
    if pure.is_absolute() or ".." in pure.parts:
        raise ConfigError(f"{where}: `kb.{key}` must be a path inside the KB, "
                          f"got {_short(value)}")
    parts = [p for p in pure.parts if p not in (".", "")]
    return "/".join(parts)


_LANGUAGE = re.compile(r"^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?$")


def _language(value: object, where: str) -> str:
    if value is None:
        return ""
    code = value.strip().lower() if isinstance(value, str) else ""
    if not _LANGUAGE.match(code):
        raise ConfigError(f"{where}: `kb.language` must be a language code such as en or ru, "
                          f"got {value!r}")
    return code


def _exclude(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: `kb.exclude` must be a list of names or paths, "
                          f"got {_short(value)}")
    return tuple(_folder(v, where, "exclude") for v in value)


def _short(value: object) -> str:
    """A value as an error message quotes it: bounded, whatever YAML built (aliases can make a
    list whose full repr is gigabytes)."""
    import reprlib

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, 80, 80
    return short.repr(value)
