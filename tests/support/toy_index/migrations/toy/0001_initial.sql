CREATE TABLE notes (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, text TEXT NOT NULL,
                    words TEXT NOT NULL, mtime_ns INTEGER NOT NULL);
CREATE VIRTUAL TABLE notes_fts USING fts5(words, content='notes', content_rowid='id');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
