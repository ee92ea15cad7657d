"""The knowledge base: one index over a folder of markdown for search, the link graph, the
prompt hint and the memory nudge.

Modules, one concept each: layout (.solograph.yaml), markdown (frontmatter, sections, links),
resolve (link targets), sync (the folder into the index), aliases, search, graph, hint,
stacks, memgate, projectmap and hook (the lean Claude Code hook). This package's __init__
imports nothing, so the hook pays only for what it uses.
"""
