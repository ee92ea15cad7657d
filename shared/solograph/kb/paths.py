"""Where a KB's index lives: under SOLOGRAPH_HOME, one file per KB folder, never in the KB."""

from __future__ import annotations

from pathlib import Path


def sha256_hex(data: bytes) -> str:
    """hashlib's sha256, from the interpreter's own module where it has one: importing hashlib
    loads OpenSSL first, 2-3 ms of every hook run (the digest is the same)."""
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def kb_db_path(home: Path, kb_root: Path) -> Path:
    """home/kb/<12 hex of the resolved KB path>.db, so several KBs never mix."""
    resolved = str(Path(kb_root).expanduser().resolve())
    digest = sha256_hex(resolved.encode("utf-8", "surrogateescape"))[:12]
    return Path(home) / "kb" / f"{digest}.db"


def state_dir(home: Path) -> Path:
    """Per-session hook state (pages already named, project maps already given)."""
    return Path(home) / "kb" / "sessions"


def folder_condition(prefix: str) -> tuple[str, tuple[str, str]]:
    """The SQL condition (over `d`, the docs) for pages in folder `prefix` or named it."""
    from solograph.store import like_escape

    return "(d.path = ? OR d.path LIKE ? ESCAPE '\\')", (prefix, like_escape(prefix) + "/%")
