-- What symbol search needs to cost what matches rather than what is stored (issue 28).
-- symbol_df: for each indexed word held by at least 1,000 definitions, how many definitions
-- match it searched as a prefix (FTS5's own count, the `n` of BM25's idf): a query's idf
-- comes from here instead of FTS5 reading every such word's whole doclist on each search.
-- symbol_top: each of those words' 400 best definitions by its own BM25 (its impact
-- list, best first), the candidates of a query whose every word is that common.
-- Derived state, refreshed after a scan that changed many definitions (portfolio/impact.py).
CREATE TABLE symbol_df (
    term        TEXT PRIMARY KEY,
    docs        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE symbol_top (
    term        TEXT NOT NULL,
    n           INTEGER NOT NULL,            -- 1 = the word's best definition
    id          INTEGER NOT NULL,            -- symbols.id
    PRIMARY KEY (term, n)
) WITHOUT ROWID;
INSERT INTO symbol_df (term, docs)
SELECT v.term, (SELECT count(*) FROM symbols_fts
                WHERE symbols_fts MATCH '"' || replace(v.term, '"', '""') || '"*')
FROM symbols_vocab v WHERE v.doc >= 1000;
INSERT INTO symbol_top (term, n, id)
SELECT term, n, id FROM (
    SELECT d.term, f.rowid AS id,
           row_number() OVER (PARTITION BY d.term
                              ORDER BY bm25(symbols_fts, 1.0, 0.4), f.rowid) AS n
    FROM symbol_df d JOIN symbols_fts f
      ON f.symbols_fts MATCH '"' || replace(d.term, '"', '""') || '"*')
WHERE n <= 400;
-- An exact name within one project (`request` in one repository of 300) is found through the
-- name and the project together, not by reading every project's `request` first.
DROP INDEX symbols_name_key;
CREATE INDEX symbols_name_key ON symbols(name_key, project_id);
