"""SQL migrations, one folder per store, applied in name order and recorded by name."""
