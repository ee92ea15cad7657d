-- The knowledge base index: one per KB folder, under SOLOGRAPH_HOME (never inside the KB).
-- docs and sections hold the (redacted) markdown; docs_fts and sections_fts hold its stems and
-- are derived state, rebuildable from the files at any time.

CREATE TABLE docs (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,         -- relative to the KB root, '/' separated
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    in_pages    INTEGER NOT NULL DEFAULT 0,   -- under the wiki folder (`kb: pages:`)
    catalog     INTEGER NOT NULL DEFAULT 0,   -- an index.md
    title       TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '[]',   -- JSON list
    aliases     TEXT NOT NULL DEFAULT '[]',   -- JSON list, from frontmatter
    language    TEXT NOT NULL DEFAULT '',     -- frontmatter `language`/`lang`, if any
    index_line  TEXT NOT NULL DEFAULT '',     -- what the catalog (index.md) says about it
    problem     TEXT NOT NULL DEFAULT '',     -- e.g. broken frontmatter; the body is still indexed
    body        TEXT NOT NULL DEFAULT ''      -- markdown after the frontmatter, redacted
);

CREATE TABLE sections (
    id          INTEGER PRIMARY KEY,
    doc         INTEGER NOT NULL REFERENCES docs(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    heading     TEXT NOT NULL DEFAULT '',     -- heading path: `Recipe box > Data model > Units`
    line        INTEGER NOT NULL,             -- 1-based line of the section in the file
    text        TEXT NOT NULL DEFAULT '',
    UNIQUE (doc, seq)
);

-- Every [[link]] and ![[embed]] outside code, as written; `dst` is resolved at sync.
CREATE TABLE links (
    id          INTEGER PRIMARY KEY,
    src         INTEGER NOT NULL REFERENCES docs(id) ON DELETE CASCADE,
    target      TEXT NOT NULL,                -- the path or slug, without #heading and |label
    heading     TEXT NOT NULL DEFAULT '',
    label       TEXT NOT NULL DEFAULT '',
    embed       INTEGER NOT NULL DEFAULT 0,
    line        INTEGER NOT NULL,
    context     TEXT NOT NULL DEFAULT '',     -- the line, links shown as their labels
    dst         INTEGER REFERENCES docs(id) ON DELETE SET NULL,
    asset       TEXT NOT NULL DEFAULT ''      -- a resolved non-markdown target (an image)
);
CREATE INDEX links_src ON links(src);
CREATE INDEX links_dst ON links(dst);

-- Files that are not markdown: only their paths, so that embeds of them resolve.
CREATE TABLE assets (
    path        TEXT PRIMARY KEY
);

CREATE VIRTUAL TABLE docs_fts USING fts5(
    title, meta, body, tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE docs_vocab USING fts5vocab(docs_fts, 'row');

CREATE VIRTUAL TABLE sections_fts USING fts5(
    heading, body, tokenize='unicode61 remove_diacritics 2'
);

CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);
