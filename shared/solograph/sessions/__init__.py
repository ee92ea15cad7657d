"""The session index: every past Claude Code conversation, searchable, kept after Claude Code
deletes its transcript.

Modules: store (sessions.db), sync (the transcripts folder into the index, before every read,
and the `sync_sessions` job), search and snippets (ranking), answers (session_search,
session_export); domain modules: records (parsing lines), titles, chunks (the FTS documents),
ingest (one file from its offset), policy (temp and private folders), upkeep (titles, purges,
re-redaction), transcript (one session: matches, export).
"""

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
            ),
            title="Search past sessions",
            description=(
                "Full-text search over past Claude Code conversations, archived ones too: what "
                "was tried, decided or fixed before. Example: {\"query\": \"webhook retry\"}."),
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
    ),
    jobs=(
        Job("sync_sessions", "solograph.sessions.sync:sync_sessions",
            "a sync of the Claude Code transcripts", route="sync-sessions"),
        Job("embed_sessions", "solograph.sessions.meaning:LANE.embed_job",
            "vectors of the session chunks waiting for them (the meaning lane)",
            route="embed-sessions"),
    ),
)
