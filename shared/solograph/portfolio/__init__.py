"""The portfolio index: the registry of checkouts, their definitions, files and packages."""

LAST_SCAN = "last_scan"  # the portfolio store's meta key: when the last scan finished
