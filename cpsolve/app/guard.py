"""Who may talk to the workbench: the person who started it, from its own page, and nobody else.

An ASGI middleware in front of every route (Jupyter's rules, see the issue's study):

- **Token.** A random token (`secrets.token_urlsafe`) is in the address `cpsolve app` prints; the first
  visit with it gets a cookie (HttpOnly, SameSite=Strict) and is redirected to the bare address, so
  the token leaves the address bar and the history. Every other request needs the cookie (or
  `Authorization: token TOKEN`): other local users and other web pages cannot drive the server.
- **Host allow-list** against DNS rebinding: the Host header must be the loopback name or address
  with the server's port (or the `--host` given), else 403 before anything else is looked at.
- **Origin** on every state-changing request (any method but GET and HEAD) and on WebSocket
  upgrades: it must be this server's own origin; a request without one is refused too, and so is
  one a browser marks `Sec-Fetch-Site: cross-site`.
- **No CORS**: no `Access-Control-*` header is ever sent, so a foreign page cannot read an answer.
- Every answer carries `X-Content-Type-Options: nosniff`, a CSP that allows this origin only (no
  inline script, no frames), `Cache-Control: no-store` and `Referrer-Policy: no-referrer`.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""The page's own files only: no inline script (the data arrives as JSON), no plug-ins, never framed."""
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", CSP.encode()),
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
SAFE_METHODS = ("GET", "HEAD")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def cookie_name(port: int) -> str:
    """One cookie per port: two workbenches on one machine do not overwrite each other's (cookies
    ignore ports, their names do not)."""
    return f"cpsolve-app-{port}"


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """Host header values the server answers: the loopback names, and the address it was bound to."""
    names = set(LOOPBACK_NAMES)
    if host not in ("0.0.0.0", "::", ""):
        names.add(f"[{host}]" if _is_ipv6(host) else host.lower())
    return frozenset(f"{n}:{port}" for n in names)


def _is_ipv6(host: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address)
    except ValueError:
        return False


class Guard:
    """The middleware: refuses (403, a one-line text body) what the rules above do not allow."""

    def __init__(self, app: App, token: str, hosts: frozenset[str], port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts
        self.origins = frozenset(f"http://{h}" for h in hosts)
        self.cookie = cookie_name(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        why = self.refusal(scope, headers)
        if why is not None:
            await _refuse(scope, send, why)
            return
        if scope["type"] == "http" and scope["path"] == "/" and self._query_token(scope) is not None:
            await self._exchange(scope, send)  # the printed address: the token becomes a cookie
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*(h for h in message.get("headers", [])
                                        if not h[0].lower().startswith(b"access-control-")), *HEADERS]
            await send(message)

        await self.app(scope, receive, secured)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """Why the request is refused, or None."""
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return "unknown Host: open the address cpsolve app printed"
        method = scope.get("method", "GET")
        upgrade = "websocket" in headers.get("upgrade", "").lower()  # an upgrade asked of a server without them
        if scope["type"] == "websocket" or upgrade or method not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin not in self.origins:
                return "cross-origin request refused"
        if headers.get("sec-fetch-site") == "cross-site":
            return "cross-site request refused"
        if scope["type"] == "http" and scope["path"] == "/" and method in SAFE_METHODS:
            given = self._query_token(scope)
            if given is not None:
                return None if hmac.compare_digest(given, self.token) else "wrong token"
        if not self._authorised(headers):
            return "no token: open the address cpsolve app printed (with its ?token=...)"
        return None

    def _query_token(self, scope: Scope) -> str | None:
        values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        return values[0] if values else None

    def _authorised(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token ") and hmac.compare_digest(auth[6:].strip(), self.token):
            return True
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no cookie
            return False
        got = jar.get(self.cookie)
        return got is not None and hmac.compare_digest(got.value, self.token)

    async def _exchange(self, scope: Scope, send: Send) -> None:
        cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()), (b"content-length", b"0"),
                                *HEADERS]})
        await send({"type": "http.response.body", "body": b""})


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers, lower-case names; a header given twice keeps its first value (a second
    Host cannot slip past the check)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


async def _refuse(scope: Scope, send: Send, why: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = f"403 Forbidden: {why}\n".encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})
