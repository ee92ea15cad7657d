"""WebVTT parsing and chunking on real subtitle files (../shared/corpora/vtt/webvtt-py) and on
YouTube's rolling auto-caption shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from solograph.sources.chunks import chunk_transcript, clock, video_url
from solograph.sources.vtt import BadSubtitles, Cue, clean_line, parse_vtt
from tests.support.sources import CHAPTERS, TALK, rolling_vtt

pytestmark = pytest.mark.corpora


@pytest.fixture
def vtt(corpora: Path) -> Path:
    return corpora / "vtt" / "webvtt-py"


@pytest.mark.parametrize(("name", "count", "first", "last"), [
    ("sample.vtt", 16, (0.5, 7.0, "Caption text #1"), (61.35, 64.3, "Caption text #16")),
    ("captions_with_bom.vtt", 4, (0.5, 7.0, "Caption text #1"), (16.32, 21.58, "Caption text #4")),
    ("using_identifiers.vtt", 6, (0.5, 7.0, "Caption text #1"),
     (23.88, 27.28, "Caption text #6")),
    ("metadata_headers.vtt", 2, (0.5, 7.0, "Caption text #1"), (7.0, 11.89, "Caption text #2")),
    ("metadata_headers_multiline.vtt", 2, (0.5, 7.0, "Caption text #1"),
     (7.0, 11.89, "Caption text #2")),
    ("comments.vtt", 3, (135.0, 140.0, "- Ta en kopp varmt te. - Det är inte varmt."),
     (145.0, 150.0, "- Ta en kopp")),
    ("styles.vtt", 1, (0.0, 10.0, "- Hello world."), (0.0, 10.0, "- Hello world.")),
    ("one_caption.vtt", 1, (0.5, 7.0, "Caption text #1"), (0.5, 7.0, "Caption text #1")),
])
def test_real_files_parse_to_their_cues(vtt, name, count, first, last):
    transcript = parse_vtt((vtt / name).read_bytes())
    cues = transcript.cues
    assert len(cues) == count
    assert (cues[0].start, cues[0].end, cues[0].text) == first
    assert (cues[-1].start, cues[-1].end, cues[-1].text) == last
    assert transcript.skipped == []


def test_the_865_cue_track(vtt):
    transcript = parse_vtt((vtt / "netflix_chicas_del_cable.vtt").read_bytes())
    cues = transcript.cues
    assert len(cues) == 865
    assert not transcript.rolling
    assert (cues[0].start, cues[0].end, cues[0].text) == (7.96, 9.48, "[Alba] En 1928,")
    assert cues[1].text == "las mujeres éramos algo así como adornos"  # two lines, <i> gone
    assert (cues[-1].start, cues[-1].end) == (3147.32, 3148.6)
    assert all(a.start <= b.start for a, b in zip(cues, cues[1:], strict=False))
    assert not any("<" in c.text or ">" in c.text for c in cues)


def test_youtube_auto_caption_excerpt_is_deduplicated(vtt):
    """The real youtube-dl excerpt: word timestamps, <c> tags, and a cue that repeats the
    line before it; what is left reads once, in order."""
    transcript = parse_vtt((vtt / "youtube_dl.vtt").read_bytes())
    assert transcript.rolling
    assert [(c.start, c.end, c.text) for c in transcript.cues] == [
        (286.07, 286.47, "yeah"),
        (286.47, 304.08, "what"),
        (304.08, 305.069, "this will happen is I'm telling"),
    ]
    assert transcript.text == "yeah what this will happen is I'm telling"


def test_inline_timestamps_and_class_tags_are_stripped(vtt):
    cues = parse_vtt((vtt / "cue_tags.vtt").read_bytes()).cues
    assert [c.text for c in cues] == ["When the moon hits your eye", "Like a big-a pizza pie",
                                      "That's amore"]
    assert cues[0].start == 16.5  # mm:ss.ttt timings (no hours) are read too


@pytest.mark.parametrize("name", ["empty.vtt", "no_captions.vtt", "invalid.vtt", "sample.srt",
                                  "sample.sbv", "invalid_format1.srt"])
def test_unusable_files_are_rejected_with_a_clear_error(vtt, name):
    with pytest.raises(BadSubtitles) as caught:
        parse_vtt((vtt / name).read_bytes())
    assert caught.value.code == "bad_subtitles" and caught.value.message


@pytest.mark.parametrize(("name", "cues", "skipped"), [
    ("invalid_timeframe.vtt", 6, [(6, "bad timing line")]),
    ("missing_timeframe.vtt", 6, [(6, "no timing line")]),
    ("missing_caption_text.vtt", 4, [(6, "no caption text")]),
    ("invalid_timeframe_in_cue_text.vtt", 3, [(6, "no caption text")]),
])
def test_one_broken_cue_costs_only_itself(vtt, name, cues, skipped):
    transcript = parse_vtt((vtt / name).read_bytes())
    assert len(transcript.cues) == cues
    assert transcript.skipped == skipped


def test_every_corpus_file_parses_or_is_rejected_never_crashes(vtt):
    outcomes = {}
    for path in sorted(vtt.iterdir()):
        if path.is_file():
            try:
                outcomes[path.name] = len(parse_vtt(path.read_bytes()).cues)
            except BadSubtitles:
                outcomes[path.name] = "rejected"
    assert outcomes["empty.vtt"] == "rejected" and outcomes["sample.vtt"] == 16


def test_garbage_is_rejected_not_a_crash():
    for data in (b"\x00\xff\xfe binary", b"WEBVTT\n\n\xff\xfe --> \x00", "WEBVTTX\n", "  \n\n"):
        with pytest.raises(BadSubtitles):
            parse_vtt(data)


# --------------------------------------------------------------------------- rolling captions


def test_a_rolling_track_reads_each_line_once_at_its_own_second():
    transcript = parse_vtt(rolling_vtt(TALK, end=600))
    assert transcript.rolling
    assert [(c.start, c.text) for c in transcript.cues] == [(float(t), s) for t, s in TALK]


def test_flash_cues_and_repeats_only_apply_to_rolling_tracks():
    plain = "WEBVTT\n\n00:00:01.000 --> 00:00:01.020\nyes\n\n00:00:02.000 --> 00:00:03.000\nyes\n"
    assert [c.text for c in parse_vtt(plain).cues] == ["yes", "yes"]
    assert [c.text for c in parse_vtt(plain, rolling=True).cues] == ["yes"]


def test_clean_line_decodes_entities_and_drops_tags():
    assert clean_line("<v Bob>Tom &amp; Jerry&nbsp;<b>rock</b></v>") == "Tom & Jerry rock"


# --------------------------------------------------------------------------- chunks


def test_chunks_follow_chapters_and_open_the_video_at_their_second():
    cues = parse_vtt(rolling_vtt(TALK, end=600)).cues
    chunks = chunk_transcript(cues, CHAPTERS)
    assert [(c.start, c.chapter) for c in chunks] == [
        (0, "Intro"), (140, "Pricing tiers"), (260, "Pricing tiers"), (400, "Distribution")]
    assert chunks[1].text.startswith("so let us talk about pricing tiers")
    assert " ".join(c.text for c in chunks) == " ".join(c.text for c in cues)  # nothing lost
    assert video_url("pR1c1ngT1er", chunks[1].start).endswith("watch?v=pR1c1ngT1er&t=140s")


def test_without_chapters_fixed_windows_cover_the_whole_real_track(vtt):
    cues = parse_vtt((vtt / "netflix_chicas_del_cable.vtt").read_bytes()).cues
    chunks = chunk_transcript(cues, None, window=120)
    assert len(chunks) == 27
    assert chunks[0].start == 7 and chunks[1].start == 120
    assert all(a.start < b.start for a, b in zip(chunks, chunks[1:], strict=False))
    assert all(c.start // 120 == int(c.end - 0.001) // 120 or c.end - c.start < 130
               for c in chunks)
    assert sum(len(c.text.split()) for c in chunks) == sum(len(c.text.split()) for c in cues)


def test_bad_chapters_fall_back_to_windows_and_late_chapters_keep_early_cues():
    cues = [Cue(t, t + 5, f"w{t}") for t in range(0, 300, 10)]
    assert chunk_transcript(cues, [{"title": "broken"}, {"start_time": "x"}]) == \
        chunk_transcript(cues, None)
    late = chunk_transcript(cues, [{"start_time": 100, "end_time": 200, "title": "Late"}])
    assert late[0].start == 0 and late[0].text.startswith("w0 ")


def test_clock():
    assert (clock(140), clock(3725), clock(0)) == ("2:20", "1:02:05", "0:00")
