"""YouTube: list a channel's videos, fetch metadata and subtitles (never the video), and index
each video as chunks whose links open it at their second.

yt-dlp is imported lazily inside the functions that need it, so the rest of the core (and the
slim search image, which does not install it) never loads it. The network path is

    raw = extract(url)                           # yt-dlp, process=False: the unprocessed info
    info = fetch_subtitles(raw, workdir, langs)  # YoutubeDL.process_ie_result(download=True)
    ingest(conn, info)                           # VTT -> chunks -> documents, video, tags

and a saved info dict enters at `fetch_subtitles` unchanged, which is how the tests run it
offline: yt-dlp's own subtitle selection writes the .vtt side file, with no network.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

from solograph import bounded_json
from solograph.bounded_json import scalar
from solograph.errors import BadQuery, SolographError
from solograph.sources.chunks import Chunk, chunk_transcript, clock, video_url
from solograph.sources.store import Document, put_video
from solograph.sources.topics import load_topics, tag_text
from solograph.sources.vtt import BadSubtitles, parse_vtt
from solograph.text.plural import plural

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

SOURCE = "youtube"
MAX_SECONDS = 1e9  # a time past this (31 years) in an info dict is garbage
_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_WATCH = re.compile(r"(?:v=|youtu\.be/|/shorts/|/live/|/embed/)([A-Za-z0-9_-]{11})")


class FetchError(SolographError):
    code = "fetch_failed"


def video_id(target: str) -> str | None:
    """The 11-character id in a URL, or the target itself when it is one."""
    target = target.strip()
    if _ID.match(target):
        return target
    found = _WATCH.search(target)
    return found.group(1) if found else None


def channel_url(channel: str) -> str:
    channel = channel.strip()
    if channel.startswith(("http://", "https://")):
        return channel.rstrip("/") + ("" if channel.rstrip("/").endswith("/videos")
                                      else "/videos")
    handle = channel if channel.startswith("@") else "@" + channel
    return f"https://www.youtube.com/{handle}/videos"


def _options(**extra: object) -> dict:
    return {"quiet": True, "no_warnings": True, "noprogress": True, "skip_download": True,
            # Formats are never downloaded; a video whose formats need a JS runtime still
            # yields its metadata and subtitles.
            "ignore_no_formats_error": True, **extra}


def _ydl(options: dict) -> Any:  # yt_dlp.YoutubeDL, imported lazily
    try:
        import yt_dlp
    except ImportError:  # pragma: no cover - a slim install without the sources extras
        raise FetchError("yt-dlp is not installed",
                         hint="pip install 'yt-dlp>=2026.10.26'") from None
    return yt_dlp.YoutubeDL(options)


def list_channel(channel: str, limit: int) -> list[str]:
    """The newest `limit` video ids of a channel, as yt-dlp lists its videos tab."""
    options = _options(extract_flat="in_playlist", playlistend=limit)
    try:
        with _ydl(options) as ydl:
            listing = ydl.extract_info(channel_url(channel), download=False, process=False)
            entries = listing.get("entries") or [] if listing else []
            ids = [video_id(str(e.get("id") or e.get("url") or "")) for e in islice(entries, limit)
                   if isinstance(e, dict)]
    except SolographError:
        raise
    except Exception as exc:  # yt-dlp's DownloadError and whatever its extractors raise
        raise FetchError(f"could not list {channel}: {exc}") from None
    return [i for i in ids if i]


def discover_searxng(searxng_url: str, channel: str, limit: int, *, timeout: float = 10.0,
                     ) -> list[str]:
    """Video ids a SearXNG instance finds for the channel (the fallback when listing fails)."""
    import urllib.parse
    import urllib.request

    query = urllib.parse.urlencode({"q": f"{channel} site:youtube.com", "format": "json",
                                    "categories": "videos"})
    request = urllib.request.Request(f"{searxng_url}/search?{query}",
                                     headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            data = json.loads(response.read().decode("utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        raise FetchError(f"SearXNG at {searxng_url} did not answer: {exc}") from None
    ids: list[str] = []
    for result in data.get("results") or []:
        found = video_id(str(result.get("url") or ""))
        if found and found not in ids:
            ids.append(found)
    return ids[:limit]


def extract(target: str) -> dict:
    """The unprocessed info dict of one video (metadata and subtitle URLs, no download)."""
    vid = video_id(target)
    if vid is None:
        raise BadQuery(f"not a YouTube video: {target!r}",
                       hint="give a watch URL or an 11-character video id")
    try:
        with _ydl(_options()) as ydl:
            info = ydl.extract_info(video_url(vid), download=False, process=False)
    except SolographError:
        raise
    except Exception as exc:
        raise FetchError(f"could not read video {vid}: {exc}") from None
    if not isinstance(info, dict):
        raise FetchError(f"could not read video {vid}: yt-dlp returned nothing")
    return info


def choose_subtitles(info: dict, langs: Iterable[str]) -> tuple[str, bool] | None:
    """(language key, automatic?) to fetch: manual subtitles in the order of `langs` first,
    then automatic captions in the video's own language, then in `langs`."""
    langs = list(langs)
    manual = _mapping(info.get("subtitles"))
    auto = _mapping(info.get("automatic_captions"))
    for lang in langs:
        if manual.get(lang):
            return lang, False
    spoken = [info["language"]] if isinstance(info.get("language"), str) else []
    for lang in spoken + langs:
        for key in (f"{lang}-orig", lang):  # YouTube names untranslated captions `xx-orig`
            if auto.get(key):
                return key, True
    return None


def fetch_subtitles(info: dict, workdir: Path, langs: Iterable[str]) -> dict:
    """Run yt-dlp's own processing on `info` (subtitle selection and writing, no video):
    returns the sanitized info with `requested_subtitles[lang]["filepath"]` set."""
    _check(info, FetchError)
    chosen = choose_subtitles(info, langs)
    workdir.mkdir(parents=True, exist_ok=True)
    options = _options(writesubtitles=True, writeautomaticsub=True,
                       subtitleslangs=[chosen[0]] if chosen else [], subtitlesformat="vtt",
                       outtmpl={"default": str(workdir / "%(id)s.%(ext)s")})
    try:
        with _ydl(options) as ydl:
            processed = ydl.process_ie_result(dict(info), download=True)
            out = ydl.sanitize_info(processed)
    except SolographError:
        raise
    except Exception as exc:
        raise FetchError(f"could not fetch subtitles of {info.get('id')}: {exc}") from None
    out["_solograph_subtitles"] = ({"lang": chosen[0], "auto": chosen[1]} if chosen else None)
    return out


def _subtitle_bytes(info: dict) -> tuple[bytes | None, str]:
    """The chosen subtitle file's bytes and its label ('en', 'en (auto)'), or (None, '')."""
    chosen = _mapping(info.get("_solograph_subtitles"))
    lang = chosen.get("lang")
    if not isinstance(lang, str):
        return None, ""
    sub = _mapping(_mapping(info.get("requested_subtitles")).get(lang))
    if not sub:
        return None, ""
    label = lang.removesuffix("-orig") + (" (auto)" if chosen.get("auto") is True else "")
    path = sub.get("filepath")
    if isinstance(path, str) and path and "\0" not in path:
        try:
            return Path(path).read_bytes(), label
        except OSError:  # gone, or a folder: the inline data, if any
            pass
    if isinstance(sub.get("data"), str):
        return sub["data"].encode("utf-8", "replace"), label
    return None, ""


def _date(raw: object) -> str:
    raw = scalar(raw)
    return f"{raw[:4]}-{raw[4:6]}-{raw[6:8]}" if re.fullmatch(r"\d{8}", raw) else ""


# An info dict comes from yt-dlp, or from a file someone saved: every field is checked for
# its type before use, and the whole is checked for depth before anything walks it.


def _check(info: object, error: type[SolographError]) -> dict:
    """`info` itself, once it is known to be a mapping of bounded depth."""
    if not isinstance(info, dict):
        raise error("the video's info is not a mapping")
    try:
        bounded_json.check(info)
    except bounded_json.TooDeep as exc:
        raise error(f"the video's info is {exc}") from None
    return info


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _number(value: object) -> float:
    """A finite time in seconds (NaN, infinities and 400-digit ints fail the range test)."""
    if isinstance(value, int | float) and not isinstance(value, bool) \
            and -MAX_SECONDS < value < MAX_SECONDS:
        return value
    return 0


def _chapter_list(raw: object) -> list[dict]:
    """yt-dlp's chapters, only those with finite times and a text title."""
    out = []
    for c in raw if isinstance(raw, list) else ():
        if not isinstance(c, dict):
            continue
        start, end = c.get("start_time"), c.get("end_time")
        if _number(start) != start or start < 0 or (end is not None and _number(end) != end):
            continue
        out.append({"start_time": start, "end_time": end, "title": scalar(c.get("title"))})
    return out


def ingest(conn: sqlite3.Connection, info: dict) -> dict:
    """Index one processed video: its chunks, its row in `videos`, its tags. A video whose
    subtitles are missing or unusable is still indexed by title and description, and the
    report says why it has no transcript."""
    _check(info, BadQuery)
    vid = scalar(info.get("id"))
    if not _ID.match(vid):
        raise BadQuery(f"not a YouTube video id: {vid[:40]!r}")
    title = scalar(info.get("title")) or vid
    description = scalar(info.get("description"))
    date = _date(info.get("upload_date"))
    channel = scalar(info.get("channel")) or scalar(info.get("uploader"))
    chapters = _chapter_list(info.get("chapters"))
    problems: list[str] = []
    data, label = _subtitle_bytes(info)
    chunks: list[Chunk] = []
    if data is None:
        problems.append("no subtitles in the requested languages")
    else:
        try:
            transcript = parse_vtt(data)
            chunks = chunk_transcript(transcript.cues, chapters)
            if transcript.skipped:
                problems.append(f"{len(transcript.skipped)} subtitle cues skipped")
        except BadSubtitles as exc:
            problems.append(f"subtitles unusable: {exc.message}")
            label = ""
    base = {"channel": channel, "video_title": title}
    docs = [Document(SOURCE, f"{vid}@{c.start}", f"{title} — {c.chapter}" if c.chapter else title,
                     video_url(vid, c.start), c.text, date, video=vid,
                     metadata={**base, "start": c.start, "end": round(c.end, 3),
                               "clock": clock(c.start), "chapter": c.chapter})
            for c in _merge_same_second(chunks)]
    docs.append(Document(SOURCE, f"{vid}@about", title, video_url(vid), description, date,
                         video=vid, metadata={**base, "about": True}))
    tags = tag_text(title, f"{description} {' '.join(c.text for c in chunks)}",
                    load_topics(conn))
    put_video(conn, {"video": vid, "title": title, "channel": channel, "url": video_url(vid),
                     "date": date, "duration": _number(info.get("duration")),
                     "description": description, "subtitles": label,
                     "chapters": len(chapters)}, docs, tags)
    return {"video": vid, "title": title, "chunks": len(docs) - 1, "subtitles": label,
            "tags": list(tags), "problems": problems}


MAX_INFO_BYTES = 64 << 20  # a saved info dict is a few hundred KB; past this it is not one


def load_saved(path: Path, langs: Iterable[str]) -> dict:
    """A yt-dlp info dict saved to a file (`yt-dlp --write-info-json --write-subs
    --skip-download URL`, or a script's `sanitize_info`) with its subtitle file beside it,
    ready for `ingest`, offline: the subtitles chosen as for a fetch, read from the file
    beside (`<name>.<lang>.vtt` for `<name>.info.json`)."""
    try:
        if path.stat().st_size > MAX_INFO_BYTES:
            raise BadQuery(f"{path} is too large for an info dict")
        info, _ = bounded_json.loads(path.read_bytes())
    except OSError as exc:
        raise BadQuery(f"cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise BadQuery(f"{path} is not JSON: save it with yt-dlp --write-info-json") from None
    info = _check(info, BadQuery)
    found = _beside(path, _mapping(info.get("requested_subtitles")))
    chosen = choose_subtitles(info, langs)
    lang = chosen[0] if chosen and chosen[0] in found else next(
        (k for want in langs for k in found if k == want or k.split("-")[0] == want),
        next(iter(found), None))
    info = dict(info)
    if lang is None:
        info["requested_subtitles"], info["_solograph_subtitles"] = {}, None
        return info
    auto = lang not in _mapping(info.get("subtitles")) and \
        lang in _mapping(info.get("automatic_captions"))
    info["requested_subtitles"] = {lang: {"ext": "vtt", "filepath": str(found[lang])}}
    info["_solograph_subtitles"] = {"lang": lang, "auto": auto}
    return info


def _beside(path: Path, requested: dict) -> dict[str, Path]:
    """{language: .vtt file} in the info file's folder: `<name>.<lang>.vtt`, and the files
    yt-dlp named in `requested_subtitles` (looked for beside the info file, wherever it ran)."""
    name = path.name
    for suffix in (".info.json", ".json"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    out: dict[str, Path] = {}
    for lang, sub in requested.items():
        where = _mapping(sub).get("filepath")
        if isinstance(lang, str) and isinstance(where, str) and "\0" not in where:
            candidate = path.parent / Path(where).name
            if candidate.is_file():
                out[lang] = candidate
    try:
        for vtt in sorted(path.parent.glob("*.vtt")):
            head, _, lang = vtt.name[:-4].rpartition(".")
            if head == name and lang:
                out.setdefault(lang, vtt)
    except OSError:
        pass
    return out


def _merge_same_second(chunks: list[Chunk]) -> list[Chunk]:
    out: list[Chunk] = []
    for c in chunks:
        if out and out[-1].start == c.start:
            prev = out.pop()
            c = Chunk(prev.start, c.end, f"{prev.text} {c.text}", prev.chapter or c.chapter)
        out.append(c)
    return out


def known_videos(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT video FROM videos")}


def index_youtube(conn: sqlite3.Connection, targets: Iterable[str] = (), *,
                  channel: str | None = None, limit: int = 10, langs: Iterable[str] = ("en",),
                  workdir: Path, force: bool = False, searxng_url: str = "",
                  saved_files: Iterable[Path | str] = ()) -> dict:
    """Index videos by URL or id, and/or a channel's newest `limit`, and/or saved info dicts
    (`saved_files`, offline); videos already indexed are skipped unless `force`. One video
    failing never stops the others; `failed` counts those that did."""
    langs = list(langs)
    ids: list[str] = []
    problems: list[dict] = []
    for target in targets:
        vid = video_id(target)
        if vid is None:
            problems.append({"url": target, "reason": "not a YouTube video URL or id"})
        elif vid not in ids:
            ids.append(vid)
    if channel:
        try:
            listed = list_channel(channel, limit)
        except FetchError as exc:
            listed = []
            problems.append({"url": channel_url(channel), "reason": exc.message})
        if not listed and searxng_url:
            try:
                listed = discover_searxng(searxng_url, channel, limit)
            except FetchError as exc:
                problems.append({"url": searxng_url, "reason": exc.message})
        ids.extend(i for i in listed if i not in ids)
    done = known_videos(conn) if not force else set()
    indexed, skipped = [], []
    failed = len(problems)  # targets that were no video, a channel that could not be listed
    for saved in saved_files:
        try:
            report = ingest(conn, load_saved(Path(saved), langs))
        except SolographError as exc:
            problems.append({"url": str(saved), "reason": exc.message})
            failed += 1
            continue
        indexed.append(report)
        problems.extend({"url": video_url(report["video"]), "reason": p}
                        for p in report["problems"])
    for vid in ids:
        if vid in done:
            skipped.append(vid)
            continue
        try:
            info = fetch_subtitles(extract(vid), workdir, langs)
            report = ingest(conn, info)
        except SolographError as exc:
            problems.append({"url": video_url(vid), "reason": exc.message})
            failed += 1
            continue
        finally:
            for leftover in workdir.glob(f"{vid}.*"):
                leftover.unlink(missing_ok=True)
        indexed.append(report)
        problems.extend({"url": video_url(vid), "reason": p} for p in report["problems"])
    return {"source": SOURCE, "indexed": indexed, "skipped": skipped, "problems": problems,
            "failed": failed,
            "summary": f"{plural(len(indexed), 'video')} indexed "
                       f"({plural(sum(r['chunks'] for r in indexed), 'chunk')}), "
                       f"{len(skipped)} already indexed, {plural(len(problems), 'problem')}"}
