-- The meaning lane's queue and counts, as every store with vectors keeps them: the documents
-- waiting for a vector, the newest indexed first (`rank`), and one row saying how many vectors
-- there are and how many wait, so that a read says so without counting the store.

CREATE TABLE vector_todo (
    unit        INTEGER PRIMARY KEY,          -- documents.id
    rank        NOT NULL DEFAULT 0
);
CREATE INDEX vector_todo_rank ON vector_todo(rank, unit);

-- What a search ranks (a video, else the document's key) beside each vector, so reading the
-- vectors reads no document.
ALTER TABLE document_vectors ADD COLUMN grp;
UPDATE document_vectors SET grp = (SELECT COALESCE(video, key) FROM documents
                                   WHERE id = document);

ALTER TABLE vector_rev ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN model TEXT NOT NULL DEFAULT '';

DROP TRIGGER document_vectors_ai;
DROP TRIGGER document_vectors_ad;
DROP TRIGGER document_vectors_au;
CREATE TRIGGER document_vectors_ai AFTER INSERT ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.document;
END;
CREATE TRIGGER document_vectors_au AFTER UPDATE ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.document;
END;
-- A vector dropped while its document stays (its text changed, another model) waits again;
-- one dropped with its document (the cascade) does not.
CREATE TRIGGER document_vectors_ad AFTER DELETE ON document_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT id, indexed_at FROM documents WHERE id = old.document;
END;

CREATE TRIGGER vector_todo_ai AFTER INSERT ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_todo_ad AFTER DELETE ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending - 1 WHERE id = 1;
END;

CREATE TRIGGER documents_vector_todo_ai AFTER INSERT ON documents BEGIN
    INSERT OR IGNORE INTO vector_todo (unit, rank) VALUES (new.id, new.indexed_at);
END;
-- documents_text_vectors (0002) drops the vector of a document whose text changed, and the
-- vector's trigger queues the document again; one without a vector yet stays queued.
CREATE TRIGGER documents_vector_todo_ad AFTER DELETE ON documents BEGIN
    DELETE FROM vector_todo WHERE unit = old.id;
END;

INSERT INTO vector_todo (unit, rank)
    SELECT d.id, d.indexed_at FROM documents d
    WHERE NOT EXISTS (SELECT 1 FROM document_vectors v WHERE v.document = d.id);
UPDATE vector_rev SET vectors = (SELECT COUNT(*) FROM document_vectors),
    model = COALESCE((SELECT model FROM document_vectors GROUP BY model ORDER BY COUNT(*) DESC
                      LIMIT 1), '') WHERE id = 1;
DELETE FROM document_vectors WHERE model != (SELECT model FROM vector_rev WHERE id = 1);
