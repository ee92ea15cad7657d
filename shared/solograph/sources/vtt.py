"""WebVTT subtitles to timed text, including YouTube's rolling auto-captions.

    transcript = parse_vtt(data)          # bytes or str; raises BadSubtitles when unusable
    transcript.cues                       # [Cue(start, end, text)], seconds, tags stripped

The file must start with `WEBVTT` (a BOM before it is fine). Header lines, NOTE, STYLE and
REGION blocks are skipped, cue identifiers and settings are ignored, inline tags (`<c>`,
`<i>`, `<00:05:04.199>`) are stripped and entities decoded. A cue whose timing line is broken,
or that holds no text, is skipped and counted in `transcript.skipped` with its line number, so
one bad cue never costs the rest of the track. A file that is empty, has no header or yields no
cue at all is rejected with BadSubtitles.

YouTube's automatic captions roll: each cue repeats the line before it under the new words,
and a ~10 ms cue repeats the finished lines between them. They are recognised by their inline
word timestamps; then cues shorter than 50 ms are dropped and only each cue's new lines kept.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from solograph.errors import SolographError

MIN_ROLLING_CUE_S = 0.05
_TIME = r"(?:(\d+):)?([0-5]\d):([0-5]\d)[.,](\d{3})"
_TIMING = re.compile(rf"^\s*{_TIME}\s+-->\s+{_TIME}(?:\s+.*)?$")
_TAG = re.compile(r"<[^>]*>")
_WORD_TIMESTAMP = re.compile(r"<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{3}>")
_SPACE = re.compile(r"[ \t\u00a0]+")


class BadSubtitles(SolographError):
    code = "bad_subtitles"


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


@dataclass
class Transcript:
    cues: list[Cue]
    rolling: bool = False
    skipped: list[tuple[int, str]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.cues)

    @property
    def duration(self) -> float:
        return self.cues[-1].end if self.cues else 0.0


def _seconds(h: str | None, m: str, s: str, ms: str) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def clean_line(line: str) -> str:
    """One caption line as plain text: tags out, entities decoded, spaces collapsed."""
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", line))).strip()


def _decode(data: bytes | str) -> str:
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    return data.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class _Raw:
    line: int
    start: float
    end: float
    lines: list[str]


def _blocks(text: str) -> tuple[list[_Raw], list[tuple[int, str]]]:
    """Timed cues with their raw text lines, and what was skipped (line number, reason)."""
    # Blocks are separated by empty lines. A line of spaces is not empty: YouTube's
    # auto-captions put one where a cue has no previous line to repeat.
    lines = text.split("\n")
    cues: list[_Raw] = []
    skipped: list[tuple[int, str]] = []
    i = 1
    while i < len(lines) and lines[i] != "":  # header lines after WEBVTT (Kind:, Language:)
        i += 1
    while i < len(lines):
        if lines[i] == "":
            i += 1
            continue
        block: list[str] = []
        while i < len(lines) and lines[i] != "":
            block.append(lines[i])
            i += 1
        while block and not block[0].strip():  # stray whitespace lines before a block
            block.pop(0)
        if not block:
            continue
        start_line = i - len(block)
        first = block[0].strip()
        if first.startswith(("NOTE", "STYLE", "REGION")) and "-->" not in first:
            continue
        # The timing is the first line, or the second after a cue identifier.
        at = 0 if "-->" in block[0] else 1 if len(block) > 1 and "-->" in block[1] else -1
        if at < 0:
            skipped.append((start_line + 1, "no timing line"))
            continue
        j = at
        while j < len(block):  # a line holding "-->" inside cue text starts the next cue
            match = _TIMING.match(block[j])
            end = j + 1
            while end < len(block) and "-->" not in block[end]:
                end += 1
            if match is None:
                skipped.append((start_line + j + 1, "bad timing line"))
            else:
                g = match.groups()
                start, stop = _seconds(*g[:4]), _seconds(*g[4:])
                if stop < start:
                    skipped.append((start_line + j + 1, "cue ends before it starts"))
                else:
                    cues.append(_Raw(start_line + j + 1, start, stop, block[j + 1:end]))
            j = end
    return cues, skipped


def parse_vtt(data: bytes | str, *, rolling: bool | None = None) -> Transcript:
    """Parse a WebVTT file. `rolling`: de-duplicate YouTube auto-captions (default: detected
    from inline word timestamps)."""
    text = _decode(data)
    if not text.strip():
        raise BadSubtitles("the subtitle file is empty")
    if not re.match(r"WEBVTT(?:[ \t].*)?$", text.split("\n", 1)[0]):
        raise BadSubtitles("not a WebVTT file: the first line is not `WEBVTT`")
    raws, skipped = _blocks(text)
    if rolling is None:
        rolling = any(_WORD_TIMESTAMP.search(line) for raw in raws for line in raw.lines)
    cues: list[Cue] = []
    recent: list[str] = []  # the lines shown last, which a rolling cue repeats
    for raw in raws:
        lines = [clean_line(x) for x in raw.lines]
        lines = [x for x in lines if x]
        if rolling:
            if raw.end - raw.start < MIN_ROLLING_CUE_S:
                continue
            fresh = [x for x in lines if x not in recent]
            if lines:
                recent = (recent + fresh)[-3:]
            lines = fresh
        if not lines:
            if not rolling:
                skipped.append((raw.line, "no caption text"))
            continue
        cues.append(Cue(raw.start, raw.end, " ".join(lines)))
    if not cues:
        raise BadSubtitles("the subtitle file holds no caption"
                           + (f" ({len(skipped)} cues skipped)" if skipped else ""))
    return Transcript(cues=cues, rolling=rolling, skipped=skipped)
