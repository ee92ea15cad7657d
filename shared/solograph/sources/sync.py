"""The sources index's write jobs: YouTube videos through yt-dlp, Telegram exports, topics and
deletions. (The ProductHunt and TrustMRR spiders need Scrapy, which lives in the services.)
Each takes settings plus names and flags and returns a plain report."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from solograph.sources.store import delete, record_run, writing

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings


def index_youtube(settings: Settings, targets: list[str] | None = None, *,
                  channel: str | None = None, limit: int = 10, force: bool = False,
                  import_files: list[Path] | None = None) -> dict:
    """Index YouTube videos (URLs or ids) and/or a channel's newest `limit`: metadata and
    subtitles through yt-dlp, chunked, tagged; videos already indexed are skipped. Saved info
    dicts (`import_files`, each with its subtitle file beside it) are indexed offline."""
    from solograph.sources import youtube

    started = time.time()
    with writing(settings.sources_db) as conn, \
            tempfile.TemporaryDirectory(prefix="solograph-yt-") as workdir:
        report = youtube.index_youtube(
            conn, targets or (), channel=channel, limit=limit, langs=settings.subtitle_langs,
            workdir=Path(workdir), force=force, searxng_url=settings.searxng_url,
            saved_files=import_files or ())
        record_run(conn, "youtube", channel or " ".join(
            [*(targets or ()), *map(str, import_files or ())]), started,
                   len(report["indexed"]), report["problems"])
    return report


def import_telegram(settings: Settings, path: Path, *, username: str = "") -> dict:
    """Index a Telegram Desktop export (result.json) of a channel or chat."""
    from solograph.sources import telegram

    started = time.time()
    with writing(settings.sources_db) as conn:
        report = telegram.import_export(conn, path, username=username)
        record_run(conn, "telegram", str(path), started, report["indexed"], [])
    return report


def delete_source(settings: Settings, key: str) -> dict:
    """Remove `source/id` from the sources index (a video with all its chunks), or with a bare
    `source` the whole source."""
    with writing(settings.sources_db) as conn:
        return delete(conn, key)


def add_topic(settings: Settings, tag: str, keywords: list[str]) -> dict:
    """Extend the topics table and tag every stored video again."""
    from solograph.sources import topics

    with writing(settings.sources_db) as conn:
        return topics.add_topic(conn, tag, keywords)
