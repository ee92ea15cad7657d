"""The one translation of domain errors for the HTTP services (the API, the sources API and the
MCP gateway's own endpoints): a status and the error object every adapter returns."""

from __future__ import annotations

from solograph.errors import (
    BadQuery,
    ConfigError,
    NotFound,
    NotIndexed,
    QueryTimeout,
    SolographError,
    StoreError,
)

# Most specific first: an error takes the status of the first class it is.
STATUS: tuple[tuple[type[SolographError], int], ...] = (
    (BadQuery, 400),
    (NotFound, 404),  # UnknownProject is one
    (NotIndexed, 404),
    (QueryTimeout, 504),
    (ConfigError, 503),
    (StoreError, 503),
)

def status_of(exc: SolographError) -> int:
    """The HTTP status for a domain error; errors the services define themselves (the broker
    being down) carry their own `status`."""
    for cls, code in STATUS:
        if isinstance(exc, cls):
            return code
    return getattr(exc, "status", 500)
