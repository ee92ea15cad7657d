"""The one tokenizer and stemmer, used at index time and at query time.

Text is cut into words, identifiers are split on camelCase, PascalCase, snake_case, kebab-case
and digits, every word is lowercased and stemmed with Snowball (Russian for Cyrillic words,
English otherwise). FTS5 tables store the stems in a stock `unicode61` table, so any SQLite
reader can query them; queries go through the same functions and are built from quoted terms,
so FTS5 syntax typed by a user is never an error.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from solograph.errors import BadQuery

MAX_QUERY_TERMS = 16

_RUN = re.compile(r"[^\W_]+")
# Order matters: an acronym before a capitalised word ("HTTPResponse" -> HTTP, Response),
# then capitalised or lower words, then digit runs, then any other letters.
_PART = re.compile(
    r"[A-ZА-ЯЁ]+(?=[A-ZА-ЯЁ][a-zа-яё])|[A-ZА-ЯЁ]?[a-zа-яё]+|[A-ZА-ЯЁ]+|\d+|[^\W\d_]+"
)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")

_english = Stemmer.Stemmer("english")
_russian = Stemmer.Stemmer("russian")


def split_identifier(word: str) -> list[str]:
    """`parseHTTPResponse2` -> ['parse', 'http', 'response', '2']."""
    return [p.lower() for p in _PART.findall(word)]


def words(text: str) -> list[str]:
    """Every word of `text`, identifiers split, lowercased (not stemmed)."""
    out: list[str] = []
    for run in _RUN.findall(text):
        out.extend(split_identifier(run))
    return out


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem of one lowercased word: Russian for Cyrillic, English otherwise."""
    if word.isdigit():
        return word
    if _CYRILLIC.search(word):
        return _russian.stemWord(word.replace("ё", "е"))
    return _english.stemWord(word)


def stems(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


def index_text(text: str) -> str:
    """What an FTS column stores for `text`: its stems, space-separated."""
    return " ".join(stems(text))


# Abbreviations common in code, indexed beside the word they stand for, so "options with
# globals" finds optsWithGlobals. Index side only: a query for "opts" still matches "opts".
ABBREVIATIONS = {
    "opts": "options", "opt": "option", "args": "arguments", "arg": "argument",
    "ctx": "context", "cfg": "config", "conf": "config", "env": "environment",
    "msg": "message", "msgs": "messages", "req": "request", "res": "response",
    "resp": "response", "err": "error", "errs": "errors", "fn": "function",
    "func": "function", "val": "value", "vals": "values", "dir": "directory",
    "pkg": "package", "btn": "button", "impl": "implementation", "init": "initialize",
    "db": "database", "auth": "authentication", "authn": "authentication",
    "authz": "authorization", "repo": "repository", "str": "string", "num": "number",
    "idx": "index", "len": "length", "tmp": "temporary", "temp": "temporary",
    "src": "source", "dst": "destination", "dest": "destination", "prev": "previous",
    "cur": "current", "curr": "current", "calc": "calculate", "gen": "generate",
    "util": "utility", "utils": "utilities", "params": "parameters", "param": "parameter",
    "attr": "attribute", "attrs": "attributes", "elem": "element", "el": "element",
    "obj": "object", "cb": "callback", "evt": "event", "ev": "event", "cmd": "command",
    "ns": "namespace", "addr": "address", "doc": "document", "docs": "documents",
    "lang": "language", "sync": "synchronize", "async": "asynchronous",
}


def index_text_long(text: str) -> str:
    """`index_text(text)`, in one regex pass over the whole text rather than one per run: the
    same result (no part spans a non-word character or an underscore, so cutting the text into
    runs first changes nothing), about 40% faster on the long texts of transcripts."""
    return " ".join([stem(p.lower()) for p in _PART.findall(text)])


def identifier_index_text(name: str) -> str:
    """Stems of an identifier's parts, plus the whole name folded (a query written as one word,
    `authmiddleware`, finds `AuthMiddleware`), a one-letter part joined to the next
    (`ETagCache` is e, tag, cache and also etag) and the words behind abbreviations."""
    parts = words(name)
    out = [stem(p) for p in parts]
    for i, part in enumerate(parts[:-1]):
        if len(part) == 1 and part.isalpha():
            out.append(stem(part + parts[i + 1]))
    for part in parts:
        full = ABBREVIATIONS.get(part)
        if full:
            out.append(stem(full))
    folded = "".join(parts)
    if len(parts) > 1 and folded:
        out.append(folded)
    return " ".join(out)


def fold_name(name: str) -> str:
    """A spelling-free key: `AuthMiddleware`, `auth_middleware` -> `authmiddleware`."""
    return "".join(words(name))


# Words that carry no topic in a question ("how did we fix the webhook?"). Searched as
# prefixes they match half the index ("we" is a prefix of "web", "week"), so natural-language
# searches drop them, unless the query holds nothing else.
_STOPWORD_TEXT = """
a an the and or but if then else of to in on at by for with from into onto about as is are
was were be been being am do does did done doing have has had having i me my we us our you
your he she it its they them their this that these those there here what which who whom
whose when where why how not no nor so too very can could would should will shall may might
must just also than any all some each both such only own same other again further once out
over under up down off more most few s t don let lets ok please и в во не что он на я с со
как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня еще нет
о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж
вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была
сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой
совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно
при наконец два об другой хоть после над больше тот через эти нас про всего них какая много
разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им более
всегда конечно всю между как-то это эта эти
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def query_terms(query: str, *, prose: bool = False) -> list[str]:
    """The distinct stems of a user query, in order, at most MAX_QUERY_TERMS. `prose`: a
    natural-language search (sessions, notes, sources) that drops STOPWORDS when the query has
    other words; identifiers are searched with every word."""
    seen: dict[str, None] = {}
    found = words(query)
    if prose:
        content = [w for w in found if w not in STOPWORDS]
        found = content or found
    for w in found:
        seen.setdefault(stem(w), None)
    terms = list(seen)[:MAX_QUERY_TERMS]
    if not terms:
        raise BadQuery(f"no searchable words in {query!r}",
                       hint="use letters or digits: for example `auth middleware`")
    return terms


def fts_term(term: str) -> str:
    """One quoted FTS5 term, searched as a prefix when it is long enough to be selective."""
    quoted = '"' + term.replace('"', '""') + '"'
    return quoted + "*" if len(term) >= 2 else quoted


def match_all(terms: list[str]) -> str:
    return " ".join(fts_term(t) for t in terms)


def match_any(terms: list[str]) -> str:
    return " OR ".join(fts_term(t) for t in terms)
