"""One settings object, built at each entry point from the environment and `.solograph.yaml`.

The core never reads the environment itself: entry points call `Settings.from_env()` and pass
the result down.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from solograph.digest import sha256_hex
from solograph.errors import ConfigError
from solograph.frozen import Frozen

CONFIG_FILE = ".solograph.yaml"
PRIVATE_MARKERS = (".solograph-private", ".metadata_never_index")
# The agents whose sessions the index reads (sessions/agents/, one module each).
AGENT_NAMES = ("claude", "codex", "gemini", "cursor", "copilot", "opencode", "aider")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class Settings(Frozen):
    home: Path
    scan_paths: tuple[Path, ...] = ()
    # Projects a scan is limited to: SOLOGRAPH_SCOPE, else `scope:` of `scope_file` (read only
    # when a scan asks, through `scan_scope`: a search never pays for PyYAML).
    scope: tuple[str, ...] = ()
    scope_file: Path | None = None
    kb_path: Path | None = None
    claude_projects: Path | None = None
    # The agents whose sessions are read (SOLOGRAPH_AGENTS), and where each other agent's live
    # (sessions/agents/): an agent without a folder here is not read.
    agents: tuple[str, ...] = AGENT_NAMES
    agent_paths: tuple[tuple[str, Path], ...] = ()
    max_file_bytes: int = 1_000_000
    query_timeout_ms: int = 2_000
    # How long a search may spend reading changed files before it answers; the rest is read by
    # the next search, `solograph sync-sessions` / `index-kb`, or the worker.
    sync_budget_ms: int = 1_500
    redis_url: str = ""
    # How long a client of the broker (the API, `scan --queue`) waits on one broker call before
    # it answers that the broker is unavailable: a hung Redis must never hang a request.
    broker_timeout_ms: int = 2_000
    # A worker silent this long is taken for dead: its started jobs are failed, the ones it
    # held unstarted go back to their queue, and /health counts it out.
    worker_timeout_s: int = 60
    # Serving: loopback unless told otherwise; beyond loopback a token is required.
    host: str = "127.0.0.1"
    # Where clients reach the service from outside its container: compose binds 0.0.0.0
    # inside and publishes on 127.0.0.1, which is still loopback-only. Defaults to `host`.
    published_host: str = ""
    api_port: int = 8765
    mcp_port: int = 8766
    search_port: int = 8002
    token: str = ""
    allowed_hosts: tuple[str, ...] = ()
    # The names and addresses a server published on all addresses is reached by; empty: the
    # machine's own (the services work them out).
    public_hosts: tuple[str, ...] = ()
    # Origins (scheme://host[:port]) a browser page may call from, beyond the service's own.
    allowed_origins: tuple[str, ...] = ()
    nightly_hour: int = 4
    web_workers: int = 1
    max_results: int = 100
    # The sources index (search.db) and the search API for SearXNG. Refreshes are off until
    # channels or crawls are named.
    sources_root: Path | None = None
    search_token: str = ""
    search_rate: int = 20
    searxng_url: str = ""
    youtube_channels: tuple[str, ...] = ()
    subtitle_langs: tuple[str, ...] = ("en", "ru")
    crawls: tuple[str, ...] = ()
    # The meaning lane: auto (on when the `semantic` extra is installed), on, off. Read from
    # the environment it is `auto`; settings made in code (tests, evals, benches) are
    # lexical unless they ask for the lane.
    semantic: str = "off"
    # Without a broker, a read that finds texts waiting for vectors starts the detached
    # embedder (semantic/detach.py): `auto`; `off` leaves them to the write commands.
    embedder: str = "auto"

    def agent_path(self, name: str) -> Path | None:
        return dict(self.agent_paths).get(name) if name in self.agents else None

    @property
    def portfolio_db(self) -> Path:
        return self.home / "portfolio.db"

    @property
    def sources_db(self) -> Path:
        return (self.sources_root or self.home / "sources") / "search.db"

    @property
    def sessions_db(self) -> Path:
        return self.home / "sessions.db"

    @property
    def kb_db(self) -> Path:
        """The index of the KB at kb_path: under home, one file per KB folder (the KB itself
        may be read-only, and several KBs must never mix)."""
        if self.kb_path is None:
            raise ConfigError("no knowledge base: set KB_PATH to the folder of your notes")
        return kb_db_path(self.home, self.kb_path)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, cwd: Path | None = None,
                 lane_available: Callable[[], bool] | None = None) -> Settings:
        """`lane_available` says whether the meaning lane's extra is installed (the entry
        point passes `solograph.semantic.available`): asked only when SOLOGRAPH_SEMANTIC=on,
        which is a ConfigError without it."""
        env = os.environ if env is None else env
        cwd = cwd or _cwd()
        home = Path(env.get("SOLOGRAPH_HOME") or "~/.solo").expanduser()
        scan_paths = tuple(
            Path(p.strip()).expanduser() for p in env.get("CODEGRAPH_SCAN_PATH", "").split(",")
            if p.strip()
        )
        if not scan_paths:
            scan_paths = (Path("~/projects").expanduser(),)
        kb_raw = env.get("KB_PATH", "").strip()
        kb_path = Path(kb_raw).expanduser() if kb_raw else None
        scope = _split_scope(env.get("SOLOGRAPH_SCOPE", ""))
        claude = env.get("CLAUDE_PROJECTS_PATH", "").strip()
        agents = _split_list(env.get("SOLOGRAPH_AGENTS", "").lower()) or AGENT_NAMES
        unknown = sorted(set(agents) - set(AGENT_NAMES))
        if unknown:
            raise ConfigError(f"SOLOGRAPH_AGENTS names no agent {', '.join(unknown)}",
                              hint="choose from " + ",".join(AGENT_NAMES))
        return cls(
            home=home,
            scan_paths=scan_paths,
            scope=scope,
            scope_file=None if scope else (kb_path or cwd) / CONFIG_FILE,
            kb_path=kb_path,
            claude_projects=Path(claude).expanduser() if claude
            else Path("~/.claude/projects").expanduser(),
            agents=agents,
            agent_paths=_agent_paths(env, home),
            max_file_bytes=_int(env, "SOLOGRAPH_MAX_FILE_BYTES", 1_000_000),
            query_timeout_ms=_int(env, "SOLOGRAPH_QUERY_TIMEOUT_MS", 2_000),
            sync_budget_ms=_int(env, "SOLOGRAPH_SYNC_BUDGET_MS", 1_500),
            redis_url=env.get("SOLOGRAPH_REDIS_URL", "").strip(),
            broker_timeout_ms=_int(env, "SOLOGRAPH_BROKER_TIMEOUT_MS", 2_000),
            worker_timeout_s=_int(env, "SOLOGRAPH_WORKER_TIMEOUT_S", 60),
            host=env.get("SOLOGRAPH_HOST", "").strip() or "127.0.0.1",
            published_host=env.get("SOLOGRAPH_PUBLISHED_HOST", "").strip(),
            api_port=_int(env, "SOLOGRAPH_API_PORT", 8765),
            mcp_port=_int(env, "SOLOGRAPH_MCP_PORT", 8766),
            search_port=_int(env, "SOLOGRAPH_SEARCH_PORT", 8002),
            token=env.get("SOLOGRAPH_TOKEN", "").strip(),
            allowed_hosts=tuple(h.strip() for h in env.get("SOLOGRAPH_ALLOWED_HOSTS", "")
                                .split(",") if h.strip()),
            allowed_origins=_split_list(env.get("SOLOGRAPH_ALLOWED_ORIGINS", "")),
            public_hosts=_split_list(env.get("SOLOGRAPH_PUBLIC_HOSTS", "")),
            nightly_hour=_hour(env),
            web_workers=_int(env, "SOLOGRAPH_WEB_WORKERS", 1),
            max_results=_int(env, "SOLOGRAPH_MAX_RESULTS", 100),
            sources_root=_path(env, "SOURCES_ROOT"),
            search_token=env.get("SOLOGRAPH_SEARCH_TOKEN", "").strip(),
            search_rate=_int(env, "SOLOGRAPH_SEARCH_RATE", 20),
            searxng_url=env.get("SOLOGRAPH_SEARXNG_URL", "").strip().rstrip("/"),
            youtube_channels=_split_list(env.get("SOLOGRAPH_YOUTUBE_CHANNELS", "")),
            subtitle_langs=_split_list(env.get("SOLOGRAPH_SUBTITLE_LANGS", "")) or ("en", "ru"),
            crawls=_split_list(env.get("SOLOGRAPH_CRAWLS", "")),
            semantic=_semantic(env, lane_available),
            embedder=_choice(env, "SOLOGRAPH_EMBEDDER", ("auto", "off")),
        )

    def bind(self, host: str) -> Settings:
        """These settings listening on `host`, given on a command line: the published address
        described the configured bind, not this one, so it no longer counts."""
        return self.with_(host=host, published_host="")

    @property
    def scan_scope(self) -> tuple[str, ...]:
        """The projects a scan is limited to (empty: all of them)."""
        if self.scope or self.scope_file is None:
            return self.scope
        return _yaml_scope(self.scope_file)

    @property
    def loopback_only(self) -> bool:
        """Whether only this machine can reach the service, which is what decides if a token
        is needed. The bind address decides; the published address only stands in for the
        wildcard bind of a container whose ports are published there (compose listens on
        0.0.0.0 inside and publishes on 127.0.0.1). A specific address beyond loopback is
        reachable from beyond, whatever is published."""
        if self.host in LOOPBACK_HOSTS:
            return True
        return self.host in WILDCARD_HOSTS and self.published_host in LOOPBACK_HOSTS


def _agent_paths(env: Mapping[str, str], home: Path) -> tuple[tuple[str, Path], ...]:
    """Each agent's folder: SOLOGRAPH_<AGENT>_PATH (`off` turns that agent off), else the
    agent's own variable, else its default. aider has no folder: its histories are in the
    registered checkouts, found through the portfolio registry."""
    xdg = env.get("XDG_DATA_HOME", "").strip() or "~/.local/share"
    gemini = env.get("GEMINI_CLI_HOME", "").strip()
    defaults = {
        "codex": env.get("CODEX_HOME", "").strip() or "~/.codex",
        "gemini": f"{gemini}/.gemini" if gemini else "~/.gemini",
        "cursor": "~/.cursor",
        "copilot": env.get("COPILOT_HOME", "").strip() or "~/.copilot",
        "opencode": f"{xdg}/opencode",
        "aider": str(home / "portfolio.db"),
    }
    out = []
    for name, default in defaults.items():
        raw = env.get(f"SOLOGRAPH_{name.upper()}_PATH", "").strip()
        if raw.lower() == "off":
            continue
        out.append((name, Path(raw or default).expanduser()))
    return tuple(out)


def _cwd() -> Path:
    """The current folder; the home folder when it has been deleted (cron in a removed
    folder), where `.solograph.yaml` is looked for instead."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        return Path.home()


def _hour(env: Mapping[str, str]) -> int:
    raw = env.get("SOLOGRAPH_NIGHTLY_HOUR", "").strip() or "4"
    if not raw.isdigit() or not 0 <= int(raw) <= 23:
        raise ConfigError(f"SOLOGRAPH_NIGHTLY_HOUR must be an hour 0-23, got {raw!r}")
    return int(raw)


def _semantic(env: Mapping[str, str], lane_available: Callable[[], bool] | None) -> str:
    raw = _choice(env, "SOLOGRAPH_SEMANTIC", ("auto", "on", "off"))
    if raw == "on" and lane_available is not None and not lane_available():
        raise ConfigError("SOLOGRAPH_SEMANTIC=on, but the `semantic` extra is not "
                          "installed", hint="pip install 'solograph[semantic]', or set "
                                            "SOLOGRAPH_SEMANTIC=auto")
    return raw


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    """One of `choices` (the first when unset)."""
    raw = env.get(name, "").strip().lower() or choices[0]
    if raw not in choices:
        raise ConfigError(f"{name} must be {', '.join(choices[:-1])} or {choices[-1]}, "
                          f"got {raw!r}")
    return raw


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value


def _path(env: Mapping[str, str], name: str) -> Path | None:
    raw = env.get(name, "").strip()
    return Path(raw).expanduser() if raw else None


def _split_list(raw: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in raw.split(",") if w.strip())


def _split_scope(raw: str) -> tuple[str, ...]:
    return tuple(w for w in raw.replace(",", " ").split() if w)


def _yaml_scope(path: Path) -> tuple[str, ...]:
    """`scope:` from a `.solograph.yaml`: a list of project names or one space-separated string."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return ()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    import yaml  # only when there is a file to read: most commands never load PyYAML

    from solograph import bounded_yaml

    try:
        data = bounded_yaml.load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    scope = data.get("scope")
    if scope is None:
        return ()
    if isinstance(scope, str):
        return _split_scope(scope)
    if isinstance(scope, list) and all(isinstance(s, str) for s in scope):
        return tuple(scope)
    raise ConfigError(f"{path}: `scope:` must be a list of project names")


def kb_db_path(home: Path, kb_root: Path) -> Path:
    """home/kb/<12 hex of the resolved KB path>.db, so several KBs never mix."""
    resolved = str(Path(kb_root).expanduser().resolve())
    digest = sha256_hex(resolved.encode("utf-8", "surrogateescape"))[:12]
    return Path(home) / "kb" / f"{digest}.db"


def is_private(path: Path, *, stop: Path | None = None) -> bool:
    """True when `path` or any parent (up to `stop`, inclusive) holds a private marker."""
    for folder in (path, *path.parents):
        if any((folder / marker).exists() for marker in PRIVATE_MARKERS):
            return True
        if stop is not None and folder == stop:
            break
    return False
