"""The sources index: YouTube talks, ProductHunt launches, TrustMRR revenue pages, Telegram
exports, in one FTS5 index at $SOURCES_ROOT/search.db.

Modules: store (the tables and the one write path), sync (the write jobs: yt-dlp, Telegram,
topics, deletions), search (ranking), answers (source_search: search, list, tags, related);
domain modules: vtt (subtitles), chunks (transcript -> timed chunks), youtube (yt-dlp, lazily
imported), topics (keyword tags), telegram (Desktop exports).
"""

from solograph.index import Answer, Index, Job, Param

STORE = "sources"
CRAWLS = ("producthunt", "trustmrr")  # the spiders in services/scrapers (a test holds them equal)
# The sources this code indexes: the crawls, and what the sync reads itself.
SOURCES = tuple(sorted((*CRAWLS, "telegram", "youtube")))

INDEX = Index(
    name=STORE,
    title="sources",
    db="solograph.sources.store:db_path",
    open="solograph.sources.store:opened",
    as_of="solograph.sources.store:as_of",
    rebuild="solograph.sources.store:rebuild",
    embed_job="embed_sources",
    lane="solograph.sources.meaning:LANE",
    answers=(
        Answer(
            name="source_search",
            run="solograph.sources.answers:source_search",
            schema="solograph.sources.shapes:SourceSearch",
            params=(
                Param("query", str, 'words to find (for search), or a video id (for related), '
                      'e.g. "pricing tiers"', None, http="q"),
                Param("action", str, 'search, list, tags or related, e.g. "search"', "search",
                      choices=("search", "list", "tags", "related")),
                Param("source", str, 'only this source, e.g. "youtube", "producthunt", '
                      '"trustmrr"', None, max_length=40),
                Param("limit", int, "how many results, e.g. 10", 10),
            ),
            title="Search talks, launches and revenue pages",
            description=(
                "Indexed external sources: YouTube talk transcripts, ProductHunt launches, "
                "TrustMRR revenue pages, Telegram chat exports. action: search (default), list, "
                "tags, related. "
                "Example: {\"query\": \"pricing tiers\", \"source\": \"youtube\"}."),
            route="/v1/sources", sync=False,
            meaning="solograph.sources.meaning:SEARCH"),
    ),
    jobs=(
        Job("index_youtube", "solograph.sources.sync:index_youtube",
            "YouTube videos or a channel's newest for the sources index",
            route="index-youtube", locked=False, idempotent=False),
        Job("embed_sources", "solograph.sources.meaning:embed_job",
            "vectors of the source documents waiting for them (the meaning lane)",
            route="embed-sources"),
    ),
)
