-- Each folder of the transcripts tree as the last disk check saw it: a folder whose mtime and
-- inode are unchanged holds the entries it held then, so it is not listed again
-- (sessions/folders.py). mtime_ns is NULL for a folder that must be listed on every check.
CREATE TABLE folders (
    path      TEXT PRIMARY KEY,          -- relative to the transcripts folder; '' is the folder
    mtime_ns  INTEGER,
    inode     INTEGER
);
