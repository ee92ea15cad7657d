-- What a sync learns from a page's bytes besides its text: a hash of the file, so a page
-- whose mtime moved without a change (`touch`, a checkout, a sync tool) is not read again, and
-- the frontmatter's `compacted: true`, for the inbox listing.
ALTER TABLE docs ADD COLUMN hash TEXT NOT NULL DEFAULT '';
ALTER TABLE docs ADD COLUMN compacted INTEGER NOT NULL DEFAULT 0;
-- Every page is read once more, to fill both.
UPDATE docs SET size = -1;
