-- The index's own vocabulary, for typo respelling of query words.
CREATE VIRTUAL TABLE symbols_vocab USING fts5vocab(symbols_fts, 'row');
