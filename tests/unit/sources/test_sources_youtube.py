"""The whole YouTube path offline: a saved info dict goes through yt-dlp's own processing
(`YoutubeDL.process_ie_result`, subtitle selection and the .vtt side file, no network), then
our ingest, then a search whose hit opens the video at the right second."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import NotFound
from solograph.sources import youtube as yt
from solograph.sources.store import open_store, writing
from solograph.sources.sync import delete_source, index_youtube
from tests.support.procs import solograph_cmd
from tests.support.sources import OTHER_ID, SECRET, TALK, TALK_ID, talk_info

pytest.importorskip("yt_dlp")


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


def test_yt_dlp_writes_the_chosen_subtitles_without_network(tmp_path):
    info = yt.fetch_subtitles(talk_info(), tmp_path / "work", ["en", "ru"])
    requested = info["requested_subtitles"]
    assert list(requested) == ["en-orig"]  # the untranslated automatic captions, one language
    written = Path(requested["en-orig"]["filepath"])
    assert written.name == f"{TALK_ID}.en-orig.vtt" and written.read_text().startswith("WEBVTT")
    assert info["chapters"][1]["title"] == "Pricing tiers"
    json.dumps(info)  # sanitize_info: the whole dict is JSON-safe, ready to save as a fixture


def test_manual_subtitles_win_over_automatic_ones():
    assert yt.choose_subtitles(talk_info(manual=True), ["en"]) == ("en", False)
    assert yt.choose_subtitles(talk_info(), ["ru", "en"]) == ("en-orig", True)
    assert yt.choose_subtitles({"automatic_captions": {"de": [{}]}}, ["en"]) is None


def test_saved_info_dict_to_a_search_hit_at_the_right_second(home, tmp_path):
    with writing(home.sources_db) as conn:
        report = yt.ingest(conn, yt.fetch_subtitles(talk_info(), tmp_path, ["en"]))
    assert report["subtitles"] == "en (auto)" and report["problems"] == []
    assert report["chunks"] == 4 and "pricing" in report["tags"]
    answer = reads.source_search(home, "pricing tiers", source="youtube")
    assert answer["count"] == 1  # one video, once
    hit = answer["results"][0]
    assert list(hit)[:3] == ["url", "title", "content"]
    assert hit["url"] == f"https://www.youtube.com/watch?v={TALK_ID}&t=140s"
    assert hit["t"] == 140 and hit["title"] == "Pricing tiers for tiny SaaS — Pricing tiers"
    assert hit["content"].startswith("[2:20] so let us talk about pricing tiers")
    later = reads.source_search(home, "grandfather customers", source="youtube")["results"][0]
    assert later["url"].endswith("&t=260s")


def test_every_text_of_a_video_is_redacted(home, tmp_path):
    info = talk_info(description=f"Slides and key: {SECRET}")
    with writing(home.sources_db) as conn:
        yt.ingest(conn, yt.fetch_subtitles(info, tmp_path, ["en"]))
        stored = " ".join(" ".join(map(str, row)) for table in ("documents", "videos")
                          for row in conn.execute(f"SELECT * FROM {table}"))
    assert SECRET not in stored and "[REDACTED]" in stored
    hit = reads.source_search(home, "never paste your key")["results"][0]
    assert SECRET not in json.dumps(hit) and hit["url"].endswith("&t=140s")


def test_a_video_without_usable_subtitles_is_still_found_by_title(home, tmp_path):
    info = talk_info(OTHER_ID, title="Distribution beats product", chapters=None)
    info["automatic_captions"] = {"en": [{"ext": "vtt", "data": "this is not webvtt"}]}
    with writing(home.sources_db) as conn:
        report = yt.ingest(conn, yt.fetch_subtitles(info, tmp_path, ["en"]))
        row = conn.execute("SELECT subtitles, chunks FROM videos").fetchone()
    assert report["chunks"] == 0 and report["problems"][0].startswith("subtitles unusable")
    assert tuple(row) == ("", 1)
    hit = reads.source_search(home, "distribution beats")["results"][0]
    assert hit["url"] == f"https://www.youtube.com/watch?v={OTHER_ID}" and "t" not in hit


def test_index_youtube_skips_known_videos_and_reports_failures(home, tmp_path, monkeypatch):
    """The job around ingest; only yt-dlp's network call is replaced, by the saved dict."""
    saved = {TALK_ID: talk_info()}

    def extract(target: str) -> dict:
        vid = yt.video_id(target)
        if vid not in saved:
            raise yt.FetchError(f"could not read video {vid}: HTTP Error 404")
        return json.loads(json.dumps(saved[vid]))

    monkeypatch.setattr(yt, "extract", extract)
    urls = [f"https://youtu.be/{TALK_ID}", "https://www.youtube.com/watch?v=AAAAAAAAAAA",
            "not a video"]
    first = index_youtube(home, urls)
    assert [r["video"] for r in first["indexed"]] == [TALK_ID]
    assert [p["reason"] for p in first["problems"]] == [
        "not a YouTube video URL or id", "could not read video AAAAAAAAAAA: HTTP Error 404"]
    again = index_youtube(home, urls[:1])
    assert again["indexed"] == [] and again["skipped"] == [TALK_ID]
    forced = index_youtube(home, urls[:1], force=True)
    assert [r["video"] for r in forced["indexed"]] == [TALK_ID]
    listed = reads.source_search(home, action="list", source="youtube")
    assert listed["sources"][0]["items"] == 1 and listed["sources"][0]["last_run"]["indexed"] == 1
    assert listed["results"][0]["id"] == f"youtube/{TALK_ID}"


def test_ids_and_channel_urls():
    for target in (TALK_ID, f"https://www.youtube.com/watch?v={TALK_ID}&t=5",
                   f"https://youtu.be/{TALK_ID}", f"https://www.youtube.com/shorts/{TALK_ID}"):
        assert yt.video_id(target) == TALK_ID
    assert yt.video_id("https://example.com/watch") is None
    assert yt.channel_url("GregIsenberg") == "https://www.youtube.com/@GregIsenberg/videos"
    assert yt.channel_url("https://www.youtube.com/@x/") == "https://www.youtube.com/@x/videos"


def test_delete_removes_a_video_with_its_chunks_and_tags(home, tmp_path):
    with writing(home.sources_db) as conn:
        yt.ingest(conn, yt.fetch_subtitles(talk_info(), tmp_path, ["en"]))
    assert delete_source(home, f"youtube/{TALK_ID}") == {
        "deleted": f"youtube/{TALK_ID}", "documents": 5, "videos": 1}
    conn = open_store(home.sources_db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM video_tags").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM documents_fts WHERE documents_fts MATCH "
                            "'price'").fetchone()[0] == 0
    finally:
        conn.close()


def test_the_transcript_sentences_all_arrive(home, tmp_path):
    with writing(home.sources_db) as conn:
        yt.ingest(conn, yt.fetch_subtitles(talk_info(), tmp_path, ["en"]))
        text = " ".join(r[0] for r in conn.execute(
            "SELECT text FROM documents WHERE key NOT LIKE '%@about' ORDER BY id"))
    for _, sentence in TALK:
        if SECRET not in sentence:
            assert sentence in text


def test_searxng_finds_a_channels_videos_when_listing_fails(home, monkeypatch):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    asked: list[str] = []

    class SearXNG(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            asked.append(self.path)
            body = json.dumps({"query": "x", "results": [
                {"url": f"https://www.youtube.com/watch?v={TALK_ID}", "title": "a"},
                {"url": "https://example.com/not-a-video", "title": "b"},
                {"url": f"https://youtu.be/{TALK_ID}", "title": "dup"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), SearXNG)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def no_listing(channel: str, limit: int) -> list[str]:
        raise yt.FetchError(f"could not list {channel}: Sign in to confirm you're not a bot")

    monkeypatch.setattr(yt, "list_channel", no_listing)
    monkeypatch.setattr(yt, "extract", lambda target: talk_info())
    try:
        searxng = f"http://127.0.0.1:{server.server_address[1]}"
        report = index_youtube(home.with_(searxng_url=searxng), channel="TinyFounders")
    finally:
        server.shutdown()
        server.server_close()
    assert [r["video"] for r in report["indexed"]] == [TALK_ID]
    assert report["problems"][0]["url"] == "https://www.youtube.com/@TinyFounders/videos"
    assert "format=json" in asked[0] and "TinyFounders" in asked[0]


def save_like_yt_dlp(folder: Path, info: dict, name: str) -> Path:
    """What `yt-dlp --write-info-json --write-subs --skip-download` leaves: `<name>.info.json`
    and `<name>.<lang>.vtt` beside it (the .vtt written by yt-dlp's own processing)."""
    work = folder / "work"
    processed = yt.fetch_subtitles(info, work, ["en"])
    for lang, sub in processed["requested_subtitles"].items():
        Path(sub["filepath"]).rename(folder / f"{name}.{lang}.vtt")
        sub["filepath"] = f"/somewhere/else/{name}.{lang}.vtt"  # where yt-dlp ran, not here
    path = folder / f"{name}.info.json"
    path.write_text(json.dumps(processed), encoding="utf-8")
    return path


def test_a_saved_info_dict_with_its_subtitles_beside_it_is_indexed_offline(home, tmp_path):
    saved = save_like_yt_dlp(tmp_path, talk_info(), f"Pricing tiers [{TALK_ID}]")
    report = index_youtube(home, import_files=[saved])
    assert [r["video"] for r in report["indexed"]] == [TALK_ID] and report["failed"] == 0
    assert report["indexed"][0]["subtitles"] == "en (auto)"
    assert report["indexed"][0]["chunks"] == 4
    hit = reads.source_search(home, "grandfather customers")["results"][0]
    assert hit["url"].endswith("&t=260s")


def test_a_saved_info_dict_without_subtitles_is_found_by_title(home, tmp_path):
    info = talk_info(OTHER_ID, title="Distribution beats product")
    path = tmp_path / "bare.info.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    report = index_youtube(home, import_files=[path])
    assert report["indexed"][0]["chunks"] == 0
    assert report["problems"][0]["reason"] == "no subtitles in the requested languages"
    assert reads.source_search(home, "distribution beats")["count"] == 1


def test_index_youtube_fails_when_every_video_failed(tmp_path):
    env = {**os.environ, "SOLOGRAPH_HOME": str(tmp_path / "home")}
    broken = tmp_path / "broken.info.json"
    broken.write_text("{not json", encoding="utf-8")
    done = subprocess.run(solograph_cmd("sources", "index-youtube", "--import-file", str(broken),
                                        "not-a-video", "--json"),
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == 2 and report["indexed"] == []
    good = save_like_yt_dlp(tmp_path, talk_info(), TALK_ID)
    mixed = subprocess.run(solograph_cmd("sources", "index-youtube", "--import-file", str(good),
                                         "--import-file", str(broken)),
                           env=env, capture_output=True, text=True, timeout=60)
    assert mixed.returncode == 0 and "1 video indexed" in mixed.stdout


def test_delete_a_whole_source(home, tmp_path):
    from tests.support.sources import build_sources

    build_sources(home, tmp_path)
    report = delete_source(home, "telegram")
    assert report["deleted"] == "telegram" and report["documents"] > 0
    listed = {s["source"] for s in reads.source_search(home, action="list")["sources"]}
    assert "telegram" not in listed and "youtube" in listed
    videos = delete_source(home, "youtube")
    assert videos["videos"] == 2
    assert reads.source_search(home, action="tags")["tags"]  # the topics table stays
    with pytest.raises(NotFound):
        delete_source(home, "youtube")
