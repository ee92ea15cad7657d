"""What the gateway says before any tool runs: its instructions and its answer to
`initialize`, in a module that imports nothing, so the stdio server can answer `initialize`
while the MCP SDK is still loading (`stdio.py`). A test compares `initialize_result` with the
SDK's own answer, so the two cannot drift apart."""

from __future__ import annotations

from solograph import __version__

INSTRUCTIONS = """\
solograph is memory across the user's whole portfolio: every repository, past Claude Code \
sessions, their notes and indexed sources. All tools are read-only and answer compact JSON.
- session_search: past conversations (what was tried, decided or fixed before).
- kb_search: the user's own notes and wiki (decisions, architecture, how-tos).
- symbol_search: where a class, function or type is defined across all repositories.
- source_search: indexed talks, launches, revenue pages and chats (YouTube, ProductHunt, \
TrustMRR, Telegram exports).
- project_info: a project's stack, dependencies and size (explain, deps); portfolio stats; \
packages shared by several projects (shared); duplicate names (dupes); the project list.
An error answer carries a hint naming the next step."""

# The SDK's handshake revisions (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS), oldest first.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# What MCPServer offers (its tools, and the empty prompts and resources it always registers).
CAPABILITIES = {"prompts": {"listChanged": False},
                "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False}}


def initialize_result(params: dict | None) -> dict:
    """The result of `initialize` for the client's `params`: its protocol revision when the
    server speaks it, else the newest handshake revision."""
    asked = (params or {}).get("protocolVersion")
    version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS,
            "protocolVersion": version,
            "serverInfo": {"name": "solograph", "version": __version__}}
