"""A transcript cut into chunks: by the video's chapters, else by fixed windows.

Each chunk becomes one document whose link opens the video at the chunk's first second
(`&t=140s`), so a search hit lands where the words are said. A chapter longer than
MAX_CHAPTER_S is cut into windows too (each keeps the chapter's title), so no link lands
minutes before its words.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from solograph.sources.vtt import Cue

WINDOW_S = 120.0
MAX_CHAPTER_S = 2 * WINDOW_S


@dataclass(frozen=True)
class Chunk:
    start: int  # whole seconds, what `&t=` carries
    end: float
    text: str
    chapter: str = ""


def video_url(video: str, start: int | None = None) -> str:
    base = f"https://www.youtube.com/watch?v={video}"
    return f"{base}&t={int(start)}s" if start is not None else base


def clock(seconds: float) -> str:
    """140 -> '2:20', 3725 -> '1:02:05'."""
    s = int(seconds)
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _chapters(raw: Sequence[dict] | None) -> list[tuple[float, float, str]]:
    """Valid (start, end, title) chapters in time order; yt-dlp's shape, tolerating gaps."""
    out = []
    for c in raw or ():
        try:
            start = float(c["start_time"])
            end = float(c["end_time"]) if c.get("end_time") is not None else math.inf
        except (TypeError, ValueError, KeyError, AttributeError):
            continue
        if end > start:
            out.append((start, end, str(c.get("title") or "").strip()))
    return sorted(out)


def _windows(cues: list[Cue], origin: float, chapter: str, window: float) -> list[Chunk]:
    """Consecutive cues grouped into runs of about `window` seconds from `origin`."""
    chunks: list[Chunk] = []
    group: list[Cue] = []
    limit = origin + window
    for cue in cues:
        if cue.start >= limit:
            if group:
                chunks.append(_chunk(group, chapter))
                group = []
            limit += window * (1 + int((cue.start - limit) // window))
        group.append(cue)
    if group:
        chunks.append(_chunk(group, chapter))
    return chunks


def _chunk(cues: list[Cue], chapter: str, start: float | None = None) -> Chunk:
    begin = cues[0].start if start is None else start
    return Chunk(start=int(begin), end=cues[-1].end, chapter=chapter,
                 text=" ".join(c.text for c in cues))


def chunk_transcript(cues: Sequence[Cue], chapters: Sequence[dict] | None = None, *,
                     window: float = WINDOW_S, max_chapter: float = MAX_CHAPTER_S) -> list[Chunk]:
    """Chunks of `cues`: one per chapter (long chapters windowed), else fixed windows."""
    cues = sorted(cues, key=lambda c: c.start)
    marks = _chapters(chapters)
    if not cues:
        return []
    if not marks:
        return _windows(cues, 0.0, "", window)
    # A cue belongs to the last chapter starting at or before it (cues before the first
    # chapter join it; gaps between chapters join the one before).
    starts = [m[0] for m in marks]
    groups: list[list[Cue]] = [[] for _ in marks]
    for cue in cues:
        groups[max(0, bisect_right(starts, cue.start) - 1)].append(cue)
    chunks: list[Chunk] = []
    for (start, _end, title), inside in zip(marks, groups, strict=True):
        if not inside:
            continue
        if inside[-1].end - start > max_chapter:
            windowed = _windows(inside, start, title, window)
            # The chapter's first chunk opens at the chapter's own second.
            windowed[0] = Chunk(int(start), windowed[0].end, windowed[0].text, title)
            chunks.extend(windowed)
        else:
            chunks.append(_chunk(inside, title, start=min(start, inside[0].start)))
    return chunks
