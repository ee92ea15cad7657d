"""The request guard in front of the API and the MCP gateway (pure ASGI, no framework).

Loopback by default. Beyond loopback a bearer token is required and compared in constant time.
The Host header must name this server (DNS rebinding), an Origin header must name it too, and
request bodies are bounded. Refusals are short JSON, never a stack trace.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable

from solograph.config import LOOPBACK_HOSTS, Settings
from solograph.errors import ConfigError

MAX_BODY_BYTES = 1_000_000
ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]],
                   Awaitable[None]]


def check_bind(settings: Settings) -> None:
    """Refuse to listen beyond loopback without a token."""
    if not settings.loopback_only and not settings.token:
        raise ConfigError(
            f"listening on {settings.host} needs a token",
            hint="set SOLOGRAPH_TOKEN to a long random string, or bind to 127.0.0.1")


def allowed_host_names(settings: Settings) -> set[str]:
    names = {"127.0.0.1", "localhost", "::1", "[::1]", *settings.allowed_hosts}
    if settings.host not in ("0.0.0.0", "::", ""):
        names.add(settings.host)
    return {n.lower() for n in names}


def _host_name(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value.split("]", 1)[0] + "]"
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """Wraps an ASGI app; `public` paths (health probes) skip the token, never the Host check."""

    def __init__(self, app: ASGIApp, settings: Settings, *,
                 public: Iterable[str] = ("/health",), max_body: int = MAX_BODY_BYTES) -> None:
        check_bind(settings)
        self.app = app
        self.token = settings.token.encode()
        self.hosts = allowed_host_names(settings)
        self.public = frozenset(public)
        self.max_body = max_body

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self._refuse(scope, headers)
        if refusal:
            status, code, message = refusal
            await _reply(send, status, {"error": code, "message": message})
            return
        await self.app(scope, _bounded(receive, self.max_body), send)

    def _refuse(self, scope: dict, headers: dict[str, str]) -> tuple[int, str, str] | None:
        if _host_name(headers.get("host", "")) not in self.hosts:
            return 421, "bad_host", "this server does not answer for that Host"
        origin = headers.get("origin")
        if origin and origin != "null":
            name = _host_name(origin.split("://", 1)[-1].split("/", 1)[0])
            if name not in self.hosts:
                return 403, "bad_origin", "cross-origin requests are not allowed"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > self.max_body:
            return 413, "too_large", f"request bodies are limited to {self.max_body} bytes"
        if self.token and scope.get("path", "") not in self.public:
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(),
                                                                      self.token):
                return 401, "unauthorized", "a valid bearer token is required"
        return None


def _bounded(receive: Callable, limit: int) -> Callable:
    """Stops a chunked body that grows past the limit (no Content-Length to check first)."""
    seen = 0

    async def wrapped() -> dict:
        nonlocal seen
        message = await receive()
        if message.get("type") == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise ValueError("request body too large")
        return message

    return wrapped


async def _reply(send: Callable, status: int, body: dict) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="solograph"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


__all__ = ["Guard", "check_bind", "allowed_host_names", "LOOPBACK_HOSTS"]
