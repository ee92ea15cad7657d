"""The sources store and its answers: ranking (all words first, upvotes at most +15%), each
video once, source filter, list, tags, related, delete, topics, Telegram, and redaction of
every stored text (re-cleaned on open when the rules are newer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery, NotFound, NotIndexed
from solograph.index import Handle
from solograph.sources.answers import source_search
from solograph.sources.store import Document, open_reader, put, writing
from solograph.sources.sync import delete_source, import_telegram
from solograph.sources.topics import add_topic, tag_text
from solograph.store import stored_rules
from solograph.text.secrets import RULES_VERSION
from tests.support.sources import FILLER, TALK_ID, build_sources, telegram_export

pytest.importorskip("yt_dlp")


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def built(home: Settings, tmp_path: Path) -> Settings:
    build_sources(home, tmp_path)
    return home


def filler(count: int = 40) -> list[Document]:
    return [Document("notes", f"n{i}", f"{name} {i}", f"https://notes.example/{i}",
                     f"{name}: {tagline}") for i, (name, tagline) in
            enumerate((FILLER * (count // len(FILLER) + 1))[:count])]


def test_no_index_is_a_clear_error(home):
    with pytest.raises(NotIndexed) as caught:
        reads.source_search(home, "pricing")
    assert "index-youtube" in caught.value.hint


def test_all_words_come_before_some_words(built):
    results = reads.source_search(built, "pricing tiers", limit=20)["results"]
    matches = [r["match"] for r in results]
    assert matches == sorted(matches, key=["all", "some"].index)
    assert {r["id"] for r in results if r["match"] == "some"} >= {"producthunt/quietpricing"}


def test_each_video_appears_once(built):
    results = reads.source_search(built, "distribution product twitter", limit=50)["results"]
    videos = [r["video"] for r in results if r["source"] == "youtube"]
    assert len(videos) == len(set(videos)) == 2


def test_source_filter_and_fts_syntax_is_just_words(built):
    only = reads.source_search(built, "pricing", source="telegram")["results"]
    assert only and {r["source"] for r in only} == {"telegram"}
    odd = reads.source_search(built, 'NEAR("pricing" OR) tiers*', limit=3)
    assert odd["count"] == 3
    with pytest.raises(BadQuery):
        reads.source_search(built, "pricing", source="../etc")
    with pytest.raises(BadQuery):
        reads.source_search(built, "!!!")


def test_upvotes_lift_a_launch_by_at_most_15_percent(home):
    text = "Usage based billing for API products"
    with writing(home.sources_db) as conn:
        put(conn, [*filler(),
                   Document("producthunt", "plain", "Meter", "u1", text, upvotes=0),
                   Document("producthunt", "loved", "Meter", "u2", text, upvotes=25_000),
                   Document("producthunt", "some", "Meter", "u3", text, upvotes=100)])
    scores = {r["id"]: r["score"] for r in
              reads.source_search(home, "usage billing", limit=5)["results"]}
    base = scores["producthunt/plain"]
    assert scores["producthunt/loved"] == pytest.approx(base * 1.15, rel=1e-3)
    assert base < scores["producthunt/some"] < base * 1.15
    assert list(scores)[0] == "producthunt/loved"


def test_upvotes_never_beat_a_clearly_better_match(home):
    with writing(home.sources_db) as conn:
        put(conn, [*filler(),
                   Document("producthunt", "exact", "Invoice reminders",
                            "u1", "Invoice reminders: automatic invoice reminders", upvotes=0),
                   Document("producthunt", "famous", "Everything app", "u2",
                            "A huge all in one workspace with docs, chat, tasks, wikis, "
                            "calendars, goals and an invoice template", upvotes=50_000)])
    first = reads.source_search(home, "invoice reminders")["results"][0]
    assert first["id"] == "producthunt/exact"


def test_list_tags_and_related(built):
    listed = reads.source_search(built, action="list")
    by_source = {s["source"]: s for s in listed["sources"]}
    assert set(by_source) == {"producthunt", "trustmrr", "telegram", "youtube"}
    assert by_source["youtube"]["items"] == 2 and by_source["youtube"]["documents"] > 2
    assert by_source["telegram"]["last_run"]["indexed"] == 2
    tags = {t["tag"]: t for t in reads.source_search(built, action="tags")["tags"]}
    assert tags["pricing"]["videos"] >= 1 and "pricing" in tags["pricing"]["keywords"]
    related = reads.source_search(built, TALK_ID, action="related")
    assert related["video"]["video"] == TALK_ID and related["count"] == 1
    assert related["results"][0]["shared"] and list(related["results"][0])[:3] == \
        ["url", "title", "content"]
    with pytest.raises(NotFound):
        reads.source_search(built, "zzzzzzzzzzz", action="related")
    with pytest.raises(BadQuery):
        reads.source_search(built, action="related")
    with pytest.raises(BadQuery):
        reads.source_search(built, "x", action="explode")


def test_titles_count_double_for_topics():
    topics = {"pricing": ["price"], "growth": ["growth"]}
    assert tag_text("Pricing", "we grew", topics) == {}  # 2 < MIN_SCORE
    assert tag_text("Pricing", "the price", topics) == {"pricing": 3.0}
    assert tag_text("", "growth growth growth", topics) == {"growth": 3.0}


def test_a_user_topic_tags_every_video_again(built):
    with writing(built.sources_db) as conn:
        report = add_topic(conn, "customers", ["customer", "grandfather"])
    assert report["videos_tagged"] >= 1
    tags = {t["tag"]: t["videos"] for t in reads.source_search(built, action="tags")["tags"]}
    assert tags["customers"] == 1
    with pytest.raises(BadQuery), writing(built.sources_db) as conn:
        add_topic(conn, "empty", ["   "])


def test_delete_one_document(built):
    assert delete_source(built, "producthunt/tierwise")["documents"] == 1
    ids = [r["id"] for r in reads.source_search(built, "tierwise")["results"]]
    assert "producthunt/tierwise" not in ids
    with pytest.raises(NotFound):
        delete_source(built, "producthunt/tierwise")
    with pytest.raises(NotFound):  # a bare name is a whole source: none is called that
        delete_source(built, "no-slash")
    with pytest.raises(BadQuery):
        delete_source(built, "/")


# --------------------------------------------------------------------------- telegram


def test_telegram_export_becomes_linked_documents(home, tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(telegram_export()), encoding="utf-8")
    report = import_telegram(home, path, username="@indiepricing")
    assert report["indexed"] == 2 and report["chats"] == ["Indie Pricing Notes"]
    hit = reads.source_search(home, "magic number")["results"][0]
    assert hit["url"] == "https://t.me/indiepricing/2" and hit["upvotes"] == 44
    assert hit["meta"]["links"] == ["https://example.com/tiers"]
    assert hit["date"] == "2026-10-02T10:15:00"


def test_full_account_exports_and_bad_files(home, tmp_path):
    full = tmp_path / "full.json"
    full.write_text(json.dumps({"about": "x", "chats": {"list": [telegram_export()]}}))
    assert import_telegram(home, full)["indexed"] == 2
    hit = reads.source_search(home, "magic number")["results"][0]
    assert hit["url"] == "https://t.me/c/1766224901/2"
    for name, content in (("bad.json", "{not json"), ("html.json", '{"chats": 3}')):
        (tmp_path / name).write_text(content)
        with pytest.raises(BadQuery):
            import_telegram(home, tmp_path / name)
    with pytest.raises(BadQuery):
        import_telegram(home, tmp_path / "missing.json")


# --------------------------------------------------------------------------- secrets


def test_every_source_text_is_redacted(built):
    conn = open_reader(built.sources_db)
    try:
        dump = " ".join(str(v) for table in ("documents", "videos", "runs")
                        for row in conn.execute(f"SELECT * FROM {table}") for v in tuple(row))
    finally:
        conn.close()
    for secret in ("sk-ant-api03-abcdefghij", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"):
        assert secret not in dump
    assert dump.count("[REDACTED]") >= 2


def test_a_telegram_title_cut_through_a_token_keeps_none_of_it(home, tmp_path):
    # A title is the message's first line cut to MAX_TITLE characters: a token across the cut
    # used to leave its head, searchable, in the title.
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    for before in range(55, 95, 4):
        first = "w" * before + " " + token + " rotated"
        export = {"name": "Ops", "type": "public_channel", "id": 1, "messages": [
            {"id": before, "type": "message", "date": "2026-10-03T11:00:00",
             "text": first + "\nsecond line"}]}
        path = tmp_path / "result.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        import_telegram(home, path)
    conn = open_reader(home.sources_db)
    try:
        titles = [r[0] for r in conn.execute("SELECT title FROM documents")]
        words = " ".join(r[0] for r in conn.execute("SELECT title_words FROM documents"))
    finally:
        conn.close()
    assert len(titles) == 10 and all(token[:8] not in t for t in titles)
    assert "ghp" not in words.split()


def test_an_index_written_under_older_rules_is_cleaned_on_open(home, monkeypatch):
    leaked = "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 in chat"
    with writing(home.sources_db) as conn:
        put(conn, filler(5))
        # What an older writer (or older rules) left: raw text, its stems in the index.
        conn.execute("UPDATE documents SET text = ?, words = ?, metadata = ? WHERE key = ?",
                     (leaked, "bot 123456789 aahdqtcvch1vgwjxfseofsas0k5paldsaw0 in chat",
                      json.dumps({"note": leaked}), "notes/n1"))
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'rules_version'")
    conn = open_reader(home.sources_db)  # a reader triggers the cleaning once
    try:
        text, meta = conn.execute("SELECT text, metadata FROM documents WHERE key = 'notes/n1'"
                                  ).fetchone()
        assert "AAHdq" not in text and "AAHdq" not in meta and "[REDACTED]" in text
        assert conn.execute("SELECT COUNT(*) FROM documents_fts WHERE documents_fts MATCH "
                            "'aahdqtcvch1vgwjxfseofsas0k5paldsaw0'").fetchone()[0] == 0
        assert stored_rules(conn) == RULES_VERSION
    finally:
        conn.close()


def test_answer_validates_its_action(built):
    assert reads.source_search(built, "pricing", limit=10_000)["count"] <= 100
    conn = open_reader(built.sources_db)
    try:
        with pytest.raises(BadQuery):
            source_search(Handle(conn, built), query="   ")
        with pytest.raises(BadQuery):
            source_search(Handle(conn, built), query="x", action="nope")
    finally:
        conn.close()
