"""One bad subtitle file, info dict or Telegram export never takes the sources index down.

Generated input (hypothesis): VTT garbage, truncations, invalid UTF-8 and huge lines between
good cues; yt-dlp info dicts with any field replaced by arbitrary or deeply nested values;
Telegram exports with arbitrary messages, deep nesting and bad bytes between good messages.
Each asserts that nothing but the domain's own errors (BadSubtitles, BadQuery, FetchError)
escapes, that the good items around the bad ones are indexed, and that a good file after a
bad one still gets in.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import Settings
from solograph.errors import SolographError
from solograph.sources import telegram
from solograph.sources import youtube as yt
from solograph.sources.store import writing
from solograph.sources.vtt import BadSubtitles, parse_vtt
from tests.support.sources import OTHER_ID, TALK_ID, talk_info, telegram_export

EXAMPLES = 60
FAST = 200
QUIET = settings(max_examples=EXAMPLES, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PURE = settings(max_examples=FAST, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=15)


def deep_list(n: int) -> list:
    value: list = []
    for _ in range(n):
        value = [value]
    return value


# --------------------------------------------------------------------------- VTT

GOOD_CUES = ("00:00:01.000 --> 00:00:02.000\nfirstcue words\n\n",
             "00:00:09.000 --> 00:00:10.000\nlastcue words\n\n")
bad_cues = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["00:00:03.000 --> 00:00:02.000\nbackwards\n\n", "99:99 --> x\nbad\n\n",
                     "NOTE a note\n\n", "STYLE\n::cue {}\n\n", "-->\n\n", "\n\n\n",
                     "00:00:04.000 --> 00:00:05.000\n<c><00:00:04.500>\n\n",
                     "00:00:04.000 --> 00:00:05.000 align:start\n" + "word " * 60_000 + "\n\n",
                     "1\n00:00:04.000 --> 00:00:05.000\n&amp;&#xFFFFFFFF;&#99999999;\n\n"]),
)


@PURE
@given(data=st.one_of(st.binary(max_size=500), st.text(max_size=500)))
def test_vtt_takes_any_input(data):
    try:
        transcript = parse_vtt(data)
    except BadSubtitles:
        return
    assert transcript.cues and all(c.end >= c.start for c in transcript.cues)


@PURE
@given(junk=st.lists(bad_cues, max_size=5), cut=st.integers(0, 40),
       invalid_utf8=st.booleans())
def test_good_cues_survive_the_bad_ones_between_them(junk, cut, invalid_utf8):
    body = GOOD_CUES[0] + "".join(j if j.endswith("\n\n") else j + "\n\n" for j in junk)
    data = ("WEBVTT\n\n" + body + GOOD_CUES[1]).encode("utf-8", "replace")
    if invalid_utf8:
        data = data.replace(b"words", b"wo\xff\xfeds", 1)
    texts = " ".join(c.text for c in parse_vtt(data).cues)
    assert "lastcue" in texts and ("firstcue" in texts or invalid_utf8)
    with contextlib.suppress(BadSubtitles):  # a cut track keeps what it has, or is refused
        parse_vtt(data[:len(data) - cut])


# --------------------------------------------------------------------------- yt-dlp info


@functools.cache
def _processed(video: str) -> dict:
    with tempfile.TemporaryDirectory() as work:
        info = yt.fetch_subtitles(talk_info(video), Path(work), ["en"])
        path = Path(info["requested_subtitles"]["en-orig"]["filepath"])
        info["requested_subtitles"]["en-orig"]["data"] = path.read_text()
        return info


AFTER_ID = "aFt3rV1de0s"
FIELDS = ("id", "title", "description", "channel", "uploader", "upload_date", "duration",
          "chapters", "requested_subtitles", "_solograph_subtitles", "language",
          "subtitles", "automatic_captions")
replacement = st.one_of(json_values, st.integers(200, 2_000).map(deep_list),
                        st.sampled_from([float("nan"), float("-inf"), 10 ** 400, "\x00",
                                         [{"start_time": float("-inf"), "end_time": 5}],
                                         [{"start_time": 1e308, "end_time": float("inf")}],
                                         {"en-orig": {"filepath": "/no/such\x00file"}}]))


@QUIET
@given(changes=st.dictionaries(st.sampled_from(FIELDS), replacement, min_size=1, max_size=4),
       vtt=st.one_of(st.none(), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_generated_info_dicts_never_stop_an_index_run(changes, vtt):
    pytest.importorskip("yt_dlp")
    bad = copy.deepcopy(_processed(OTHER_ID))
    bad.update(changes)
    if vtt is not None and isinstance(bad.get("requested_subtitles"), dict):
        bad["requested_subtitles"] = {"en-orig": {"data": vtt}}
        bad["_solograph_subtitles"] = {"lang": "en-orig", "auto": True}
    with tempfile.TemporaryDirectory() as tmp:
        home = Settings(home=Path(tmp) / "home")
        with writing(home.sources_db) as conn:
            yt.ingest(conn, copy.deepcopy(_processed(TALK_ID)))
            with contextlib.suppress(SolographError):
                assert isinstance(yt.ingest(conn, bad)["problems"], list)
            with contextlib.suppress(SolographError):
                yt.fetch_subtitles(bad, Path(tmp) / "work", ["en"])
            yt.ingest(conn, copy.deepcopy(_processed(AFTER_ID)))
        found = {r["video"] for r in reads.source_search(home, "pricing tiers",
                                                         source="youtube")["results"]}
        assert {TALK_ID, AFTER_ID} <= found


def test_an_info_dict_nested_past_the_limit_is_refused_by_name(tmp_path):
    info = talk_info()
    info["formats"] = deep_list(5_000)  # str() or yt-dlp's sanitize_info would recurse
    with pytest.raises(yt.FetchError, match="nested deeper than"):
        yt.fetch_subtitles(info, tmp_path, ["en"])


# --------------------------------------------------------------------------- Telegram


def deep_json(n: int) -> str:
    """A value nested `n` levels, as JSON text: json.dumps itself would recurse."""
    return "[" * n + "]" * n


def dumps(value: object) -> str:
    """JSON of `value`, with each `{"deep": n}` marker written as n nested lists."""
    return re.sub(r'\{"deep": (\d+)\}', lambda m: deep_json(int(m.group(1))),
                  json.dumps(value))


def _message(msg_id: int, text: str) -> dict:
    return {"id": msg_id, "type": "message", "date": "2026-10-02T10:15:00", "from": "Indie",
            "text": text, "text_entities": [{"type": "plain", "text": text}]}


bad_messages = st.one_of(
    json_values,
    st.dictionaries(st.sampled_from(["id", "type", "text", "text_entities", "reactions",
                                     "date", "from"]), json_values, max_size=6),
    st.integers(150, 3_000).map(lambda n: {"id": 77, "type": "message",
                                           "text_entities": {"deep": n}}),
    st.integers(150, 3_000).map(lambda n: {"id": 78, "type": "message", "text": "deep",
                                           "reactions": {"deep": n}}),
    st.sampled_from([{"id": 79, "type": "message", "text": "lone \ud800 half"},
                     {"id": 80, "type": "message", "text": "x", "reactions": 5},
                     {"id": True, "type": "message", "text": "bool id"},
                     {"id": 81, "type": "message", "text": "huge " * 50_000}]),
)


def _export(messages: list) -> dict:
    chat = telegram_export()
    chat["messages"] = [_message(100, "firstmarker pricing"), *messages,
                        _message(101, "lastmarker pricing")]
    return chat


@QUIET
@given(messages=st.lists(bad_messages, max_size=5), invalid_utf8=st.booleans(),
       nest=st.sampled_from([0, 150, 5_000]))
def test_generated_exports_keep_their_good_messages(messages, invalid_utf8, nest):
    with tempfile.TemporaryDirectory() as tmp:
        chat = _export(messages)
        if nest:
            chat["extra"] = {"deep": nest}
        data = dumps(chat).encode()
        if invalid_utf8:
            data = data.replace(b"firstmarker", b"firstmarker \xff\xfe", 1)
        bad = Path(tmp) / "bad.json"
        bad.write_bytes(data)
        good = Path(tmp) / "good.json"
        good.write_text(json.dumps({**telegram_export(), "id": 42,
                                    "messages": [_message(5, "aftermarker")]}))
        home = Settings(home=Path(tmp) / "home")
        with writing(home.sources_db) as conn:
            report = telegram.import_export(conn, bad)
            assert report["indexed"] >= 2
            assert telegram.import_export(conn, good)["indexed"] == 1
        for word in ("firstmarker", "lastmarker", "aftermarker"):
            assert reads.source_search(home, word, source="telegram")["count"] == 1, word


@QUIET
@given(cut=st.integers(1, 400))
def test_a_truncated_export_is_refused_and_the_next_one_gets_in(cut, tmp_path_factory):
    folder = tmp_path_factory.mktemp("tg")
    data = json.dumps(_export([])).encode()
    (folder / "cut.json").write_bytes(data[:-cut])
    (folder / "good.json").write_bytes(data)
    with writing(folder / "sources.db") as conn:
        with contextlib.suppress(SolographError):
            telegram.import_export(conn, folder / "cut.json")
        assert telegram.import_export(conn, folder / "good.json")["indexed"] == 2


def test_deeply_nested_telegram_json_is_read_around(tmp_path):
    """Measured: a traceback (RecursionError) out of import-telegram."""
    chat = _export([{"id": 7, "type": "message", "text_entities": {"deep": 100_000}}])
    path = tmp_path / "result.json"
    path.write_text(dumps(chat))
    home = Settings(home=tmp_path / "home")
    with writing(home.sources_db) as conn:
        report = telegram.import_export(conn, path)
    assert report["indexed"] == 2 and report["reasons"]["too_deep"] == 1
    assert reads.source_search(home, "lastmarker", source="telegram")["count"] == 1

