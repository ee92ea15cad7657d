"""Search-quality evaluation: known-answer suites, their scorer and the baseline gate."""
