"""Where a KB's index lives: under SOLOGRAPH_HOME, one file per KB folder, never in the KB."""

from __future__ import annotations

import hashlib
from pathlib import Path


def kb_db_path(home: Path, kb_root: Path) -> Path:
    """home/kb/<12 hex of the resolved KB path>.db, so several KBs never mix."""
    resolved = str(Path(kb_root).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return Path(home) / "kb" / f"{digest}.db"


def state_dir(home: Path) -> Path:
    """Per-session hook state (pages already named, project maps already given)."""
    return Path(home) / "kb" / "sessions"


def folder_condition(prefix: str) -> tuple[str, tuple[str, str]]:
    """The SQL condition (over `d`, the docs) for pages in folder `prefix` or named it."""
    from solograph.store import like_escape

    return "(d.path = ? OR d.path LIKE ? ESCAPE '\\')", (prefix, like_escape(prefix) + "/%")
