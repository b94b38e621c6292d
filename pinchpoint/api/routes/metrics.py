"""`GET /metrics`: the Prometheus exposition of the newest sweep, findings and the service."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.cached import accepts_gzip

router = APIRouter(tags=["metrics"])


@router.get(
    "/metrics",
    dependencies=[ReadAccess],
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}},
)
async def metrics(service: ServiceDep, request: Request) -> Response:
    """Inventory gauges, link speeds and maxima, open findings by rule and severity, sweep
    duration and errors, each disk's work as counters and its place on `pinchpoint_disk_info`.
    Rendered once per change and served from memory (gzip-compressed when the scraper
    accepts it)."""
    gzipped = accepts_gzip(request)
    body, content_type = await run_in_threadpool(
        service.metrics_answer, request.headers.get("accept"), gzipped
    )
    headers = {"Vary": "Accept, Accept-Encoding"}
    if gzipped:
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type=content_type, headers=headers)
