"""Answers built once per report: the JSON bytes, and their gzip form for clients that accept
it (a 1,000-disk host's enclosure list is 220 kB of JSON, 20 kB compressed, asked for hundreds
of times between two sweeps)."""

from __future__ import annotations

import gzip
from collections.abc import Callable

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from pinchpoint.service.runtime import HostView, Service

GZIP_ABOVE_BYTES = 1400  # smaller answers fit one packet as they are


async def current_view(service: Service, host: str | None) -> HostView | None:
    """The newest view of `host`: from memory when cached, else read from the store on a
    worker thread (the event loop keeps serving meanwhile)."""
    return service.fresh_view(host) or await run_in_threadpool(service.view, host)


def accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "").lower()


def cached_json(
    request: Request, view: HostView, key: str, render: Callable[[], bytes]
) -> Response:
    """`render()`'s JSON for `view`, compressed when the client accepts gzip; both computed
    once per report."""
    body = view.cached(key, render)
    headers = {"X-Report-Id": str(view.report_id), "Vary": "Accept-Encoding"}
    if len(body) > GZIP_ABOVE_BYTES and accepts_gzip(request):
        packed = view.cached(f"{key}.gz", lambda: gzip.compress(body, compresslevel=6, mtime=0))
        headers["Content-Encoding"] = "gzip"
        return Response(packed, media_type="application/json", headers=headers)
    return Response(body, media_type="application/json", headers=headers)
