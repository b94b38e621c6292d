"""Answer a method a path does not support with 405 and an `Allow` header listing every method
the path supports. Starlette lists only those of the first route that matched the path, so a
path served by several routes (GET and POST /v1/mutes) would announce half of them."""

from __future__ import annotations

import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from pinchpoint.api.problems import problem_response

_PARAMETER = re.compile(r"\{[^}/]+\}")


def path_methods(openapi: dict[str, Any]) -> list[tuple[re.Pattern[str], frozenset[str]]]:
    """Each documented path as a pattern, with the methods documented for it."""
    found = []
    for template, operations in openapi.get("paths", {}).items():
        pattern = (
            "^"
            + _PARAMETER.sub("[^/]+", re.escape(template).replace(r"\{", "{").replace(r"\}", "}"))
            + "$"
        )
        found.append((re.compile(pattern), frozenset(m.upper() for m in operations)))
    return found


class AllowedMethods:
    """ASGI middleware: a 405 with the full `Allow` list for methods a documented path lacks."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._paths: list[tuple[re.Pattern[str], frozenset[str]]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._paths is None:
            self._paths = path_methods(scope["app"].openapi())
        path = scope["path"]
        allowed: set[str] = set()
        for pattern, methods in self._paths:
            if pattern.match(path):
                allowed |= methods
        if "GET" in allowed:
            allowed.add("HEAD")
        if allowed and scope["method"] not in allowed:
            response = problem_response(
                405,
                f"{scope['method']} is not supported here",
                "method-not-allowed",
                headers={"Allow": ", ".join(sorted(allowed))},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
