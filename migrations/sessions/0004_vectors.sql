-- The meaning lane (the `semantic` extra): one vector per window of a chunk's conversation
-- text (prompts, commands and replies of the chunk's entries, in line order, a message kept
-- with its neighbours). A vector leaves with its chunk (foreign key cascade) and with any
-- change of its entries' text (re-redaction), so nothing outlives the row it was made from.

CREATE TABLE chunk_vectors (
    id          INTEGER PRIMARY KEY,
    chunk       INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    part        INTEGER NOT NULL,             -- the window's place among the chunk's windows
    first_seq   INTEGER NOT NULL,             -- entries.seq of its first and last message
    last_seq    INTEGER NOT NULL,
    digest      TEXT NOT NULL,                -- of the text embedded
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL,                -- float16, little-endian, dim values
    UNIQUE (chunk, part)
);

-- A chunk whose every window has a vector of `model`, as of `entries` entries: a chunk that
-- grew (the open last chunk of a transcript) is pending again.
CREATE TABLE chunk_embedded (
    chunk       INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    entries     INTEGER NOT NULL,
    model       TEXT NOT NULL
);

-- Bumped by every change to the vectors: a process keeps its matrix until this moves.
CREATE TABLE vector_rev (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    rev         INTEGER NOT NULL
);
INSERT INTO vector_rev (id, rev) VALUES (1, 0);

CREATE TRIGGER chunk_vectors_ai AFTER INSERT ON chunk_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER chunk_vectors_ad AFTER DELETE ON chunk_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER chunk_vectors_au AFTER UPDATE ON chunk_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;

CREATE TRIGGER entries_text_vectors AFTER UPDATE OF text ON entries
WHEN old.text IS NOT new.text BEGIN
    DELETE FROM chunk_vectors WHERE chunk = old.chunk;
    DELETE FROM chunk_embedded WHERE chunk = old.chunk;
END;
