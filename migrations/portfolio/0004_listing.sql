-- What must not move for a checkout's file list to be the one the store holds
-- (portfolio/listing.py): the paths watched and a digest of their stats; '' = list with git.
ALTER TABLE projects ADD COLUMN listing TEXT NOT NULL DEFAULT '';
