-- The toy notes' part of the meaning lane: one vector per note, gone with it.

CREATE TABLE note_vectors (
    note        INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    digest      TEXT NOT NULL,
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL
);

CREATE TABLE vector_rev (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    rev         INTEGER NOT NULL
);
INSERT INTO vector_rev (id, rev) VALUES (1, 0);

CREATE TRIGGER note_vectors_ai AFTER INSERT ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER note_vectors_ad AFTER DELETE ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER note_vectors_au AFTER UPDATE ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
