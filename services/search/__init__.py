"""The sources search API for SearXNG and a team (GET /search, /sources, /health)."""
