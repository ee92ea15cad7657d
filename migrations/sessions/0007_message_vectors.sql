-- The meaning lane, one vector per message: what the user or the assistant wrote (a prompt, a
-- command, a reply) of at least 30 characters. It replaces the windows of neighbouring
-- messages: a vector per message fused the hard session questions better at a third of the
-- embedding time. The windows' vectors are dropped; the messages wait for theirs.

DROP TRIGGER IF EXISTS entries_text_vectors;
DROP TABLE IF EXISTS chunk_embedded;
DROP TABLE IF EXISTS chunk_vectors;

CREATE TABLE entry_vectors (
    entry       INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    grp         INTEGER NOT NULL DEFAULT 0,   -- entries.session: what a search ranks, kept
                                              -- here so reading the vectors reads no message
    digest      TEXT NOT NULL,                -- of the text embedded
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL                 -- float16, little-endian, dim values
);

-- The messages waiting for a vector, the newest (`rank`: its time) embedded first.
CREATE TABLE vector_todo (
    unit        INTEGER PRIMARY KEY,          -- entries.id
    rank        NOT NULL DEFAULT ''
);
CREATE INDEX vector_todo_rank ON vector_todo(rank, unit);

-- How many vectors there are, how many messages wait, and the model the vectors are of: what a
-- read says in `freshness`, from this one row.
ALTER TABLE vector_rev ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN model TEXT NOT NULL DEFAULT '';

CREATE TRIGGER entry_vectors_ai AFTER INSERT ON entry_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.entry;
END;
CREATE TRIGGER entry_vectors_au AFTER UPDATE ON entry_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.entry;
END;
-- A vector dropped while its message stays (another model, text redacted again) waits again;
-- one dropped with its message (the cascade) does not.
CREATE TRIGGER entry_vectors_ad AFTER DELETE ON entry_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT id, at FROM entries WHERE id = old.entry
        AND kind IN ('prompt', 'command', 'reply') AND length(text) >= 30;
END;

CREATE TRIGGER vector_todo_ai AFTER INSERT ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_todo_ad AFTER DELETE ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending - 1 WHERE id = 1;
END;

CREATE TRIGGER entries_vector_todo_ai AFTER INSERT ON entries
WHEN new.kind IN ('prompt', 'command', 'reply') AND length(new.text) >= 30 BEGIN
    INSERT OR IGNORE INTO vector_todo (unit, rank) VALUES (new.id, new.at);
END;
CREATE TRIGGER entries_vector_todo_au AFTER UPDATE OF text, kind ON entries
WHEN old.text IS NOT new.text OR old.kind IS NOT new.kind BEGIN
    DELETE FROM entry_vectors WHERE entry = old.id;
    DELETE FROM vector_todo WHERE unit = old.id;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT new.id, new.at
        WHERE new.kind IN ('prompt', 'command', 'reply') AND length(new.text) >= 30;
END;
CREATE TRIGGER entries_vector_todo_ad AFTER DELETE ON entries BEGIN
    DELETE FROM vector_todo WHERE unit = old.id;
END;

INSERT INTO vector_todo (unit, rank)
    SELECT id, at FROM entries
    WHERE kind IN ('prompt', 'command', 'reply') AND length(text) >= 30;
UPDATE vector_rev SET rev = rev + 1, vectors = 0, model = '' WHERE id = 1;
