"""Inputs for the sources tests, shaped exactly like the real things.

- `talk_info()`: an info dict as yt-dlp's YouTube extractor returns it unprocessed
  (`extract_info(url, process=False)`): id, title, channel, upload_date, duration, chapters,
  `subtitles` and `automatic_captions` as {lang: [{"ext", "url"|"data", "name"}]}. The
  subtitle formats carry `data` instead of `url`, which yt-dlp writes without any network.
- `rolling_vtt(lines)`: a YouTube auto-caption track: each cue shows the previous line above
  the new words (with `<c>` and word timestamps), and a 10 ms cue between them repeats the
  finished lines.
- `telegram_export()`: a Telegram Desktop `result.json` of a channel.
- `build_sources(settings)`: a small index written through the same code as the real sources.
"""

from __future__ import annotations

import json
from pathlib import Path

from solograph.config import Settings
from solograph.sources import youtube as yt
from solograph.sources.store import Document, put, writing

TALK_ID = "pR1c1ngT1er"
OTHER_ID = "d1str1but10"
SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"

# (second, sentence): a ten-minute talk with three chapters (0 intro, 140 pricing, 400 growth).
TALK = [
    (0, "welcome back to the show"),
    (10, "today we talk about building a tiny software business"),
    (20, "my guest started three companies"),
    (60, "first a story about hiring"),
    (100, "we hired too early and it hurt"),
    (140, "so let us talk about pricing tiers"),
    (150, "three pricing tiers work best for most saas products"),
    (160, "the middle tier should be the one you want people to buy"),
    (170, f"never paste your key like {SECRET} into a video"),
    (200, "annual plans give you cash up front"),
    (260, "raise prices every year and tell customers a month early"),
    (290, "grandfather old customers on the plan they signed up for"),
    (330, "churn stays low when the value is obvious to the buyer"),
    (370, "write the change log before you change anything"),
    (400, "distribution beats product every time"),
    (410, "post on twitter every day and build an audience"),
    (470, "newsletters still convert better than ads"),
    (520, "a podcast guest spot can bring a thousand visitors"),
    (590, "thanks for watching"),
]
CHAPTERS = [{"start_time": 0.0, "end_time": 140.0, "title": "Intro"},
            {"start_time": 140.0, "end_time": 400.0, "title": "Pricing tiers"},
            {"start_time": 400.0, "end_time": 600.0, "title": "Distribution"}]


def _ts(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def _tagged(start: float, end: float, sentence: str) -> str:
    words = sentence.split()
    step = (end - start) / max(1, len(words))
    out = words[0]
    for i, word in enumerate(words[1:], 1):
        out += f"<{_ts(start + i * step)}><c> {word}</c>"
    return out


def rolling_vtt(lines: list[tuple[float, str]], *, end: float | None = None) -> str:
    """YouTube's auto-caption shape for `lines`: rolling cues plus 10 ms repeat cues."""
    out = ["WEBVTT", "Kind: captions", "Language: en", ""]
    previous = ""
    for i, (start, sentence) in enumerate(lines):
        stop = lines[i + 1][0] if i + 1 < len(lines) else (end or start + 5)
        out += [f"{_ts(start)} --> {_ts(stop - 0.01)} align:start position:0%",
                previous or " ", _tagged(start, stop - 0.01, sentence), ""]
        out += [f"{_ts(stop - 0.01)} --> {_ts(stop)} align:start position:0%",
                sentence, " ", ""]
        previous = sentence
    return "\n".join(out)


def talk_info(video: str = TALK_ID, *, title: str = "Pricing tiers for tiny SaaS",
              lines: list[tuple[float, str]] = TALK, chapters: list[dict] | None = CHAPTERS,
              manual: bool = False,
              description: str = "How to price a small SaaS: tiers, annual plans, raising "
                                 "prices.") -> dict:
    vtt = rolling_vtt(lines, end=600)
    formats = [{"ext": "json3", "url": f"https://www.youtube.com/api/timedtext?v={video}&fmt=json3",
                "name": "English"},
               {"ext": "vtt", "data": vtt, "name": "English"}]
    info = {
        "id": video, "title": title, "fulltitle": title,
        "description": description,
        "channel": "Tiny Founders", "channel_id": "UCtinyfounders0000000000",
        "uploader": "Tiny Founders", "upload_date": "20261015", "duration": 600,
        "webpage_url": f"https://www.youtube.com/watch?v={video}",
        "original_url": f"https://www.youtube.com/watch?v={video}",
        "extractor": "youtube", "extractor_key": "Youtube", "language": "en",
        "chapters": chapters,
        "subtitles": {},
        "automatic_captions": {"en-orig": formats, "en": formats, "de": formats},
    }
    if manual:
        info["subtitles"] = {"en": formats}
    return info


def telegram_export() -> dict:
    return {
        "name": "Indie Pricing Notes", "type": "public_channel", "id": 1766224901,
        "messages": [
            {"id": 1, "type": "service", "date": "2026-10-01T09:00:00", "actor": "Indie",
             "action": "create_channel", "title": "Indie Pricing Notes", "text": "",
             "text_entities": []},
            {"id": 2, "type": "message", "date": "2026-10-02T10:15:00",
             "date_unixtime": "1790849700", "from": "Indie Pricing Notes",
             "from_id": "channel1766224901",
             "text": ["Pricing tiers: ", {"type": "bold", "text": "three"},
                      " is the magic number. Details: ",
                      {"type": "link", "text": "https://example.com/tiers"}],
             "text_entities": [{"type": "plain", "text": "Pricing tiers: "},
                               {"type": "bold", "text": "three"},
                               {"type": "plain", "text": " is the magic number. Details: "},
                               {"type": "link", "text": "https://example.com/tiers"}],
             "reactions": [{"type": "emoji", "count": 41, "emoji": "👍"},
                           {"type": "emoji", "count": 3, "emoji": "🔥"}]},
            {"id": 3, "type": "message", "date": "2026-10-03T11:00:00", "from": "Indie",
             "text": "Our bot token was 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0, rotated.",
             "text_entities": [{"type": "plain", "text": "Our bot token was "
                                "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0, rotated."}]},
            {"id": 4, "type": "message", "date": "2026-10-04T12:00:00", "from": "Indie",
             "photo": "photos/photo_1.jpg", "text": "", "text_entities": []},
        ],
    }


def write_telegram(folder: Path) -> Path:
    path = folder / "result.json"
    path.write_text(json.dumps(telegram_export(), ensure_ascii=False, indent=1),
                    encoding="utf-8")
    return path


FILLER = [("Inboxly", "email triage for busy teams"),
          ("Mapstack", "maps for logistics startups"),
          ("Tasklane", "kanban boards with time tracking"),
          ("Voicely", "transcribe meetings in any language"),
          ("Shelfie", "inventory for small shops"),
          ("Formcraft", "forms that feel like chat"),
          ("Deployr", "one click deploys for static sites"),
          ("Leafnote", "a notes app for gardeners"),
          ("Pixelpal", "screenshots with annotations"),
          ("Queuebot", "support tickets answered by a bot")]


def build_sources(settings: Settings, workdir: Path) -> None:
    """Two talks (offline yt-dlp path), three launches and a Telegram channel."""
    from solograph.sources.sync import import_telegram

    with writing(settings.sources_db) as conn:
        for info in (talk_info(), talk_info(OTHER_ID, title="Distribution beats product",
                                            lines=TALK[14:], chapters=None,
                                            description="Audience first, then the product.")):
            yt.ingest(conn, yt.fetch_subtitles(info, workdir, ["en"]))
        put(conn, [
            Document("producthunt", "tierwise", "Tierwise", "https://www.producthunt.com/posts/"
                     "tierwise", "Tierwise: Pricing tiers that convert", "2026-11-28",
                     upvotes=1204, metadata={"tagline": "Pricing tiers that convert"}),
            Document("producthunt", "quietpricing", "Quiet Pricing",
                     "https://www.producthunt.com/posts/quietpricing",
                     "Quiet Pricing: Pricing pages for indie hackers", "2026-11-28", upvotes=3),
            Document("trustmrr", "acme-analytics", "Acme Analytics",
                     "https://trustmrr.com/startup/acme-analytics",
                     "Acme Analytics: privacy-first analytics. MRR $12,345", "",
                     metadata={"mrr": 12345.0}),
        ])
        # Other launches, so that BM25 sees a corpus where "pricing" is not in every document.
        put(conn, [Document("producthunt", f"launch-{i}", f"{name} {i}",
                            f"https://www.producthunt.com/posts/launch-{i}",
                            f"{name} {i}: {tagline}", "2026-11-27", upvotes=i)
                   for i, (name, tagline) in enumerate(FILLER * 4)])
    import_telegram(settings, write_telegram(workdir))
