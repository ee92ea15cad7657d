-- What the last walk saw of each folder of the KB, so a read can trust the entries of a folder
-- that did not change (kb/check.py): its ctime (it moves when an entry is added, removed or
-- renamed, and on chmod; -1 when not to be trusted), its inode, the stats of its ignore files,
-- and how many of its entries could not be opened.
CREATE TABLE folders (
    path        TEXT PRIMARY KEY,             -- relative to the KB root, '' for the root
    ctime_ns    INTEGER NOT NULL,
    inode       INTEGER NOT NULL,
    rules       TEXT NOT NULL DEFAULT '',
    denied      INTEGER NOT NULL DEFAULT 0
);
-- The pages changed last are stat'ed by every read; pages to re-read whatever happens
-- (size -1) and pages with a problem are found without reading every row.
CREATE INDEX docs_mtime ON docs(mtime_ns);
CREATE INDEX docs_forced ON docs(size) WHERE size = -1;
CREATE INDEX docs_problem ON docs(problem) WHERE problem != '';
