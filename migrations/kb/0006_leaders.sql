-- Bounded search (kb/leaders.py, kb/bounded.py): how many rows of each search table hold each
-- word (kind 0: sections_fts, kind 1: docs_fts), and for the words in many rows a list of the
-- rows where each weighs most, so that a search for common words scores those rows and the
-- rows of its rare words instead of every row that matches. Derived state, like the FTS tables:
-- a sync keeps it level with them, and the lists are made by the next sync that writes.

CREATE TABLE kb_words (
    kind        INTEGER NOT NULL,
    word        TEXT NOT NULL,
    df          INTEGER NOT NULL,             -- rows holding the word
    floor       REAL,                         -- with a list: no row off it weighs more
    PRIMARY KEY (kind, word)
) WITHOUT ROWID;
CREATE INDEX kb_words_unlisted ON kb_words(kind, df) WHERE floor IS NULL;

CREATE TABLE leaders (
    kind        INTEGER NOT NULL,
    word        TEXT NOT NULL,
    row         INTEGER NOT NULL,             -- sections.id or docs.id
    impact      REAL NOT NULL,                -- the row's weight for the word, before idf
    PRIMARY KEY (kind, word, row)
) WITHOUT ROWID;
CREATE INDEX leaders_row ON leaders(kind, row);

CREATE VIRTUAL TABLE sections_vocab USING fts5vocab(sections_fts, 'row');
INSERT INTO kb_words (kind, word, df) SELECT 0, term, doc FROM sections_vocab;
INSERT INTO kb_words (kind, word, df) SELECT 1, term, doc FROM docs_vocab;

-- Every lane asks how many pages the wiki holds (kb/search.py `hubs`): counted from an index,
-- not by reading every page's row. On an expression, so that no query joining the full-text
-- rows to the docs on `d.in_pages = 1` starts from this index (a MATCH run once per page).
CREATE INDEX docs_pages ON docs(in_pages + 0, catalog);
