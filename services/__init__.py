"""Thin adapters over the core: the API, the worker pool, the MCP gateway."""
