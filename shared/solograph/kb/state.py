"""What the hook already told one session: the pages it named, the projects it mapped.

One small JSON file per session under SOLOGRAPH_HOME/kb/sessions/, written whole through a
rename, so two hook runs never leave half a file. Files untouched for a week are removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

from solograph.digest import sha256_hex

KEEP_S = 7 * 24 * 3600
_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def _file(folder: Path, session: str) -> Path:
    name = session if _SAFE.match(session) else sha256_hex(session.encode())[:32]
    return folder / f"{name}.json"


def load(folder: Path, session: str) -> dict:
    try:
        data = json.loads(_file(folder, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"pages": [], "maps": []}
    if not isinstance(data, dict):
        return {"pages": [], "maps": []}
    data.setdefault("pages", [])
    data.setdefault("maps", [])
    return data


def save(folder: Path, session: str, data: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = _file(folder, session)
    fresh = not path.exists()
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    if fresh:
        _sweep(folder)


def _sweep(folder: Path) -> None:
    cutoff = time.time() - KEEP_S
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
