-- The meaning lane (the `semantic` extra): one vector per heading section (the page title,
-- the heading path and the section's plain text). Sections are never updated in place (a
-- changed page's sections are deleted and written again), so the cascade is all it takes for
-- a vector to leave with its section.

CREATE TABLE section_vectors (
    section     INTEGER PRIMARY KEY REFERENCES sections(id) ON DELETE CASCADE,
    digest      TEXT NOT NULL,                -- of the text embedded
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL                 -- float16, little-endian, dim values
);

-- Bumped by every change to the vectors: a process keeps its matrix until this moves.
CREATE TABLE vector_rev (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    rev         INTEGER NOT NULL
);
INSERT INTO vector_rev (id, rev) VALUES (1, 0);

CREATE TRIGGER section_vectors_ai AFTER INSERT ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER section_vectors_ad AFTER DELETE ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER section_vectors_au AFTER UPDATE ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
