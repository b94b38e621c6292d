"""Answers built once per report: the JSON bytes, and their gzip form for clients that accept
it (a 1,000-disk host's enclosure list is 220 kB of JSON, 20 kB compressed, asked for hundreds
of times between two sweeps). The hottest of them are rendered before a new view is swapped in
(`prepare_view`), off the request path; every answer says which report it is of and when that
report was made (`X-Report-Id`, `X-Report-Time`, `Last-Modified`), so clients know its age."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from email.utils import format_datetime
from functools import partial

from fastapi import Request, Response
from pydantic import TypeAdapter
from starlette.concurrency import run_in_threadpool

from pinchpoint.model.sas import Enclosure
from pinchpoint.service.runtime import HostView, Service

GZIP_ABOVE_BYTES = 1400  # smaller answers fit one packet as they are
ENCLOSURES = TypeAdapter(list[Enclosure])


async def current_view(service: Service, host: str | None) -> HostView | None:
    """The newest view of `host`: from memory when cached, else read from the store on a
    worker thread (the event loop keeps serving meanwhile; one read per host at a time)."""
    return service.fresh_view(host) or await run_in_threadpool(service.view, host)


def gzip_in(accept_encoding: str) -> bool:
    """Whether an `Accept-Encoding` header's value asks for gzip."""
    return "gzip" in accept_encoding.lower()


def accepts_gzip(request: Request) -> bool:
    return gzip_in(request.headers.get("accept-encoding", ""))


def report_json(view: HostView) -> bytes:
    """`GET /v1/reports/latest`'s body."""
    return view.report.model_dump_json().encode()


def enclosures_json(view: HostView) -> bytes:
    """`GET /v1/inventory/enclosures`' body."""
    return ENCLOSURES.dump_json(view.inventory.sas.enclosures if view.inventory else [])


# the answers asked for most, by their cache key: rendered when a view is prepared
HOT: dict[str, Callable[[HostView], bytes]] = {
    "report": report_json,
    "enclosures": enclosures_json,
}


def _packed(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=6, mtime=0)


def prepare_view(view: HostView) -> None:
    """Render `view`'s hottest answers, plain and compressed (the service calls this before it
    swaps the view in)."""
    for key, render in HOT.items():
        body = view.cached(key, partial(render, view))
        if len(body) > GZIP_ABOVE_BYTES:
            view.cached(f"{key}.gz", partial(_packed, body))


def age_headers(view: HostView) -> dict[str, str]:
    """Which report an answer is of, and when that report was made."""
    made = view.report.generated_at
    return {
        "X-Report-Id": str(view.report_id),
        "X-Report-Time": made.isoformat(),
        "Last-Modified": format_datetime(made, usegmt=True),
    }


def json_answer(view: HostView, key: str, render: Callable[[], bytes], gzip: bool) -> Response:
    """`render()`'s JSON for `view`, compressed when `gzip` (the client accepts it) and worth
    it; both computed once per report. The one place these answers are made: the routes and
    the paths below FastAPI's routing (api/fast_reads.py) answer the same bytes and headers."""
    body = view.cached(key, render)
    headers = {**age_headers(view), "Vary": "Accept-Encoding"}
    if len(body) > GZIP_ABOVE_BYTES and gzip:
        packed = view.cached(f"{key}.gz", lambda: _packed(body))
        headers["Content-Encoding"] = "gzip"
        return Response(packed, media_type="application/json", headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def cached_json(
    request: Request, view: HostView, key: str, render: Callable[[], bytes]
) -> Response:
    """`render()`'s JSON for `view`, compressed when the client accepts gzip."""
    return json_answer(view, key, render, accepts_gzip(request))
