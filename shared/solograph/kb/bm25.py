"""BM25 as FTS5's `bm25()` computes it, for rows scored outside FTS5 (kb/bounded.py).

FTS5 scores a row, for each phrase of the query, as idf * F * (k1 + 1) / (F + k1 * (1 - b +
b * D / avgdl)): F is the phrase's count in the row, each hit weighted by its column's
weight; D the row's tokens in every column; avgdl the table's tokens per row; idf
log((N - n + 0.5) / (n + 0.5)) over the N rows, n of them holding the phrase, and 1e-6 where
that is not positive. It returns minus the sum (lower is better). The same sum computed here
from a row's stored text and its `_docsize` entry agrees with FTS5's to rounding, so that
rankings made either way agree.

A column holds stems separated by single spaces (text/tokens.py `index_text`); a query term of
two letters or more matches the words it begins, as `fts_term` searches it.
"""

from __future__ import annotations

import math
import re
import sqlite3
from functools import cache, cached_property

from solograph import fts5
from solograph.frozen import Frozen

K1, B = 1.2, 0.75


class Spec(Frozen):
    """One ranking over one FTS5 table: each weight vector is one `bm25()` call, summed and
    multiplied by `scale`."""

    kind: int  # the key of this table's rows in kb_words and leaders
    table: str
    columns: tuple[str, ...]  # every column of the table, in order
    vectors: tuple[tuple[float, ...], ...]
    scale: float = 1.0

    @cached_property
    def read(self) -> tuple[int, ...]:
        """The columns some vector weighs: the only ones whose text a score reads (worked
        out once: a sync that wrote 10 pages asked 7,800 times, 28 ms)."""
        return tuple(i for i in range(len(self.columns)) if any(v[i] for v in self.vectors))

    @property
    def sql(self) -> str:
        """The same ranking as an FTS5 expression (lower is better)."""
        calls = " + ".join(f"bm25({self.table}, {', '.join(str(w) for w in v)})"
                           for v in self.vectors)
        return f"{self.scale} * ({calls})"


# The best section (kb/score.py SECTION_WEIGHTS) and a page's names (kb/score.py NAMES).
SECTIONS = Spec(0, "sections_fts", ("heading", "body"), ((2.0, 1.0),))
NAMES = Spec(1, "docs_fts", ("title", "meta", "body"), ((2.0, 0.0, 0.0), (0.0, 2.0, 0.0)), 1.5)
SPECS = (SECTIONS, NAMES)


def averages(conn: sqlite3.Connection, spec: Spec) -> tuple[int, float]:
    """(rows, tokens per row) of the table, from the record FTS5 keeps of them."""
    rows, tokens = fts5.averages(conn, spec.table)
    return rows, (tokens / rows if rows else 1.0)


def sizes(conn: sqlite3.Connection, spec: Spec, rows: list[int]) -> dict[int, int]:
    """Each row's tokens in every column."""
    return {rid: sum(fts5.varints(sz)) for rid, sz in conn.execute(
        f"SELECT id, sz FROM {spec.table}_docsize WHERE id IN (SELECT value FROM json_each(?))",
        (_ids(rows),))}


def idf(rows: int, holding: int) -> float:
    value = math.log((rows - holding + 0.5) / (holding + 0.5)) if rows else 0.0
    return value if value > 0 else 1e-6


def saturate(freq: float, length: int, avgdl: float) -> float:
    return freq * (K1 + 1) / (freq + K1 * (1 - B + B * length / avgdl))


# unicode61's remove_diacritics folds Latin letters only; Cyrillic й and ё stay as they are.
_LATIN = re.compile("[\u00c0-\u024f]")


def fold(text: str) -> str:
    return text if text.isascii() or not _LATIN.search(text) else text.translate(_folds())


@cache
def _folds() -> dict[int, str]:
    """Each Latin letter to what unicode61 folds it to; made on first need (2 ms: not on
    the hook's path when no page holds one)."""
    import unicodedata

    return {c: "".join(ch for ch in unicodedata.normalize("NFD", chr(c))
                       if not unicodedata.combining(ch)).lower() or chr(c)
            for c in range(0xC0, 0x250)}


class Scorer:
    """Scores rows of one table for one query's terms, each with its idf. A ranking reads two
    columns of its table (both do: heading and body, title and meta)."""

    def __init__(self, spec: Spec, idfs: dict[str, float], avgdl: float) -> None:
        if len(spec.read) != 2:
            raise ValueError(f"a ranking over {spec.table} reads two columns, not "
                             f"{len(spec.read)}")
        self.spec, self.avgdl = spec, avgdl
        self.idfs = idfs
        self.weights = [[v[c] for c in spec.read] for v in spec.vectors]

    def scores(self, conn: sqlite3.Connection, rows: list[int]) -> dict[int, float]:
        """The score of each row holding a term."""
        whole = len(self.spec.read) == len(self.spec.columns)
        # A row read whole is its own length (single spaces between its words).
        return self.rank(texts(conn, self.spec, rows),
                         None if whole else sizes(conn, self.spec, rows))

    def rank(self, found: dict[int, tuple[str, ...]], lengths: dict[int, int] | None,
             ) -> dict[int, float]:
        """Each row's `spec.sql` value, from the text of its two columns and its length in
        tokens (`lengths`, or counted in the text); rows holding no term (FTS5 would not match
        them) left out. A term of two letters or more begins a word where it begins the text
        or follows a space (each row's text is not copied to pad it: ~600 rows a search of
        common words); a one-letter term is a whole word. A word begun by two terms, a prefix
        and a longer one, counts for both, as in FTS5."""
        k1p, avgdl, scale, weights = K1 + 1, self.avgdl, self.spec.scale, self.weights
        terms = [(fold(t), " " + fold(t), len(t) < 2, idf_) for t, idf_ in self.idfs.items()]
        out = {}
        for rid, (first, second) in found.items():
            a, b = fold(first) if first else "", fold(second) if second else ""
            if lengths is None:
                length = (a.count(" ") + 1 if a else 0) + (b.count(" ") + 1 if b else 0)
            else:
                length = lengths.get(rid, 0)
            norm = K1 * (1 - B + B * length / avgdl)
            total, held = 0.0, False
            for word, needle, whole_word, idf_ in terms:
                if whole_word:
                    na, nb = a.split().count(word), b.split().count(word)
                else:
                    na = a.count(needle) + a.startswith(word)
                    nb = b.count(needle) + b.startswith(word)
                if not (na or nb):
                    continue
                held = True
                for wa, wb in weights:
                    freq = wa * na + wb * nb
                    if freq:
                        total += idf_ * freq * k1p / (freq + norm)
            if held:
                out[rid] = -scale * total
        return out


def texts(conn: sqlite3.Connection, spec: Spec, rows: list[int],
          ) -> dict[int, tuple[str, ...]]:
    """The text of each row's scored columns, from the table's own copy of its rows."""
    names = ", ".join(f"c{i}" for i in spec.read)
    return {r[0]: tuple(r[1:]) for r in conn.execute(
        f"SELECT id, {names} FROM {spec.table}_content WHERE id IN "
        "(SELECT value FROM json_each(?))", (_ids(rows),))}


def _ids(rows: list[int]) -> str:
    return "[" + ",".join(str(int(r)) for r in rows) + "]"
