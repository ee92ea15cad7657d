"""Where a KB's hook state lives, and the SQL of a folder of pages. (Its index file is
`Settings.kb_db`, beside the other stores' files.)"""

from __future__ import annotations

from pathlib import Path


def state_dir(home: Path) -> Path:
    """Per-session hook state (pages already named, project maps already given)."""
    return Path(home) / "kb" / "sessions"


def folder_condition(prefix: str) -> tuple[str, tuple[str, str]]:
    """The SQL condition (over `d`, the docs) for pages in folder `prefix` or named it."""
    from solograph.store import like_escape

    return "(d.path = ? OR d.path LIKE ? ESCAPE '\\')", (prefix, like_escape(prefix) + "/%")
