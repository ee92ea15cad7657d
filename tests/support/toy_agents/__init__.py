"""Agents made up for tests: a reader module is named by its agent."""
