"""What keeps a browser from being turned against the service.

- `AllowedHosts`: a request whose `Host` header is not one of the names the service answers
  (`ServiceSettings.resolved_allowed_hosts`) gets 400 before any route runs. Without it, a page
  of any site can rebind its own name to 127.0.0.1 (DNS rebinding) and read the API as
  same-origin — with `--open-reads`, without a token.
- `SecurityHeaders`: every response says `nosniff`, may not be framed (`X-Frame-Options: DENY`,
  CSP `frame-ancestors 'none'`) and sends no referrer; a response that sets no policy of its
  own gets `default-src 'none'` (JSON, text and files need none). The pages set theirs
  (`web.CONTENT_SECURITY_POLICY`, `api_docs.DOCS_POLICY`: scripts from this origin only, no
  inline script).

No URL is built from request headers anywhere: the pages link their assets by path.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pinchpoint.api.problems import problem_response

API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


def host_of(header: str) -> str:
    """The name in a `Host` header, without its port, lower case, without a final dot:
    `Example.COM.:9460` → `example.com`, `[::1]:9460` → `::1`."""
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


class HostPatterns:
    """Names a `Host` header may carry: exact names, `*.example.com` for every name under
    example.com, `*` for any."""

    def __init__(self, names: Iterable[str]) -> None:
        cleaned = [host_of(n) for n in names]
        self.any = "*" in cleaned
        self.exact = frozenset(n for n in cleaned if not n.startswith("*"))
        self.suffixes = tuple(n[1:] for n in cleaned if n.startswith("*.") and len(n) > 2)

    def allows(self, header: str) -> bool:
        if self.any:
            return True
        name = host_of(header)
        if not name:
            return False
        return name in self.exact or (bool(self.suffixes) and name.endswith(self.suffixes))


class AllowedHosts:
    """ASGI middleware: 400 (problem details) for a `Host` header the service does not answer
    to, or none at all."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.patterns = HostPatterns(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = ""
        for name, value in scope.get("headers", []):
            if name == b"host":
                header = value.decode("latin-1")
                break
        if self.patterns.allows(header):
            await self.app(scope, receive, send)
            return
        shown = ascii(header[:100]) if header else "none"
        response = problem_response(
            400,
            f"Host header {shown} is not a name this service answers to (allowed_hosts in "
            "[service], or serve --allowed-host)",
            "host-not-allowed",
        )
        await response(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: the headers every response carries (module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                headers.setdefault("Referrer-Policy", "no-referrer")
                headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = API_POLICY
            await send(message)

        await self.app(scope, receive, with_headers)
