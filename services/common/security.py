"""The request guard in front of the API, the MCP gateway and the sources API (pure ASGI).

Loopback by default. Beyond loopback a bearer token is required and compared in constant time.
The Host header must name this server (DNS rebinding): loopback, the bind and published
addresses, SOLOGRAPH_ALLOWED_HOSTS, and, for a server published on all addresses, the names it
is published under (SOLOGRAPH_PUBLIC_HOSTS; by default the machine's own: its host name, FQDN
and interface addresses). A public path (/health) asked from beyond loopback without the token
says only up or down. A browser's Origin must be the server's
own origin (the Host it was reached by) or one listed in SOLOGRAPH_ALLOWED_ORIGINS, so a page
on another local port cannot post to it; request bodies are bounded, chunked ones included.
Refusals are short JSON, never a stack trace.

Pages for a browser (`browser` path prefixes: the page for people) take the same token from a
cookie as well: a person opens the address once with `?token=...` (as Jupyter prints it), the
guard checks it, answers with a redirect to the same address without it and sets an HttpOnly,
SameSite=Strict cookie (Secure over https) that carries it from then on. The cookie counts only
on those paths, so the JSON API still needs the bearer header.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from solograph.config import LOOPBACK_HOSTS, WILDCARD_HOSTS, Settings
from solograph.errors import ConfigError

MAX_BODY_BYTES = 1_000_000
ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]],
                   Awaitable[None]]
_DEFAULT_PORTS = {"http": "80", "https": "443"}
COOKIE = "solograph_token"


def check_bind(settings: Settings) -> None:
    """Refuse to listen beyond loopback without a token."""
    if not settings.loopback_only and not settings.token:
        raise ConfigError(
            f"listening on {settings.host} needs a token",
            hint="set SOLOGRAPH_TOKEN to a long random string, or bind to 127.0.0.1")


def allowed_host_names(settings: Settings) -> set[str]:
    """The names a request's Host may give: loopback, the bind and publish addresses (not a
    wildcard), and SOLOGRAPH_ALLOWED_HOSTS."""
    names = {"127.0.0.1", "localhost", "::1", "[::1]", *settings.allowed_hosts}
    names |= {h for h in (settings.host, settings.published_host) if h not in WILDCARD_HOSTS}
    if published_everywhere(settings):
        names |= set(settings.public_hosts or machine_addresses())
    return {_bracketed(n.lower()) for n in names}


def published_everywhere(settings: Settings) -> bool:
    """Listening on every address (a wildcard bind, published on a wildcard or not said) with
    a token: a team reaches it by the machine's names and addresses."""
    return (bool(settings.token) and settings.host in WILDCARD_HOSTS
            and settings.published_host in WILDCARD_HOSTS)


def machine_addresses() -> set[str]:
    """This machine's host name, FQDN and addresses: what a team types to reach it."""
    names: set[str] = set()
    try:
        hostname = socket.gethostname()
        names |= {hostname, socket.getfqdn()}
        for name in (hostname, socket.getfqdn()):
            with contextlib.suppress(OSError):  # a host name that does not resolve
                names |= {str(info[4][0]).split("%", 1)[0]
                          for info in socket.getaddrinfo(name, None)}
    except OSError:
        pass
    names |= _interface_addresses()
    return {n for n in names if n}


def _interface_addresses() -> set[str]:
    """Each interface's IPv4 address (SIOCGIFADDR) and the IPv6 ones in /proc (Linux)."""
    found: set[str] = set()
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for _, name in socket.if_nameindex():
                try:
                    packed = fcntl.ioctl(sock.fileno(), 0x8915,  # SIOCGIFADDR
                                         struct.pack("256s", name.encode()[:15]))
                except OSError:  # an interface with no IPv4 address
                    continue
                found.add(socket.inet_ntoa(packed[20:24]))
    except (ImportError, OSError, AttributeError):
        pass
    try:
        with open("/proc/net/if_inet6", encoding="ascii") as fh:
            for line in fh:
                raw = line.split()[0]
                found.add(socket.inet_ntop(socket.AF_INET6, bytes.fromhex(raw)))
    except (OSError, ValueError, IndexError):
        pass
    return found


def _bracketed(name: str) -> str:
    """An IPv6 address as a Host header writes it."""
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def _host_name(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value.split("]", 1)[0] + "]"
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def origin_key(origin: str) -> str | None:
    """`scheme://host[:port]` lowercased with the default port dropped; None when it is not an
    origin (`null`, a path, garbage)."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    netloc = _bracketed(parts.hostname)
    if port is not None and str(port) != _DEFAULT_PORTS[parts.scheme]:
        netloc += f":{port}"
    return f"{parts.scheme}://{netloc}"


def _own_origins(host_header: str) -> set[str]:
    """What a page served by this server would send as its Origin: the Host it reached."""
    return {key for scheme in _DEFAULT_PORTS
            if (key := origin_key(f"{scheme}://{host_header.strip()}")) is not None}


class Guard:
    """Wraps an ASGI app; `public` paths (health probes) skip the token, never the Host check."""

    def __init__(self, app: ASGIApp, settings: Settings, *,
                 public: Iterable[str] = ("/health",), max_body: int = MAX_BODY_BYTES,
                 browser: Iterable[str] = ()) -> None:
        check_bind(settings)
        self.app = app
        self.token = settings.token.encode()
        self.hosts = allowed_host_names(settings)
        self.origins = {key for o in settings.allowed_origins if (key := origin_key(o))}
        self.public = frozenset(public)
        self.browser = tuple(browser)
        self.max_body = max_body
        # Beyond loopback a public path without the token answers only up or down.
        self.trim_public = not settings.loopback_only

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self._refuse(scope, headers)
        if refusal is None and "content-length" not in headers and (
                "transfer-encoding" in headers or scope.get("method") in ("POST", "PUT", "PATCH")):
            # No length to check first: read the body up to the limit before the app runs, so
            # that a body past it is a 413 and not an error half way through the app.
            receive, complete = await _buffered(receive, self.max_body)
            if not complete:
                refusal = self._too_large()
        if refusal:
            status, code, message = refusal
            if status == 401 and self._for_browser(scope):
                await _reply_page(send, status, message)
            else:
                await _reply(send, status, {"error": code, "message": message})
            return
        if self.token and self._for_browser(scope) and _query_token(scope) is not None:
            await _set_cookie(send, scope, self.token.decode())
            return
        if self.trim_public and scope.get("path", "") in self.public and not (
                _loopback_client(scope) or self._token_ok(headers)):
            send = _up_or_down(send)
        await self.app(scope, _bounded(receive, self.max_body), send)

    def _token_ok(self, headers: dict[str, str]) -> bool:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and self._valid(value.strip())

    def _too_large(self) -> tuple[int, str, str]:
        return 413, "too_large", f"request bodies are limited to {self.max_body} bytes"

    def _refuse(self, scope: dict, headers: dict[str, str]) -> tuple[int, str, str] | None:
        host = headers.get("host", "")
        if _host_name(host) not in self.hosts:
            return 421, "bad_host", "this server does not answer for that Host"
        origin = headers.get("origin")
        if origin is not None:
            key = origin_key(origin)
            if key is None or key not in self.origins | _own_origins(host):
                return 403, "bad_origin", ("cross-origin requests are not allowed; list the "
                                           "page's origin in SOLOGRAPH_ALLOWED_ORIGINS")
        length = headers.get("content-length", "0").strip()
        if not (length.isascii() and length.isdigit()) or int(length) > self.max_body:
            return self._too_large()
        if self.token and scope.get("path", "") not in self.public:
            if self._token_ok(headers):
                return None
            if self._for_browser(scope):
                offered = _query_token(scope)
                if offered is None:
                    offered = _cookie(headers.get("cookie", ""))
                if offered is not None and self._valid(offered):
                    return None
                return 401, "unauthorized", ("open this address with ?token=<SOLOGRAPH_TOKEN> "
                                             "once; a cookie keeps it")
            return 401, "unauthorized", "a valid bearer token is required"
        return None

    def _valid(self, value: str) -> bool:
        return hmac.compare_digest(value.encode(), self.token)

    def _for_browser(self, scope: dict) -> bool:
        path = scope.get("path", "")
        return any(path == p or (p != "/" and path.startswith(p.rstrip("/") + "/"))
                   for p in self.browser)


def _query_token(scope: dict) -> str | None:
    query = scope.get("query_string", b"").decode("latin-1")
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "token":
            return value
    return None


def _cookie(header: str) -> str | None:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:  # quoted when set: a token may hold what a cookie may not
            return unquote(value.strip().strip('"'))
    return None


async def _set_cookie(send: Callable, scope: dict, token: str) -> None:
    """The address without `token`, and the cookie that carries it from now on."""
    query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                                          keep_blank_values=True) if k != "token"]
    path = scope.get("path", "/") or "/"
    where = path + ("?" + urlencode(query) if query else "")
    cookie = f"{COOKIE}={quote(token, safe='')}; Path=/; HttpOnly; SameSite=Strict"
    if scope.get("scheme") == "https":
        cookie += "; Secure"
    await send({"type": "http.response.start", "status": 303, "headers": [
        (b"location", where.encode("latin-1", "replace")), (b"set-cookie", cookie.encode()),
        (b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer"),
        (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def _loopback_client(scope: dict) -> bool:
    client = scope.get("client") or ("",)
    host = str(client[0])
    return host.startswith("127.") or host in ("::1", "localhost")


def _up_or_down(send: Callable) -> Callable:
    """A send that replaces the response body with `{"status": "up"}` (2xx) or `"down"`:
    store state, folders and worker names are not for whoever asks from outside."""
    status = 200

    async def trimmed(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            return
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            data = json.dumps({"status": "up" if status < 300 else "down"}).encode()
            await send({"type": "http.response.start", "status": status, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode())]})
            await send({"type": "http.response.body", "body": data})
            return
        await send(message)

    return trimmed


async def _buffered(receive: Callable, limit: int) -> tuple[Callable, bool]:
    """Read the whole body (at most `limit` bytes); a receive that replays it, and whether it
    ended within the limit."""
    messages: list[dict] = []
    seen = 0
    while True:
        message = await receive()
        messages.append(message)
        if message.get("type") != "http.request":
            break
        seen += len(message.get("body", b""))
        if seen > limit:
            return receive, False
        if not message.get("more_body", False):
            break
    replay = iter(messages)

    async def replayed() -> dict:
        for message in replay:
            return message
        return await receive()

    return replayed, True


def _bounded(receive: Callable, limit: int) -> Callable:
    """Stops a body that grows past its announced length or the limit."""
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


async def _reply_page(send: Callable, status: int, message: str) -> None:
    """A refusal a person reads in the browser: fixed text, no script, nothing from the request."""
    data = ("<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>solograph: "
            f"token needed</title><h1>solograph</h1><p>{message}.</p></html>").replace(
                "<SOLOGRAPH_TOKEN>", "&lt;SOLOGRAPH_TOKEN&gt;").encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(data)).encode()),
        (b"content-security-policy", b"default-src 'none'"), (b"cache-control", b"no-store"),
        (b"www-authenticate", b'Bearer realm="solograph"')]})
    await send({"type": "http.response.body", "body": data})


class NoQueryString(logging.Filter):
    """uvicorn's access log line without the query string: queries hold what was searched,
    and a token pasted into a URL would be written out whole."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            path, mark, _ = args[2].partition("?")
            record.args = (*args[:2], path + ("?…" if mark else ""), *args[3:])
        return True


def log_config() -> dict:
    """uvicorn's logging configuration with query strings dropped from the access log; given
    to uvicorn as `log_config`, it holds in every worker process."""
    from uvicorn.config import LOGGING_CONFIG

    config = json.loads(json.dumps(LOGGING_CONFIG))
    config.setdefault("filters", {})["no_query_string"] = {
        "()": f"{NoQueryString.__module__}.{NoQueryString.__qualname__}"}
    config["handlers"]["access"]["filters"] = ["no_query_string"]
    return config


__all__ = ["Guard", "check_bind", "allowed_host_names", "log_config", "origin_key",
           "LOOPBACK_HOSTS"]
