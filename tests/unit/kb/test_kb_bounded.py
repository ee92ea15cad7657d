"""Bounded KB ranking (kb/bm25.py, kb/leaders.py, kb/bounded.py) against FTS5's own: the
same BM25 scores, the same best rows for a word, and word counts and lists that stay level
with the index as pages are edited, added and deleted. KBs are generated (hypothesis), small,
with lists made from a few rows so that they are used."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solograph.config import Settings
from solograph.kb import bm25, bounded, leaders
from solograph.kb.aliases import AliasTable
from solograph.kb.search import Scope, build_query
from solograph.kb.store import open_kb
from solograph.kb.sync import sync
from solograph.text.tokens import fts_term

# No word begins another, so a word's rows are its own (a prefix query matches one word).
VOCAB = ["amber", "basil", "cedar", "delta", "ember", "fjord", "gamut", "haven", "ivory",
         "jolly", "karma", "lemon"]
words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=30)
section = st.tuples(st.lists(st.sampled_from(VOCAB), max_size=2), words)
page = st.tuples(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3),
                 st.lists(section, min_size=1, max_size=4))
kbs = st.lists(page, min_size=3, max_size=16)
SLOW = settings(max_examples=15, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def small_lists(monkeypatch):
    """Lists from four rows on, of two rows: most words are common in a small KB."""
    monkeypatch.setattr(leaders, "COMMON", 4)
    monkeypatch.setattr(leaders, "KEPT", 2)
    monkeypatch.setattr(bounded, "BOUND_FROM", dict.fromkeys(bounded.BOUND_FROM, 0))


def render(title: list[str], sections: list[tuple[list[str], list[str]]]) -> str:
    body = "".join(f"## {' '.join(h) or 'part'}\n\n{' '.join(w)}\n\n" for h, w in sections)
    return f"# {' '.join(title)}\n\n{body}"


def write(root: Path, pages: list, *, start: int = 0) -> None:
    for i, (title, sections) in enumerate(pages, start):
        path = root / "wiki" / f"page-{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(title, sections), encoding="utf-8")


def indexed(base: Path, pages: list):
    root = base / "kb"
    if root.exists():
        for f in (root / "wiki").glob("*.md"):
            f.unlink()
    write(root, pages)
    kb = open_kb(base / "home", root, settings=Settings(home=base / "home", kb_path=root))
    sync(kb)
    return kb


def fts_scores(conn: sqlite3.Connection, spec: bm25.Spec, match: str) -> dict[int, float]:
    return dict(conn.execute(f"SELECT rowid, {spec.sql} FROM {spec.table} "
                             f"WHERE {spec.table} MATCH ?", (match,)))


@SLOW
@given(pages=kbs, query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3, unique=True))
def test_scores_outside_fts5_are_fts5s(tmp_path_factory, pages, query):
    kb = indexed(tmp_path_factory.mktemp("kb"), pages)
    try:
        for spec in bm25.SPECS:
            rows, avgdl = bm25.averages(kb.conn, spec)
            theirs = fts_scores(kb.conn, spec, " OR ".join(fts_term(t) for t in query))
            holding = {t: len(fts_scores(kb.conn, spec, fts_term(t))) for t in query}
            ours = bm25.Scorer(spec, {t: bm25.idf(rows, holding[t]) for t in query},
                               avgdl).scores(kb.conn, list(theirs))
            for rid, score in theirs.items():
                if score:  # rows matched in a column the spec does not weigh score 0
                    assert ours[rid] == pytest.approx(score, rel=1e-9, abs=1e-12)
    finally:
        kb.close()


@SLOW
@given(pages=kbs, word=st.sampled_from(VOCAB))
def test_a_common_words_best_rows_are_fts5s(tmp_path_factory, small_lists, pages, word):
    kb = indexed(tmp_path_factory.mktemp("kb"), pages)
    try:
        query = build_query(kb.conn, word, AliasTable())
        got = bounded.sections(kb.conn, query, Scope(), leaders.KEPT)
        theirs = sorted((s, r) for r, s in fts_scores(kb.conn, bm25.SECTIONS,
                                                      query.match).items())
        if got is None:  # too few rows to bound: FTS5 ranks them
            return
        best = [s for s, _ in theirs[:leaders.KEPT]]
        assert [r for _, _, r in got] == pytest.approx(best, rel=1e-9, abs=1e-12)
    finally:
        kb.close()


def check_level(conn: sqlite3.Connection, drift: float) -> None:
    """Word counts equal FTS5's; lists hold only rows that hold their word; no row off a
    list weighs more than its floor (allowing for the average length having moved)."""
    for spec, vocab in ((bm25.SECTIONS, "sections_vocab"), (bm25.NAMES, "docs_vocab")):
        theirs = dict(conn.execute(f"SELECT term, doc FROM {vocab}"))
        ours = dict(conn.execute("SELECT word, df FROM kb_words WHERE kind = ?",
                                 (spec.kind,)))
        assert ours == theirs
        rows, _ = bm25.averages(conn, spec)
        for word, df, floor in conn.execute("SELECT word, df, floor FROM kb_words WHERE "
                                            "kind = ? AND floor IS NOT NULL", (spec.kind,)):
            listed = {r for (r,) in conn.execute(
                "SELECT row FROM leaders WHERE kind = ? AND word = ?", (spec.kind, word))}
            weight = bm25.idf(rows, df) * spec.scale
            impacts = {r: -s / weight for r, s in
                       fts_scores(conn, spec, '"' + word + '"').items()}
            assert listed <= set(impacts)
            assert len(listed) <= 2 * leaders.KEPT
            off = [i for r, i in impacts.items() if r not in listed]
            assert max(off, default=0.0) <= floor * drift + 1e-9


@SLOW
@given(pages=kbs, edits=kbs, cut=st.integers(0, 10))
def test_lists_stay_level_as_pages_change(tmp_path_factory, small_lists, pages, edits, cut):
    base = tmp_path_factory.mktemp("kb")
    kb = indexed(base, pages)
    try:
        before = {s.kind: bm25.averages(kb.conn, s)[1] for s in bm25.SPECS}
        check_level(kb.conn, 1.0)
        root = base / "kb"
        write(root, edits[: len(edits) // 2], start=len(pages) // 2)  # edited and added
        for i in range(min(cut, len(pages))):  # and some deleted
            path = root / "wiki" / f"page-{len(pages) - 1 - i}.md"
            if path.exists() and i % 2 == 0:
                os.remove(path)
        sync(kb)
        after = {s.kind: bm25.averages(kb.conn, s)[1] for s in bm25.SPECS}
        drift = max(max(before[k] / after[k], after[k] / before[k]) for k in before)
        check_level(kb.conn, drift)
    finally:
        kb.close()


def test_a_query_of_common_words_scores_only_its_candidates(tmp_path, small_lists):
    """With lists, a word's candidates are its listed rows, not every row holding it."""
    pages = [(["amber"], [([], ["amber"] * (i % 5 + 1) + ["basil"] * 3)]) for i in range(12)]
    kb = indexed(tmp_path, pages)
    try:
        query = build_query(kb.conn, "amber", AliasTable())
        found = bounded.plan(kb.conn, query, bm25.SECTIONS)
        assert found is not None
        held = len(fts_scores(kb.conn, bm25.SECTIONS, fts_term("amber")))
        assert len(found.scores) < held
        best = min(fts_scores(kb.conn, bm25.SECTIONS, fts_term("amber")).values())
        assert min(found.scores.values()) == pytest.approx(best)
    finally:
        kb.close()


FOLDED = ["café", "cafe", "caf", "über", "uber", "ab", "abc", "abcd", "a", "ёж", "ежи",
          "Ångström"]


def padded_score(scorer: bm25.Scorer, columns: tuple[str, ...], length: int) -> float | None:
    """BM25 as FTS5 counts it, the plain way: each column padded with spaces, a term found
    after a space (a one-letter term between two)."""
    texts = [" " + bm25.fold(t) + " " if t else "" for t in columns]
    norm = bm25.K1 * (1 - bm25.B + bm25.B * length / scorer.avgdl)
    total, held = 0.0, False
    for term, idf_ in scorer.idfs.items():
        needle = " " + bm25.fold(term) + ("" if len(term) >= 2 else " ")
        found = [len(re.findall(f"(?={re.escape(needle)})", t)) if len(term) < 2
                 else t.count(needle) for t in texts]
        if not any(found):
            continue
        held = True
        for weights in scorer.weights:
            freq = sum(w * n for w, n in zip(weights, found, strict=True))
            if freq:
                total += idf_ * freq * (bm25.K1 + 1) / (freq + norm)
    return -scorer.spec.scale * total if held else None


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.lists(st.sampled_from(FOLDED), max_size=3),
                               st.lists(st.sampled_from(FOLDED), max_size=12)),
                     min_size=1, max_size=8),
       terms=st.lists(st.sampled_from(["caf", "cafe", "ub", "uber", "ab", "abc", "a", "еж",
                                       "ång"]), min_size=1, max_size=3, unique=True))
def test_two_columns_score_as_padded_counting_does(rows, terms):
    """The scoring (no padded copy of a row's text) against the plain padded count, on texts
    that begin with a term, hold prefixes of each other, one-letter words and letters
    unicode61 folds."""
    scorer = bm25.Scorer(bm25.SECTIONS, {t: 0.5 + i for i, t in enumerate(terms)}, 7.0)
    found = {i: (" ".join(h), " ".join(b)) for i, (h, b) in enumerate(rows)}
    fast = scorer.rank(found, None)
    for rid, columns in found.items():
        length = sum(t.count(" ") + 1 for t in columns if t)
        assert fast.get(rid) == padded_score(scorer, columns, length)
