-- The sources index ($SOURCES_ROOT/search.db): talks, launches, revenue pages and chat exports.
-- These tables are the contract between what writes them (yt-dlp ingest, the Scrapy spiders,
-- the Telegram importer: all through solograph.sources.store) and what reads them (the CLI,
-- the HTTP APIs, MCP). Every stored text is redacted first.

-- One searchable document, keyed `<source>/<id>`. A YouTube video is one document per chunk
-- (`youtube/<video>@<second>`), each with `video` set so a search can show a video once.
CREATE TABLE documents (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,          -- '<source>/<id>'
    source      TEXT NOT NULL,                 -- youtube | producthunt | trustmrr | telegram | ...
    title       TEXT NOT NULL DEFAULT '',
    url         TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL DEFAULT '',
    date        TEXT NOT NULL DEFAULT '',      -- ISO-8601 date (or date-time) it was published
    metadata    TEXT NOT NULL DEFAULT '{}',    -- JSON object, per source (upvotes, mrr, chapter...)
    video       TEXT,                          -- youtube: the video id; NULL for other sources
    upvotes     INTEGER NOT NULL DEFAULT 0,
    nudge       REAL NOT NULL DEFAULT 0,       -- 0..1 from upvotes: ranks up to 15% higher
    indexed_at  REAL NOT NULL DEFAULT 0,
    title_words TEXT NOT NULL DEFAULT '',      -- stems (solograph.text.tokens.index_text)
    words       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX documents_source ON documents(source, indexed_at);
CREATE INDEX documents_video ON documents(video);

-- Stems only, kept in step with `documents` by the triggers below; rebuildable at any time
-- with INSERT INTO documents_fts(documents_fts) VALUES ('rebuild').
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title_words, words, content='documents', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);

CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts (rowid, title_words, words)
    VALUES (new.id, new.title_words, new.words);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, title_words, words)
    VALUES ('delete', old.id, old.title_words, old.words);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title_words, words ON documents BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, title_words, words)
    VALUES ('delete', old.id, old.title_words, old.words);
    INSERT INTO documents_fts (rowid, title_words, words)
    VALUES (new.id, new.title_words, new.words);
END;

CREATE TABLE videos (
    video       TEXT PRIMARY KEY,              -- YouTube's id
    title       TEXT NOT NULL DEFAULT '',
    channel     TEXT NOT NULL DEFAULT '',
    url         TEXT NOT NULL DEFAULT '',
    date        TEXT NOT NULL DEFAULT '',      -- upload date, YYYY-MM-DD
    duration    REAL NOT NULL DEFAULT 0,       -- seconds
    description TEXT NOT NULL DEFAULT '',
    subtitles   TEXT NOT NULL DEFAULT '',      -- 'en' | 'en (auto)' | '' when none was usable
    chapters    INTEGER NOT NULL DEFAULT 0,    -- chapters the video declares
    chunks      INTEGER NOT NULL DEFAULT 0,    -- documents written for it
    indexed_at  REAL NOT NULL DEFAULT 0
);

CREATE TABLE video_tags (
    video       TEXT NOT NULL REFERENCES videos(video) ON DELETE CASCADE,
    tag         TEXT NOT NULL,
    score       REAL NOT NULL,                 -- keyword hits, title hits counted twice
    PRIMARY KEY (video, tag)
);
CREATE INDEX video_tags_tag ON video_tags(tag);

-- Topic tags by keyword: seeded once with solograph.sources.topics.DEFAULT_TOPICS; a user adds
-- rows (`solograph sources topic TAG KEYWORD...`) and every video is tagged again.
CREATE TABLE topics (
    tag         TEXT NOT NULL,
    keyword     TEXT NOT NULL,
    PRIMARY KEY (tag, keyword)
);

-- One row per crawl or import run: what was indexed and what could not be parsed.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL,
    target      TEXT NOT NULL DEFAULT '',      -- start URL, channel or file
    started_at  REAL NOT NULL,
    finished_at REAL NOT NULL,
    indexed     INTEGER NOT NULL DEFAULT 0,
    problems    TEXT NOT NULL DEFAULT '[]'     -- JSON [{"url", "reason"}]
);
CREATE INDEX runs_source ON runs(source, finished_at);

CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);
