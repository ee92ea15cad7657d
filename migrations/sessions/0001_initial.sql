-- The session index: every Claude Code conversation read from the transcripts folder, kept
-- after Claude Code deletes the transcript. entries hold the (redacted) conversation; chunks_fts
-- is derived state over them, rebuildable at any time from entries.words.

CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,         -- relative to the transcripts folder, '/' separated
    kind        TEXT NOT NULL,                -- main | subagent
    session_id  TEXT NOT NULL DEFAULT '',     -- the first sessionId its records carry
    cwd         TEXT NOT NULL DEFAULT '',     -- the first cwd its records carry
    size        INTEGER NOT NULL DEFAULT 0,
    mtime_ns    INTEGER NOT NULL DEFAULT 0,
    inode       INTEGER NOT NULL DEFAULT 0,
    offset      INTEGER NOT NULL DEFAULT 0,   -- bytes read so far, whole lines only
    lines       INTEGER NOT NULL DEFAULT 0,   -- whole lines read so far
    bad_lines   INTEGER NOT NULL DEFAULT 0,   -- lines that were not a JSON object
    entries     INTEGER NOT NULL DEFAULT 0,   -- conversation records taken from it
    head_hash   TEXT NOT NULL DEFAULT '',     -- the first bytes read: tells a replaced file
    tail_hash   TEXT NOT NULL DEFAULT '',     -- the bytes just before `offset`
    status      TEXT NOT NULL DEFAULT 'live'  -- live | deleted | temp | private
);
CREATE INDEX files_session ON files(session_id);

CREATE TABLE sessions (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL UNIQUE,
    cwd           TEXT NOT NULL DEFAULT '',
    title         TEXT NOT NULL DEFAULT '',
    custom_title  TEXT NOT NULL DEFAULT '',   -- /rename: wins over every other title
    ai_title      TEXT NOT NULL DEFAULT '',
    first_at      TEXT NOT NULL DEFAULT '',
    last_at       TEXT NOT NULL DEFAULT '',
    messages      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    session     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,             -- its place among the file's chunks
    size        INTEGER NOT NULL DEFAULT 0,   -- characters of stems it holds
    entries     INTEGER NOT NULL DEFAULT 0,   -- entries it holds
    UNIQUE (file_id, seq)
);
CREATE INDEX chunks_session ON chunks(session);

CREATE TABLE entries (
    id          INTEGER PRIMARY KEY,
    session     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    chunk       INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,             -- its line number in the file
    uuid        TEXT NOT NULL,
    role        TEXT NOT NULL,                -- user | assistant
    kind        TEXT NOT NULL,                -- prompt | command | notice | compact | reply
    at          TEXT NOT NULL DEFAULT '',     -- ISO-8601 UTC
    sidechain   INTEGER NOT NULL DEFAULT 0,
    text        TEXT NOT NULL DEFAULT '',     -- redacted
    tools       TEXT NOT NULL DEFAULT '',     -- JSON [[name, {arg: value}]], redacted key args
    words       TEXT NOT NULL DEFAULT ''      -- stems of text and tools: what chunks_fts holds
);
CREATE UNIQUE INDEX entries_uuid ON entries(session, uuid);
CREATE INDEX entries_leaf ON entries(uuid);
CREATE INDEX entries_chunk ON entries(chunk, seq);
CREATE INDEX entries_file ON entries(file_id, seq);
CREATE INDEX entries_session ON entries(session, at);

-- Old-style titles: `leafUuid` names the last message of the conversation titled, which may
-- sit in another file.
CREATE TABLE summaries (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    leaf_uuid   TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL
);
CREATE INDEX summaries_file ON summaries(file_id);
CREATE INDEX summaries_leaf ON summaries(leaf_uuid);

-- One document per chunk: the stems of a run of consecutive entries of one file, what the user
-- typed (asked) apart from the rest (said). Contentless: the text is rebuilt from entries.words
-- whenever a row must be deleted.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    asked, said, content='', tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');

CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);
