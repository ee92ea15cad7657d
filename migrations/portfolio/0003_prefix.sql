-- Prefix indexes on the definitions' full-text table: every query word is searched as a
-- prefix, and without them FTS5 merges the doclist of every term under that prefix, twice
-- (once to match, once for BM25's document frequencies). Lengths 2-5 cover the stems most
-- queries hold; measured at 50,000 definitions, a ranked prefix query's median went from
-- 0.81 ms to 0.28 ms, for a full-text table 3x as big (1.4 to 4.3 MiB).
DROP TRIGGER symbols_ai;
DROP TRIGGER symbols_ad;
DROP TABLE symbols_vocab;
DROP TABLE symbols_fts;
CREATE VIRTUAL TABLE symbols_fts USING fts5(
    words, scope_words, content='symbols', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5'
);
CREATE VIRTUAL TABLE symbols_vocab USING fts5vocab(symbols_fts, 'row');
CREATE TRIGGER symbols_ai AFTER INSERT ON symbols BEGIN
    INSERT INTO symbols_fts(rowid, words, scope_words)
    VALUES (new.id, new.words, new.scope_words);
END;
CREATE TRIGGER symbols_ad AFTER DELETE ON symbols BEGIN
    INSERT INTO symbols_fts(symbols_fts, rowid, words, scope_words)
    VALUES ('delete', old.id, old.words, old.scope_words);
END;
INSERT INTO symbols_fts(symbols_fts) VALUES ('rebuild');
