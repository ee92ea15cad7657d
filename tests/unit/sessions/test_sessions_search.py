"""Session ranking (all words first, typo respelling, three passes, the asker left out), reads
of one session, exports, and the answers the CLI, HTTP and MCP adapters return."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph import reads
from solograph.config import PRIVATE_MARKERS
from solograph.errors import BadQuery, NotIndexed
from solograph.sessions.policy import Policy
from solograph.sessions.search import project_scope, search
from solograph.sessions.store import open_index
from solograph.sessions.sync import sync
from solograph.text.spelling import edit_distance, respell
from solograph_services.cli import main as cli
from tests.support.transcripts import Transcripts

POLICY = Policy(temp_roots=("/nowhere-temp",), markers=PRIVATE_MARKERS)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("sessions")
    t = Transcripts(base / "projects")
    s = {
        "all": t.conversation("/home/dev/alpha", "please add a webhook retry with backoff",
                              "Added the retry loop."),
        "many": t.conversation("/home/dev/alpha", "the webhook signature webhook check",
                               "webhook handler: webhook webhook webhook verified"),
        "spread": t.conversation("/home/dev/beta/sub", "the webhook fails on 502",
                                 "We should retry on 5xx responses."),
        "other": t.conversation("/home/dev/beta", "database migration for invoices"),
        "typo": t.conversation("/home/dev/ops", "kubrenetes migration plan"),
        "k1": t.conversation("/home/dev/ops", "kubernetes migration checklist"),
        "k2": t.conversation("/home/dev/ops", "kubernetes cluster upgrade"),
        "k3": t.conversation("/home/dev/ops", "kubernetes ingress rules"),
        "ru": t.conversation("/home/dev/ru", "построить граф зависимостей проекта"),
    }
    conn = open_index(base / "home" / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    yield conn, {k: v.id for k, v in s.items()}, base
    conn.close()


def ranked(conn, query, **kw):
    terms, hits = search(conn, query, **kw)
    return terms, [h["session"] for h in hits], hits


def test_sessions_holding_every_word_come_first(world):
    conn, ids, _ = world
    _, order, hits = ranked(conn, "webhook retry")
    assert set(order[:2]) == {ids["all"], ids["spread"]}
    assert order[2] == ids["many"]  # the best BM25 for one word still comes after
    assert [h["match"] for h in hits[:3]] == ["all", "all", "some"]
    assert ids["other"] not in order
    assert all(h["score"] > 0 for h in hits)


def test_stemmed_prefixes_in_english_and_russian(world):
    conn, ids, _ = world
    assert ranked(conn, "webhooks retrying")[1][:2] == ranked(conn, "webhook retry")[1][:2]
    assert ranked(conn, "графами зависимости")[1] == [ids["ru"]]


def test_typo_respelled_and_three_passes(world):
    conn, ids, _ = world
    terms, order, hits = ranked(conn, "kubrenetes migration")
    assert terms.respelled == {"kubrenet": "kubernet"}
    assert order[0] == ids["typo"]  # every word as written
    assert order[1] == ids["k1"]  # every word in either spelling
    assert [h["match"] for h in hits[:2]] == ["all", "respelled"]
    assert set(order[2:]) >= {ids["k2"], ids["k3"], ids["other"]}  # any word
    assert {h["match"] for h in hits[2:]} == {"some"}
    _, order, _ = ranked(conn, "kubrenetes cluster")
    assert order[0] == ids["k2"]


def test_common_and_short_words_are_not_respelled(world):
    conn, _, _ = world
    assert ranked(conn, "kubernetes")[0].respelled == {}
    assert ranked(conn, "kubr")[0].respelled == {}


def test_the_asking_session_is_left_out(world):
    conn, ids, _ = world
    _, order, _ = ranked(conn, "webhook retry", scope=project_scope("", exclude=ids["all"]))
    assert ids["all"] not in order and order[0] == ids["spread"]


def test_project_takes_its_subfolders(world):
    conn, ids, _ = world
    _, order, _ = ranked(conn, "webhook", scope=project_scope("beta"))
    assert order == [ids["spread"]]
    _, order, _ = ranked(conn, "webhook", scope=project_scope("alpha"))
    assert set(order) == {ids["all"], ids["many"]}


@pytest.mark.parametrize("query", [
    'webhook AND "retry', "NEAR(webhook retry)", "webhook OR", "(((", "col:webhook",
    "-webhook ^retry", "webhook*", "'; DROP TABLE sessions; --", '"""', "a:b:c {x} [y]",
])
def test_fts_syntax_in_a_query_is_never_an_error(world, query):
    conn, _, _ = world
    try:
        search(conn, query)
    except BadQuery:
        pass
    except sqlite3.Error as exc:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"{query!r} raised {exc!r}")


@pytest.mark.parametrize("query", ["*", "   ", "!!! ???"])
def test_a_query_without_words_is_a_bad_query(world, query):
    conn, _, _ = world
    with pytest.raises(BadQuery):
        search(conn, query)


@pytest.mark.parametrize(("a", "b", "d"), [
    ("kubrenet", "kubernet", 1), ("proverk", "prvoerk", 1), ("index", "indx", 1),
    ("session", "sesion", 1), ("abc", "abc", 0), ("graph", "grape", 1),
    ("abcdef", "badcfe", 3), ("retry", "xxxxx", 5),
])
def test_edit_distance(a, b, d):
    assert edit_distance(a, b, 2) == min(d, 3)


def test_respell_needs_a_rare_word_and_a_common_neighbour(world):
    conn, _, _ = world
    assert respell(conn, "chunks_fts", "chunks_vocab", "kubrenet") == "kubernet"
    assert respell(conn, "chunks_fts", "chunks_vocab", "kubernet") is None
    assert respell(conn, "chunks_fts", "chunks_vocab", "zzzzzzz") is None


# --------------------------------------------------------------------------- reads


@pytest.fixture
def settings_with(settings, world):
    _, _, base = world
    return settings.with_(claude_projects=base / "projects")


def test_session_search_answer(settings_with, world):
    _, ids, _ = world
    answer = reads.session_search(settings_with, "webhook retry", limit=5)
    assert set(answer) == {"query", "project", "count", "respelled", "results",
                           "freshness"}
    assert answer["count"] == len(answer["results"]) <= 5
    hit = answer["results"][0]
    assert set(hit) == {"session", "agent", "project", "cwd", "title", "first", "last",
                        "messages", "archived", "transcript", "resume", "snippet", "score",
                        "match"}
    assert hit["agent"] == "claude"
    assert hit["project"] in ("alpha", "sub")
    assert hit["resume"] == f"cd '{hit['cwd']}' && claude --resume {hit['session']}"
    assert "webhook" in hit["snippet"].lower()
    json.loads(reads.to_json(answer))
    excluded = reads.session_search(settings_with, "webhook retry",
                                    exclude_session=ids["all"])
    assert ids["all"] not in [r["session"] for r in excluded["results"]]
    scoped = reads.session_search(settings_with, "webhook", project="beta")
    assert [r["session"] for r in scoped["results"]] == [ids["spread"]]


def test_reading_one_session_for_a_query(settings_with, world):
    _, ids, _ = world
    answer = reads.session_search(settings_with, "retry responses",
                                 session=ids["spread"][:8])
    assert answer["session"]["session"] == ids["spread"]
    messages = answer["messages"]
    assert [m["match"] for m in messages] == [False, True]
    assert messages[0]["text"] == "the webhook fails on 502"  # the neighbour before
    with pytest.raises(BadQuery):
        reads.session_search(settings_with, "retry", session="nope-nope-nope")


def test_export_markdown_and_jsonl_also_for_an_archived_session(settings, tmp_path):
    t = Transcripts(tmp_path / "projects")
    s = t.session("/home/dev/app")
    s.prompt("export me please")
    s.reply("Sure.", tools=[("Bash", {"command": "ls -la"})])
    s.flush()
    settings = settings.with_(claude_projects=t.root)
    reads.session_search(settings, "export")
    s.path.unlink()
    md = reads.session_export(settings, s.id, fmt="markdown")
    assert md["archived"] is True
    assert md["content"].startswith("# export me please\n")
    assert "## User · " in md["content"] and "- **Bash** `command: ls -la`" in md["content"]
    jl = reads.session_export(settings, s.id, fmt="jsonl")
    lines = [json.loads(x) for x in jl["content"].splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["transcript"] == "deleted"
    assert [(x["role"], x["text"]) for x in lines[1:]] == [("user", "export me please"),
                                                           ("assistant", "Sure.")]
    assert lines[2]["tools"] == [{"name": "Bash", "input": {"command": "ls -la"}}]
    with pytest.raises(BadQuery):
        reads.session_export(settings, s.id, fmt="html")


def test_no_transcripts_and_nothing_indexed_is_not_indexed(settings, tmp_path):
    with pytest.raises(NotIndexed):
        reads.session_search(settings.with_(claude_projects=tmp_path / "none"), "anything")


def test_cli_sessions_export_and_sync(world, settings_with, monkeypatch, capsys):
    _, ids, _ = world
    monkeypatch.setenv("SOLOGRAPH_HOME", str(settings_with.home))
    monkeypatch.setenv("CLAUDE_PROJECTS_PATH", str(settings_with.claude_projects))
    assert cli.main(["sync-sessions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions"] == 9
    assert cli.main(["sessions", "webhook", "retry", "-n", "2", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["query"] == "webhook retry" and answer["count"] == 2
    assert cli.main(["sessions", "webhook retry"]) == 0
    assert "claude --resume" in capsys.readouterr().out
    assert cli.main(["sessions", "export", ids["ru"], "--format", "jsonl"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[1])["text"].startswith("построить")
    assert cli.main(["sessions", "webhook", "--format", "jsonl"]) == 1
    assert cli.main(["sessions", "retry", "--session", ids["spread"]]) == 0
    assert ">>" in capsys.readouterr().out


@pytest.fixture(scope="module")
def siblings(tmp_path_factory):
    """Sessions of one project sharing their vocabulary, as sibling worktrees do."""
    base = tmp_path_factory.mktemp("siblings")
    t = Transcripts(base / "projects")
    filler = " ".join(f"step{i} done, tests pass" for i in range(60))
    s = {
        "ids": t.conversation("/home/dev/spotter", "close spotter-4te.2 and spotter-0p7",
                              "Closed spotter-4te.2; spotter-0p7 stays open."),
        "parts": t.conversation("/home/dev/spotter", "spotter: 4 tests on te branch, 2 left",
                                "spotter 0 failures; p7 of the plan; te not here: 2 te 4"),
        "camel": t.conversation("/home/dev/spotter", "rename the parser",
                                "parseHTTPResponse now returns the status"),
        "words": t.conversation("/home/dev/spotter", "parse the http response body",
                                "parse, http and response: " + filler),
        "together": t.conversation("/home/dev/spotter", "why is it flaky",
                                   filler + " The webhook retry waits on a jitter clock."),
        # More of each word in fewer words, so BM25 alone would put it first, but never
        # in one message.
        "scattered": t.conversation("/home/dev/spotter", "webhook webhook webhook logs",
                                    "ok", "retry retry retry budget", "ok",
                                    "clock clock clock skew"),
    }
    for i in range(8):  # other work, so that the words searched are rare
        t.conversation("/home/dev/other", f"invoice export {i}", "CSV written.")
    conn = open_index(base / "home" / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    yield conn, {k: v.id for k, v in s.items()}
    conn.close()


@pytest.mark.parametrize("query", ["spotter_0p7", "spotter-0p7", "spotter 4te 2",
                                   "spotter-4te.2", "SPOTTER 4TE 2"])
def test_an_id_matches_its_parts_side_by_side(siblings, query):
    conn, ids = siblings
    terms, order, hits = ranked(conn, query)
    assert order[0] == ids["ids"] and hits[0]["match"] == "phrase"
    assert ids["parts"] in order and hits[order.index(ids["parts"])]["match"] != "phrase"


def test_a_run_together_word_is_cut_into_words_the_index_knows(siblings):
    conn, ids = siblings
    terms, order, hits = ranked(conn, "parsehttpresponse")
    assert terms.respelled == {"parsehttprespons": "pars http respons"}
    assert order[0] == ids["camel"]  # side by side, as the identifier has them
    assert "parseHTTPResponse" in hits[0]["snippet"]


def test_among_sessions_holding_every_word_one_message_comes_first(siblings):
    conn, ids = siblings
    _, order, _ = ranked(conn, "webhook retry clock")
    assert order[:2] == [ids["together"], ids["scattered"]]


def test_a_rare_identifier_outweighs_every_ordinary_word(tmp_path):
    """The one session naming `acme-7qk.2` comes before sessions holding every ordinary word
    of the question and the id's pieces scattered (`qk` in a hash, numbers anywhere)."""
    t = Transcripts(tmp_path / "projects")
    named = t.conversation("/home/dev/acme", "work on acme-7qk.2: the token refresh",
                           "Refreshed tokens are now stored before the retry.")
    scattered = [t.conversation("/home/dev/acme", f"login fix for acme, attempt {n}",
                                f"commit 7{n}qkz2 pushed; the login fix is in, 2 tests added")
                 for n in range(3)]
    for n in range(6):  # the rest of a store, where none of these words appear
        t.conversation("/home/dev/other", f"unrelated work number {n}", "done")
    conn = open_index(tmp_path / "home" / "sessions.db")
    sync(conn, t.root, policy=POLICY)
    try:
        _, order, hits = ranked(conn, "acme-7qk.2 login fix")
        assert order[0] == named.id and hits[0]["match"] == "phrase"
        assert set(order[1:4]) == {s.id for s in scattered}
        # the words alone still rank as before: every word first
        _, plain, found = ranked(conn, "login fix")
        assert set(plain[:3]) == {s.id for s in scattered} and found[0]["match"] == "all"
    finally:
        conn.close()


WORDS = ["webhook", "retry", "clock", "parse", "http", "response", "spotter", "tests",
         "invoice", "export", "done", "pass", "webhok", "parsehttpresponse", "jitter"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=3, unique=True))
def test_chunks_holding_every_word_are_those_fts5_finds(siblings, query):
    """The one-message test reads the chunks each word's own search found to hold every word
    (either spelling): the same chunks as FTS5's AND of the words, for every session."""
    from solograph.sessions import search as s

    conn, _ = siblings
    terms = s.terms_of(conn, " ".join(query))
    if len(terms.stems) < 2:
        return
    wanted = list(dict.fromkeys([*terms.all, *terms.phrases]))
    plain = conn.cursor()
    plain.row_factory = None
    matching = "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid " \
               "JOIN sessions s ON s.id = c.session WHERE chunks_fts MATCH ?"
    found = {t: s._holding(conn, plain, t, matching, s.EVERY) for t in wanted}
    sessions = [r[0] for r in conn.execute("SELECT id FROM sessions")]
    best = {x: (0.0, -1) for x in sessions}
    every = " AND ".join("(" + " OR ".join(s._fts(x) for x in terms.spellings(t)) + ")"
                         for t in terms.stems)
    expected: dict[int, list[int]] = {}
    for chunk, session in conn.execute(
            "SELECT c.id, c.session FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ? ORDER BY c.id", (every,)):
        expected.setdefault(session, []).append(chunk)
    assert s._every_word_chunks(terms, found, sessions, best) == expected
