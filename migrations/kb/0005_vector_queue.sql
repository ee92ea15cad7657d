-- The meaning lane's queue and counts, as every store with vectors keeps them: the sections
-- waiting for a vector (catalogs are never embedded), the wiki's pages first, then the newest
-- (`rank`), and one row saying how many vectors there are and how many wait, so that a read
-- says so without counting the store.

CREATE TABLE vector_todo (
    unit        INTEGER PRIMARY KEY,          -- sections.id
    rank        NOT NULL DEFAULT 0
);
CREATE INDEX vector_todo_rank ON vector_todo(rank, unit);

-- What a search ranks (sections.doc) beside each vector, so reading the vectors reads no
-- section.
ALTER TABLE section_vectors ADD COLUMN grp;
UPDATE section_vectors SET grp = (SELECT doc FROM sections WHERE id = section);

ALTER TABLE vector_rev ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE vector_rev ADD COLUMN model TEXT NOT NULL DEFAULT '';

DROP TRIGGER section_vectors_ai;
DROP TRIGGER section_vectors_ad;
DROP TRIGGER section_vectors_au;
CREATE TRIGGER section_vectors_ai AFTER INSERT ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.section;
END;
CREATE TRIGGER section_vectors_au AFTER UPDATE ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1 WHERE id = 1;
    DELETE FROM vector_todo WHERE unit = new.section;
END;
-- A vector dropped while its section stays (another model) waits again; one dropped with its
-- section (the cascade) does not.
CREATE TRIGGER section_vectors_ad AFTER DELETE ON section_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT s.id, d.in_pages * 10000000000000 + d.mtime_ns / 1000000000
        FROM sections s JOIN docs d ON d.id = s.doc WHERE s.id = old.section AND d.catalog = 0;
END;

CREATE TRIGGER vector_todo_ai AFTER INSERT ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_todo_ad AFTER DELETE ON vector_todo BEGIN
    UPDATE vector_rev SET pending = pending - 1 WHERE id = 1;
END;

-- Sections are never updated in place: a changed page's are deleted and written again.
CREATE TRIGGER sections_vector_todo_ai AFTER INSERT ON sections BEGIN
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT new.id, d.in_pages * 10000000000000 + d.mtime_ns / 1000000000
        FROM docs d WHERE d.id = new.doc AND d.catalog = 0;
END;
CREATE TRIGGER sections_vector_todo_ad AFTER DELETE ON sections BEGIN
    DELETE FROM vector_todo WHERE unit = old.id;
END;

INSERT INTO vector_todo (unit, rank)
    SELECT s.id, d.in_pages * 10000000000000 + d.mtime_ns / 1000000000
    FROM sections s JOIN docs d ON d.id = s.doc
    WHERE d.catalog = 0 AND NOT EXISTS (SELECT 1 FROM section_vectors v WHERE v.section = s.id);
UPDATE vector_rev SET vectors = (SELECT COUNT(*) FROM section_vectors),
    model = COALESCE((SELECT model FROM section_vectors GROUP BY model ORDER BY COUNT(*) DESC
                      LIMIT 1), '') WHERE id = 1;
-- Vectors of any other model wait again (the lane keeps one model's per store).
DELETE FROM section_vectors WHERE model != (SELECT model FROM vector_rev WHERE id = 1);
