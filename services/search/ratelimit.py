"""A token bucket per client IP, as pure ASGI middleware.

Each client may make `rate` requests a second on average and `burst` at once; past that it gets
429 with Retry-After. Buckets live in memory (one process serves the API); idle full buckets are
dropped when the table grows, so a scan from many addresses cannot grow it without bound.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable

MAX_CLIENTS = 10_000


class TokenBuckets:
    def __init__(self, rate: float, burst: float, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate, self.burst, self.clock = rate, burst, clock
        self.buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, updated)

    def take(self, client: str) -> float:
        """0 when the request may go ahead (a token is spent), else seconds until it may."""
        now = self.clock()
        tokens, updated = self.buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - updated) * self.rate)
        if tokens >= 1:
            self.buckets[client] = (tokens - 1, now)
            if len(self.buckets) > MAX_CLIENTS:
                self._prune(now)
            return 0.0
        self.buckets[client] = (tokens, now)
        return (1 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        full = self.burst / self.rate
        for client, (_, updated) in list(self.buckets.items()):
            if now - updated >= full:
                del self.buckets[client]


class RateLimit:
    """ASGI middleware: one bucket per client address; `exempt` paths (probes) skip it."""

    def __init__(self, app: Callable, buckets: TokenBuckets, *,
                 exempt: Iterable[str] = ("/health",)) -> None:
        self.app, self.buckets, self.exempt = app, buckets, frozenset(exempt)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("path") in self.exempt:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        wait = self.buckets.take(client)
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "rate_limited", "message": "too many requests",
                           "hint": f"retry in {math.ceil(wait)} s"},
                          separators=(",", ":")).encode()
        await send({"type": "http.response.start", "status": 429, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(math.ceil(wait)).encode())]})
        await send({"type": "http.response.body", "body": body})
