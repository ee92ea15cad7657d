-- The meaning lane (the `semantic` extra): one vector per document (its title and text). A
-- vector leaves with its document (foreign key cascade: `delete`, a video indexed again) and
-- with any change of the document's title or text (an upsert, re-redaction).

CREATE TABLE document_vectors (
    document    INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
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

CREATE TRIGGER document_vectors_ai AFTER INSERT ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER document_vectors_ad AFTER DELETE ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER document_vectors_au AFTER UPDATE ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
END;

CREATE TRIGGER documents_text_vectors AFTER UPDATE OF title, text ON documents
WHEN old.title IS NOT new.title OR old.text IS NOT new.text BEGIN
    DELETE FROM document_vectors WHERE document = old.id;
END;
