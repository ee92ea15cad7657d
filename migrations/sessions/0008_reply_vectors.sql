-- A reply of fewer than 100 characters gets no vector: it narrates the next step ("Now let me
-- read the test file:"), which the words find as well, and its generic vector came up for
-- questions it does not answer (sessions/meaning.py has the measures). Prompts and commands
-- keep theirs from 30 characters. The vectors such replies have are dropped, and they wait no
-- more.

DROP TRIGGER entry_vectors_ad;
CREATE TRIGGER entry_vectors_ad AFTER DELETE ON entry_vectors BEGIN
    UPDATE vector_rev SET rev = rev + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT id, at FROM entries WHERE id = old.entry
        AND (kind IN ('prompt', 'command') AND length(text) >= 30
             OR kind = 'reply' AND length(text) >= 100);
END;

DROP TRIGGER entries_vector_todo_ai;
CREATE TRIGGER entries_vector_todo_ai AFTER INSERT ON entries
WHEN new.kind IN ('prompt', 'command') AND length(new.text) >= 30
     OR new.kind = 'reply' AND length(new.text) >= 100 BEGIN
    INSERT OR IGNORE INTO vector_todo (unit, rank) VALUES (new.id, new.at);
END;

DROP TRIGGER entries_vector_todo_au;
CREATE TRIGGER entries_vector_todo_au AFTER UPDATE OF text, kind ON entries
WHEN old.text IS NOT new.text OR old.kind IS NOT new.kind BEGIN
    DELETE FROM entry_vectors WHERE entry = old.id;
    DELETE FROM vector_todo WHERE unit = old.id;
    INSERT OR IGNORE INTO vector_todo (unit, rank)
        SELECT new.id, new.at
        WHERE new.kind IN ('prompt', 'command') AND length(new.text) >= 30
              OR new.kind = 'reply' AND length(new.text) >= 100;
END;

DELETE FROM entry_vectors WHERE entry IN (
    SELECT id FROM entries WHERE kind = 'reply' AND length(text) < 100);
DELETE FROM vector_todo WHERE unit IN (
    SELECT id FROM entries WHERE kind = 'reply' AND length(text) < 100);
