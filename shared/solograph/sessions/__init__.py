"""The session index: every past conversation of every coding agent (Claude Code, Codex CLI,
Gemini CLI, Cursor, Copilot CLI, OpenCode, aider), searchable, kept after the agent deletes
its transcript.

Modules: store (sessions.db), sync (the transcripts folder into the index, before every read,
and the `sync_sessions` job), search and snippets (ranking), answers (session_search,
session_export); domain modules: records (parsing lines), titles, chunks (the FTS documents),
ingest (one file from its offset), agents/ (one reader module per agent; others.py syncs
them), policy (temp and private folders), upkeep (titles, purges,
re-redaction), transcript (one session: matches, export).
"""

from solograph.config import AGENT_NAMES
from solograph.index import Answer, Index, Job, Param

STORE = "sessions"

INDEX = Index(
    name=STORE,
    title="past sessions",
    db="solograph.sessions.store:db_path",
    open="solograph.sessions.store:opened",
    as_of="solograph.sessions.store:as_of",
    rebuild="solograph.sessions.store:rebuild",
    sync="solograph.sessions.sync:sync_for_read",
    sync_job="sync_sessions",
    embed_job="embed_sessions",
    lane="solograph.sessions.meaning:LANE",
    folder="solograph.sessions.sync:folder_access",
    pending_note=("{n} changed transcript file(s) not read yet (newest were read first); the "
                  "next search or `solograph sync-sessions` (or the worker) reads them"),
    answers=(
        Answer(
            name="session_search",
            run="solograph.sessions.answers:session_search",
            schema="solograph.sessions.shapes:SessionSearch",
            params=(
                Param("query", str, 'words to find, e.g. "webhook retry"', http="q"),
                Param("project", str, 'only this project, e.g. "my-app"', None, max_length=200),
                Param("limit", int, "how many sessions, e.g. 10", 10),
                Param("session", str, "read this found session: its messages matching the "
                      "query, in order, with their neighbours", None, max_length=100),
                Param("exclude_session", str, "leave this session out (the one asking)", None,
                      max_length=100, caller="session"),
                Param("agent", str, "only this coding agent's sessions, e.g. \"codex\"", None,
                      choices=AGENT_NAMES, max_length=40),
            ),
            title="Search past sessions",
            description=(
                "Full-text search over past coding-agent conversations (Claude Code, Codex, "
                "Gemini, Cursor, Copilot, OpenCode, aider), archived ones too: what was tried, "
                "decided or fixed before. Example: {\"query\": \"webhook retry\"}."),
            route="/v1/sessions", always_load=True,
            meaning="solograph.sessions.meaning:SEARCH"),
        Answer(
            name="session_export",
            run="solograph.sessions.answers:session_export",
            schema="solograph.sessions.shapes:SessionExport",
            params=(
                Param("session_id", str, "the session's id, from a search result",
                      max_length=100),
                Param("fmt", str, "markdown or jsonl", "markdown", choices=("markdown", "jsonl"),
                      http="format"),
            ),
            title="Export one past session",
            description="One stored conversation, whole, as markdown or JSONL.",
            route="/v1/sessions/export", tool=False, bounded=False, fresh=False),
        Answer(
            name="session_list",
            run="solograph.sessions.answers:session_list",
            params=(
                Param("project", str, 'only this project, e.g. "my-app"', None, max_length=200),
                Param("limit", int, "how many sessions, e.g. 50", 50),
                Param("offset", int, "skip this many of the newest first", 0),
            ),
            title="List past sessions",
            description="Stored sessions newest first, archived ones too: project, dates, "
                        "title, messages, live or archived.",
            route="/v1/sessions/list", command="session-list", tool=False),
        Answer(
            name="session_read",
            run="solograph.sessions.answers:session_read",
            params=(
                Param("session_id", str, "the session's id, from a search result",
                      max_length=100),
                Param("offset", int, "the first message (default 0, or the page of the "
                      "first match)", None),
                Param("size", int, "messages on the page (at most 500)", 100),
                Param("query", str, "mark the messages holding these words", None, http="q"),
            ),
            title="Read one past session, a page at a time",
            description="One page of a stored conversation in order, sub-agents inline, tool "
                        "calls with their arguments; with a query, the page of its first "
                        "match. Example: {\"session_id\": \"5f0c2a9e\", \"query\": \"webhook\"}.",
            route="/v1/sessions/read", command="session-read", tool=False, sync=False,
            fresh=False),
    ),
    jobs=(
        Job("sync_sessions", "solograph.sessions.sync:sync_sessions",
            "a sync of every agent's session files", route="sync-sessions"),
        Job("embed_sessions", "solograph.sessions.meaning:embed_job",
            "vectors of the session chunks waiting for them (the meaning lane)",
            route="embed-sessions"),
    ),
)
