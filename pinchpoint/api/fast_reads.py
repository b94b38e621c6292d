"""The three reads asked most often, answered from bytes already made, below FastAPI's routing.

`GET /v1/reports/latest`, `/v1/inventory/enclosures` and `/v1/findings` without parameters are
what dashboards poll: their answers are rendered once per report (api/cached.py) or kept for a
second (service/recent_answers.py), yet through FastAPI each still costs its dependency solving,
parameter validation and routing (1.7–3.9 ms of CPU per request on the 2-core VM; the bytes
themselves are ready). `CachedReads` answers such a request itself when the answer is ready and
the caller may read, with the same bytes and headers the route would send (the same functions
make them: `cached.json_answer`, `findings.findings_response`); anything else — another method
or path, a query string, a body, no answer ready yet, a caller `require_read` would refuse —
goes on to FastAPI unchanged, which answers or refuses it as before. It sits inside
`SecurityHeaders` and `AllowedHosts` (app.py), so its answers carry the same safety headers and
the same `Host` check; it never refuses anything itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from pinchpoint.api.auth import read_allowed
from pinchpoint.api.cached import enclosures_json, gzip_in, json_answer, report_json
from pinchpoint.api.routes.findings import FIRST_PAGE, findings_response
from pinchpoint.service.runtime import Service

# headers that mean a body comes with the request: such requests go the whole way (BodyLimit)
BODY_HEADERS = frozenset((b"content-length", b"transfer-encoding", b"content-type"))


def latest_report(service: Service, gzip: bool) -> Response | None:
    """`GET /v1/reports/latest`'s answer from the view in memory, or None when there is none."""
    view = service.fresh_view(None)
    if view is None:
        return None
    return json_answer(view, "report", partial(report_json, view), gzip)


def enclosures(service: Service, gzip: bool) -> Response | None:
    """`GET /v1/inventory/enclosures`' answer from the view in memory, or None."""
    view = service.fresh_view(None)
    if view is None or view.inventory is None:
        return None
    return json_answer(view, "enclosures", partial(enclosures_json, view), gzip)


def first_findings_page(service: Service, gzip: bool) -> Response | None:
    """`GET /v1/findings`' answer when one is kept for the service's current state, or None
    (the route then reads the store, on a worker thread). Never compressed, as the route's."""
    body = service.recent_answers.peek(FIRST_PAGE, service.changes)
    return None if body is None else findings_response(body)


ANSWERS: dict[str, Callable[[Service, bool], Response | None]] = {
    "/v1/reports/latest": latest_report,
    "/v1/inventory/enclosures": enclosures,
    "/v1/findings": first_findings_page,
}


class CachedReads:
    """ASGI middleware: `ANSWERS`' paths answered from memory when they can be (module
    docstring); every other request passed on untouched."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    def _answer(self, scope: Scope) -> Response | None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope.get("query_string"):
            return None
        answer = ANSWERS.get(scope["path"])
        if answer is None:
            return None
        authorization: str | None = None
        accept_encoding = ""
        seen: set[bytes] = set()
        for name, value in scope["headers"]:
            if name in BODY_HEADERS:
                return None
            if name in seen:
                continue  # the first of a repeated header counts, as in `request.headers`
            if name == b"authorization":
                authorization = value.decode("latin-1")
                seen.add(name)
            elif name == b"accept-encoding":
                accept_encoding = value.decode("latin-1")
                seen.add(name)
        if not read_allowed(self.service.settings, authorization):
            return None  # the route refuses it, with its problem details
        return answer(self.service, gzip_in(accept_encoding))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self._answer(scope)
        if response is None:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)
