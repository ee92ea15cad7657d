"""The nightly refresh: what `solograph refresh` runs from cron or launchd and what beat sends
the worker each night. The registry merge (new checkouts), a scan of what changed (the scope
of SOLOGRAPH_SCOPE or `scope:` honoured, and a name the registry lacks fails the run before
anything is read), the session sync and, when a KB is configured, its index run."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

Guard = Callable[[str], AbstractContextManager[object]]


@contextlib.contextmanager
def _unguarded(_store: str) -> Iterator[None]:
    yield


def refresh(settings: Settings, *, scan: Callable[[], dict] | None = None,
            guard: Guard = _unguarded) -> dict:
    """Run every step in turn; returns each step's report and a summary line. `scan` replaces
    the registry merge and scan (the worker's takes each project under its lock); `guard(store)`
    is held around the steps that write that store."""
    from solograph.kb.sync import index_kb
    from solograph.portfolio.sync import refresh_registry, scan_portfolio
    from solograph.sessions.sync import sync_sessions

    out: dict = {}
    if scan is not None:
        out["scan"] = scan()
    else:
        with guard("portfolio"):
            out["registry"] = refresh_registry(settings)
            out["scan"] = scan_portfolio(settings)
    with guard("sessions"):
        out["sessions"] = sync_sessions(settings)
    if settings.kb_path is not None:
        with guard("kb"):
            out["kb"] = index_kb(settings)
    parts = [f"registry: {len(out['registry']['added'])} added" if "registry" in out else "",
             out["scan"].get("summary", ""), out["sessions"]["summary"],
             out["kb"]["summary"] if "kb" in out else "no knowledge base (KB_PATH unset)"]
    parts += [f"warning: {w}" for w in out.get("registry", {}).get("warnings", [])]
    out["summary"] = "\n".join(p for p in parts if p)
    return out
