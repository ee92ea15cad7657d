-- Every working folder a file's records carry, not only the first: a session that moves into
-- a private folder is private, and is purged when a folder it visited later gets a marker.
CREATE TABLE cwds (
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    cwd         TEXT NOT NULL,
    PRIMARY KEY (file_id, cwd)
) WITHOUT ROWID;
CREATE INDEX cwds_cwd ON cwds(cwd);

-- Files read before this table existed: their first folder is all that is known.
INSERT OR IGNORE INTO cwds (file_id, cwd) SELECT id, cwd FROM files WHERE cwd != '';

-- A new file is written under secure_delete from its first page; an older one may hold old
-- copies of rows in free space, and is vacuumed at its first purge.
INSERT INTO meta (key, value) SELECT 'free_space_zeroed', '1'
WHERE NOT EXISTS (SELECT 1 FROM files);
