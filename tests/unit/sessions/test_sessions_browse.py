"""The session list and the reader's pages (session_list, session_read) over a real index."""

from __future__ import annotations

import pytest

from solograph import reads
from solograph.config import Settings
from solograph.errors import BadQuery, UnknownProject
from tests.support.transcripts import Transcripts


@pytest.fixture
def settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home", claude_projects=tmp_path / "projects")
    t = Transcripts(s.claude_projects)
    long = t.session("/home/dev/code/app", "aaaa0000-0000-0000-0000-000000000001")
    for i in range(250):
        long.prompt(f"step {i} of the migration")
        long.reply(f"done {i}" + (" the needle is here" if i == 180 else ""),
                   tools=[("Bash", {"command": f"make step-{i}"})] if i == 3 else [])
    long.flush()
    t.conversation("/home/dev/code/web", "fix the webhook", "Done.",
                   session_id="bbbb0000-0000-0000-0000-000000000002")
    return s


def test_the_list_is_newest_first_with_what_a_person_needs(settings):
    answer = reads.session_list(settings)
    assert answer["total"] == 2 and answer["count"] == 2
    first, second = answer["sessions"]
    assert first["last"] >= second["last"]
    assert {first["project"], second["project"]} == {"app", "web"}
    for s in answer["sessions"]:
        assert {"session", "title", "first", "last", "messages", "archived"} <= set(s)
    assert answer["freshness"]["complete"] is True
    only = reads.session_list(settings, project="web")
    assert [s["project"] for s in only["sessions"]] == ["web"]
    assert reads.session_list(settings, limit=1, offset=1)["sessions"] == [second]
    with pytest.raises(UnknownProject):
        reads.session_list(settings, project="nope")


def test_pages_follow_the_conversation_in_order(settings):
    reads.session_list(settings)  # syncs
    page = reads.session_read(settings, "aaaa0000", size=100)
    assert page["total"] == 500 and page["offset"] == 0 and page["count"] == 100
    assert [m["n"] for m in page["messages"]] == list(range(100))
    assert page["messages"][0]["text"] == "step 0 of the migration"
    assert page["messages"][7]["tools"] == [{"name": "Bash", "input": {"command": "make step-3"}}]
    last = reads.session_read(settings, "aaaa0000", offset=450, size=100)
    assert last["count"] == 50 and last["messages"][-1]["text"] == "done 249"
    assert "match" not in last["messages"][0]


def test_a_query_opens_the_page_of_its_first_match(settings):
    reads.session_list(settings)
    page = reads.session_read(settings, "aaaa0000", query="needle", size=100)
    assert page["first_match"] == 361  # the reply of step 180
    assert page["offset"] == 300
    marked = [m["n"] for m in page["messages"] if m["match"]]
    assert marked == [361]
    assert reads.session_read(settings, "aaaa0000", query="absent words")["first_match"] is None


def test_bad_reads_are_the_callers_error(settings):
    reads.session_list(settings)
    with pytest.raises(BadQuery):
        reads.session_read(settings, "zzzz9999")
    with pytest.raises(BadQuery):
        reads.session_read(settings, "aaaa0000", offset=-1)
    with pytest.raises(BadQuery):
        reads.session_read(settings, " ")
