import pytest

from solograph.errors import BadQuery
from solograph.text.tokens import (
    fold_name,
    identifier_index_text,
    match_all,
    match_any,
    query_terms,
    split_identifier,
    stem,
    words,
)


@pytest.mark.parametrize(("name", "parts"), [
    ("parseHTTPResponse2", ["parse", "http", "response", "2"]),
    ("AuthMiddleware", ["auth", "middleware"]),
    ("auth_middleware", ["auth", "middleware"]),
    ("authMiddleware", ["auth", "middleware"]),
    ("auth-middleware", ["auth", "middleware"]),
    ("HTTPServer", ["http", "server"]),
    ("getURLForID", ["get", "url", "for", "id"]),
    ("IOError", ["io", "error"]),
    ("v2Client", ["v", "2", "client"]),
    ("SCREAMING_SNAKE_CASE", ["screaming", "snake", "case"]),
    ("ПарсерОтвета", ["парсер", "ответа"]),
])
def test_identifier_splitting(name, parts):
    assert words(name) == parts


def test_split_identifier_is_the_word_splitter():
    assert split_identifier("parseHTTPResponse2") == ["parse", "http", "response", "2"]


@pytest.mark.parametrize(("word", "expected"), [
    ("indexing", "index"), ("indexes", "index"), ("organization", "organiz"),
    ("графами", "граф"), ("проверку", "проверк"), ("песочница", "песочниц"),
    ("сделай", "сдела"), ("2024", "2024"),
])
def test_snowball_stems_for_both_languages(word, expected):
    assert stem(word) == expected


def test_all_spellings_fold_to_one_key():
    keys = {fold_name(n) for n in ("AuthMiddleware", "auth_middleware", "authMiddleware",
                                   "auth-middleware", "auth middleware")}
    assert keys == {"authmiddleware"}


def test_identifier_index_text_has_parts_and_the_folded_name():
    assert identifier_index_text("AuthMiddleware") == "auth middlewar authent authmiddleware"
    assert identifier_index_text("escape") == "escap"


def test_one_letter_parts_and_abbreviations_are_indexed_joined_and_expanded():
    assert "etag" in identifier_index_text("createETagGenerator").split()
    assert "option" in identifier_index_text("optsWithGlobals").split()


@pytest.mark.parametrize("hostile", [
    '"unbalanced', "a AND OR NOT", "NEAR(a b)", "col:value", "x* ^y", "((( x", "{title}: q",
    "a - b", "'; DROP TABLE symbols; --",
])
def test_fts_syntax_in_a_query_becomes_plain_words(hostile):
    expr = match_all(query_terms(hostile))
    # Every term is a quoted string: nothing the user typed is FTS5 syntax.
    for part in expr.split(" "):
        assert part.startswith('"') and part.rstrip("*").endswith('"')


def test_query_with_no_words_is_a_bad_query():
    with pytest.raises(BadQuery):
        query_terms("!!! *** ---")


def test_terms_are_prefixes_and_distinct():
    assert match_all(query_terms("indexing indexes Index")) == '"index"*'
    assert match_any(query_terms("auth x")) == '"auth"* OR "x"'


def test_prose_queries_drop_stopwords_unless_nothing_else_is_left():
    assert query_terms("how did we fix the webhook retry?", prose=True) == ["fix", "webhook",
                                                                            "retri"]
    assert query_terms("как мы делали кэш", prose=True) == ["дела", "кэш"]
    assert query_terms("what is it", prose=True) == ["what", "is", "it"]
    # identifiers keep every word: `forEach` is "for" and "each"
    assert query_terms("for each") == ["for", "each"]
