-- The toy notes' part of the meaning lane, in the shape every store with vectors has: one
-- vector per note, gone with it; the notes waiting for one; the counts a read reports.

CREATE TABLE note_vectors (
    note        INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
    grp,                                      -- notes.name: what a search ranks
    digest      TEXT NOT NULL,
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL
);

CREATE TABLE vector_todo (
    unit        INTEGER PRIMARY KEY,
    rank        NOT NULL DEFAULT 0
);
CREATE INDEX vector_todo_rank ON vector_todo(rank, unit);

CREATE TABLE vector_rev (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    rev         INTEGER NOT NULL,
    vectors     INTEGER NOT NULL DEFAULT 0,
    pending     INTEGER NOT NULL DEFAULT 0,
    model       TEXT NOT NULL DEFAULT ''
);
INSERT INTO vector_rev (id, rev) VALUES (1, 0);

CREATE TRIGGER note_vectors_ai AFTER INSERT ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.note;
END;
CREATE TRIGGER note_vectors_au AFTER UPDATE ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.note;
END;
CREATE TRIGGER note_vectors_ad AFTER DELETE ON note_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT OR IGNORE INTO vector_todo (unit, rank) SELECT id, mtime_ns FROM notes
        WHERE id = old.note;
END;
CREATE TRIGGER vector_todo_ai AFTER INSERT ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_todo_ad AFTER DELETE ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending - 1 WHERE id = 1;
END;
CREATE TRIGGER notes_vector_todo_ai AFTER INSERT ON notes BEGIN
    INSERT OR IGNORE INTO vector_todo (unit, rank) VALUES (new.id, new.mtime_ns);
END;
CREATE TRIGGER notes_vector_todo_au AFTER UPDATE OF text ON notes
WHEN old.text IS NOT new.text BEGIN
    DELETE FROM note_vectors WHERE note = old.id;
    INSERT OR IGNORE INTO vector_todo (unit, rank) VALUES (new.id, new.mtime_ns);
END;
CREATE TRIGGER notes_vector_todo_ad AFTER DELETE ON notes BEGIN
    DELETE FROM vector_todo WHERE unit = old.id;
END;
