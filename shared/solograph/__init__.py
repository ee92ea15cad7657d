"""solograph: memory for coding agents across a portfolio, over SQLite FTS5."""

__version__ = "0.1.0"
