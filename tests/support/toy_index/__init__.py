"""A fifth index, made the way the four real ones are, to prove that adding one is a package
with the four entry modules plus one line in `solograph.indexes.PACKAGES`: a folder of plain
text notes (`SOLOGRAPH_HOME/toy-notes/*.txt`), searchable by their words, and by meaning
through its own part of the lane (meaning.py, named by `lane`)."""

from solograph.index import Answer, Index, Job, Param

INDEX = Index(
    name="toy",
    title="toy notes",
    db="tests.support.toy_index.store:db_path",
    open="tests.support.toy_index.store:opened",
    as_of="tests.support.toy_index.store:as_of",
    sync="tests.support.toy_index.sync:sync_for_read",
    sync_job="index_toy",
    embed_job="embed_toy",
    lane="tests.support.toy_index.meaning:LANE",
    pending_note="{n} note(s) not read yet",
    migrations="tests.support.toy_index.migrations",
    answers=(
        Answer(
            name="toy_search", run="tests.support.toy_index.answers:toy_search",
            schema="tests.support.toy_index.answers:ToySearch",
            params=(Param("query", str, 'words to find, e.g. "kettle"', http="q"),
                    Param("limit", int, "how many notes", 5)),
            title="Search the toy notes",
            description='The toy notes holding the words. Example: {"query": "kettle"}.',
            route="/v1/toy", command="toy", meaning="tests.support.toy_index.meaning:SEARCH"),
    ),
    jobs=(Job("index_toy", "tests.support.toy_index.sync:index_toy", "an index run of the toy "
              "notes", route="index-toy", locked=False, command="index-toy"),
          Job("embed_toy", "tests.support.toy_index.meaning:embed_job",
              "vectors of the toy notes (the meaning lane)", locked=False)),
)
