-- A session's folder is where it started: the first folder of the main transcript holding its
-- earliest message (the folder `claude --resume` finds it from), never a sub-agent's later one.
UPDATE sessions SET cwd = COALESCE((
    SELECT f.cwd FROM entries e JOIN files f ON f.id = e.file_id
    WHERE e.session = sessions.id AND f.kind = 'main' AND f.cwd != ''
    ORDER BY e.at = '', e.at, e.seq LIMIT 1), cwd);
