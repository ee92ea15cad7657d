-- The portfolio store: the registry of projects, their files, definitions and packages.
-- symbols_fts is derived state over symbols (external content), rebuildable at any time.

CREATE TABLE projects (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    path        TEXT NOT NULL UNIQUE,
    removed     INTEGER NOT NULL DEFAULT 0,   -- taken out of the registry on purpose: never re-added
    added_at    REAL NOT NULL,
    scanned_at  REAL
);

CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,                -- relative to the project root, '/' separated
    language    TEXT NOT NULL,
    lines       INTEGER NOT NULL DEFAULT 0,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    status      TEXT NOT NULL,                -- ok | syntax_error | binary | huge | unreadable
    UNIQUE (project_id, path)
);

CREATE TABLE symbols (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    line        INTEGER NOT NULL,
    scope       TEXT NOT NULL DEFAULT '',
    name_key    TEXT NOT NULL,                -- spelling-free: AuthMiddleware -> authmiddleware
    words       TEXT NOT NULL,                -- stems of the name's parts
    scope_words TEXT NOT NULL DEFAULT ''
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_project ON symbols(project_id);
CREATE INDEX symbols_name_key ON symbols(name_key);

CREATE VIRTUAL TABLE symbols_fts USING fts5(
    words, scope_words, content='symbols', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER symbols_ai AFTER INSERT ON symbols BEGIN
    INSERT INTO symbols_fts(rowid, words, scope_words)
    VALUES (new.id, new.words, new.scope_words);
END;
CREATE TRIGGER symbols_ad AFTER DELETE ON symbols BEGIN
    INSERT INTO symbols_fts(symbols_fts, rowid, words, scope_words)
    VALUES ('delete', old.id, old.words, old.scope_words);
END;

CREATE TABLE manifests (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    manager     TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    error       TEXT,
    UNIQUE (project_id, path)
);

CREATE TABLE packages (
    id          INTEGER PRIMARY KEY,
    manifest_id INTEGER NOT NULL REFERENCES manifests(id) ON DELETE CASCADE,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    manager     TEXT NOT NULL,
    name        TEXT NOT NULL,
    spec        TEXT NOT NULL DEFAULT '',
    dev         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX packages_project ON packages(project_id);
CREATE INDEX packages_name ON packages(name);

CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);
