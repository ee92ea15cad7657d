-- Every coding agent's sessions, not only Claude Code's (sessions/agents/): each file and each
-- session says which agent wrote it. Rows read before this are Claude Code's.
ALTER TABLE files ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude';
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude';
CREATE INDEX files_agent ON files(agent, path);
CREATE INDEX sessions_agent ON sessions(agent);
