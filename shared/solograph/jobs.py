"""The write jobs: what the CLI runs in-process and the worker runs from a queue.

Each takes settings plus ids and paths, does its work through the core, and returns a plain
dict report, so a Celery task is a one-line wrapper around it.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from solograph import sessions, sources
from solograph.config import Settings
from solograph.portfolio import registry
from solograph.portfolio.scan import Progress, scan
from solograph.store import connect_writer


def refresh_registry(settings: Settings) -> dict:
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        return registry.refresh(conn, settings.scan_paths).to_dict()
    finally:
        conn.close()


def scan_portfolio(settings: Settings, *, projects: list[str] | None = None,
                   progress: Progress | None = None) -> dict:
    """Scan the named projects, else the scope, else every registered project.

    A name the registry lacks fails the run before anything is read."""
    conn = connect_writer(settings.portfolio_db, "portfolio")
    try:
        names = list(projects or settings.scope)
        chosen = registry.resolve_scope(conn, names) if names else registry.list_projects(conn)
        report = scan(conn, chosen, max_file_bytes=settings.max_file_bytes, progress=progress)
        out = report.to_dict()
        out["summary"] = report.summary()
        return out
    finally:
        conn.close()


def index_kb(settings: Settings) -> dict:
    """Bring the KB index level with its folder (the first run reads every page; later runs
    re-read what changed); report what it holds."""
    from solograph.errors import NotIndexed
    from solograph.kb.sync import open_kb, sync

    if settings.kb_path is None:
        raise NotIndexed("no knowledge base is configured",
                         hint="set KB_PATH to the folder of your notes")
    kb = open_kb(settings.home, settings.kb_path)
    try:
        report = sync(kb, max_bytes=settings.max_file_bytes).to_dict()
        report["kb"] = str(kb.root)
        report["index"] = str(settings.kb_db)
        report["pages_folder"] = kb.layout.pages or "."
        report["summary"] = (
            f"{report['docs']} documents ({report['pages']} in {report['pages_folder']}/), "
            f"{report['read']} read, {report['deleted']} dropped in {report['seconds']} s"
            + (f"; {report['problems']} with problems (see `solograph kb-graph --check`)"
               if report["problems"] else "")
            + (f"; {len(report['huge'])} too large to index" if report["huge"] else "")
            + (f"; {len(report['outside'])} links leaving the KB not followed"
               if report["outside"] else "")
            + (f"; {report['unreadable']} unreadable" if report["unreadable"] else ""))
        return report
    finally:
        kb.close()


def sync_sessions(settings: Settings) -> dict:
    """Read new and grown transcripts into the session index; report what was done and what
    the index holds."""
    conn = sessions.open_index(settings.sessions_db)
    try:
        report = sessions.sync(conn, settings.claude_projects)
        total, archived, messages = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(NOT EXISTS (SELECT 1 FROM files f "
            "WHERE f.session_id = s.session_id AND f.kind = 'main' AND f.status = 'live')), 0), "
            "COALESCE(SUM(messages), 0) FROM sessions s").fetchone()
        report.update(sessions=total, archived=archived, messages=messages)
        report["summary"] = (
            f"{total} sessions ({archived} archived), {messages} messages; this sync: "
            f"{report['new']} new files, {report['grown']} grown, {report['reread']} re-read, "
            f"{report['deleted']} deleted, {report['entries']} messages added"
            + (f", {report['purged']} purged (private)" if report["purged"] else "")
            + (f", {report['bad_lines']} bad lines skipped" if report["bad_lines"] else "")
            + (f"; {report['unreadable']} files or folders unreadable (permissions: run as "
               f"their owner)" if report["unreadable"] else "")
            + (f"; transcripts folder {report['transcripts']} not found"
               if report["missing"] else ""))
        return report
    finally:
        conn.close()


def index_youtube(settings: Settings, targets: list[str] | None = None, *,
                  channel: str | None = None, limit: int = 10, force: bool = False) -> dict:
    """Index YouTube videos (URLs or ids) and/or a channel's newest `limit`: metadata and
    subtitles through yt-dlp, chunked, tagged; videos already indexed are skipped."""
    from solograph.sources import youtube

    started = time.time()
    with sources.writing(settings.sources_db) as conn, \
            tempfile.TemporaryDirectory(prefix="solograph-yt-") as workdir:
        report = youtube.index_youtube(
            conn, targets or (), channel=channel, limit=limit, langs=settings.subtitle_langs,
            workdir=Path(workdir), force=force, searxng_url=settings.searxng_url)
        sources.record_run(conn, "youtube", channel or " ".join(targets or ()), started,
                           len(report["indexed"]), report["problems"])
    return report


def import_telegram(settings: Settings, path: Path, *, username: str = "") -> dict:
    """Index a Telegram Desktop export (result.json) of a channel or chat."""
    from solograph.sources import telegram

    started = time.time()
    with sources.writing(settings.sources_db) as conn:
        report = telegram.import_export(conn, path, username=username)
        sources.record_run(conn, "telegram", str(path), started, report["indexed"], [])
    return report


def delete_source(settings: Settings, key: str) -> dict:
    """Remove `source/id` from the sources index (a video with all its chunks)."""
    with sources.writing(settings.sources_db) as conn:
        return sources.delete(conn, key)


def add_topic(settings: Settings, tag: str, keywords: list[str]) -> dict:
    """Extend the topics table and tag every stored video again."""
    from solograph.sources import topics

    with sources.writing(settings.sources_db) as conn:
        return topics.add_topic(conn, tag, keywords)
