"""The knowledge base: one index over a folder of markdown for search, the link graph, the
prompt hint and the memory nudge.

Modules: store (the index of one KB folder, its layout), sync (the folder into the index,
before every read, and the `index_kb` job), search (ranking), answers (kb_search, kb_get,
kb_graph, kb_hint, kb_aliases, kb_compact); domain modules: layout (.solograph.yaml), markdown
(frontmatter, sections, links), resolve (link targets), walk, aliases, suggest, graph, hint,
stacks, memgate, projectmap. This package's __init__ imports only the index description, so the
hook pays only for what it uses.
"""

from solograph.index import Answer, Index, Job, Param

STORE = "kb"
_RUN = "solograph.kb.answers:"

INDEX = Index(
    name=STORE,
    title="knowledge base",
    db="solograph.kb.store:db_path",
    open="solograph.kb.store:opened",
    as_of="solograph.kb.store:as_of",
    rebuild="solograph.kb.sync:rebuild",
    sync="solograph.kb.sync:sync_for_read",
    sync_job="index_kb",
    embed_job="embed_kb",
    lane="solograph.kb.meaning:LANE",
    pending_note=("{n} changed page(s) not read yet (newest were read first); the next search "
                  "or `solograph index-kb` (or the worker) reads them"),
    answers=(
        Answer(
            name="kb_search", run=_RUN + "kb_search",
            schema="solograph.kb.shapes:KbSearchOrPage",
            params=(
                Param("query", str, 'words to find, e.g. "privacy architecture"', None,
                      http="q"),
                Param("path", str, 'only pages under this folder of the KB, e.g. "wiki/"', None),
                Param("limit", int, "how many pages, e.g. 10", 10),
                Param("pages", bool, "only the wiki's pages", False),
                Param("expand", bool, "add up to 3 pages the hits link to most", False),
                Param("get", str, 'read one page whole, or one section with #Heading, instead '
                      'of searching: a path from a result, e.g. "wiki/x.md#Setup"', None,
                      max_length=1000),
            ),
            title="Search the knowledge base",
            description=(
                "Full-text search over the user's own notes and wiki (markdown): decisions, "
                "architecture, how-tos. Example: {\"query\": \"privacy architecture\"}. "
                "To read a hit whole, pass its path as `get` (a section: "
                "{\"get\": \"wiki/x.md#Setup\"}); the answer is then the page alone, its text "
                "in `text`."),
            route="/v1/kb", always_load=True, meaning="solograph.kb.meaning:SEARCH"),
        Answer(
            name="kb_get", run=_RUN + "kb_get", schema="solograph.kb.shapes:KbPage",
            params=(Param("ref", str, "wiki/x.md or wiki/x.md#Heading", max_length=1000),),
            title="Read one KB page or section",
            description="One page of the knowledge base, or one section with `#Heading`.",
            # The KB's meaning side, though it never fuses: its freshness then says what waits
            # to be embedded, as kb_search's `get` (the same page) does.
            route="/v1/kb/page", tool=False, meaning="solograph.kb.meaning:SEARCH"),
        Answer(
            name="kb_graph", run=_RUN + "kb_graph",
            params=(
                Param("path", str, "this folder of the KB instead of the wiki", None),
                Param("page", str, "one page's backlinks and links", None),
                Param("check", bool, "only the problems", False),
                Param("nodes", bool, "every page and link too, for drawing the graph", False),
            ),
            title="The wiki's link graph",
            description="Hubs, connectors, orphans, broken links, pages missing from index.md; "
                        "with `page`, its backlinks and links.",
            route="/v1/kb/graph", tool=False, fresh=False),
        Answer(
            name="kb_hint", run=_RUN + "kb_hint",
            params=(
                Param("prompt", str, "the prompt", max_length=20_000),
                Param("session", str, "name each page once in this session", None,
                      max_length=100),
            ),
            title="The prompt hook's pointer",
            description="The wiki page a prompt names, or nothing.",
            route="/v1/kb/hint", tool=False, fresh=False),
        Answer(
            name="kb_aliases", run=_RUN + "kb_aliases",
            params=(Param("suggest", bool, "groups the KB knows that the table lacks", False),),
            title="The alias table",
            description="The alias table (wiki/_aliases.yaml), or groups to add to it.",
            route="/v1/kb/aliases", tool=False, fresh=False),
        Answer(
            name="kb_compact", run=_RUN + "kb_compact", schema="solograph.kb.shapes:KbCompact",
            params=(
                Param("folder", str, "the inbox folder (default `kb: inbox:`, 3-inbox/)", None,
                      http="dir"),
                Param("min_chars", int, "longer than this many characters", 2000),
                Param("days", int, "older than this many days", 7),
                Param("include_all", bool, "every note of the inbox, with why it is not ready",
                      False, http="all"),
            ),
            title="Inbox notes ready to compact",
            description="The KB inbox's notes ready to be compacted into the wiki: long "
                        "enough, old enough, not marked `compacted: true`. Lists only.",
            route="/v1/kb/compact", tool=False),
    ),
    jobs=(
        Job("index_kb", "solograph.kb.sync:index_kb", "an index run of the knowledge base",
            route="index-kb", locked=False),
        Job("embed_kb", "solograph.kb.meaning:embed_job",
            "vectors of the KB sections waiting for them (the meaning lane)",
            route="embed-kb", locked=False),
    ),
)
