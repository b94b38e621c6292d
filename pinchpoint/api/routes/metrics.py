"""`GET /metrics`: the Prometheus exposition of the newest sweep, findings and the service."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import ReadAccess, ServiceDep

router = APIRouter(tags=["metrics"])


@router.get(
    "/metrics",
    dependencies=[ReadAccess],
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}},
)
async def metrics(service: ServiceDep, request: Request) -> Response:
    """Inventory gauges, link speeds and maxima, open findings by rule and severity, sweep
    duration and errors, latency summaries."""
    body, content_type = await run_in_threadpool(service.metrics, request.headers.get("accept"))
    return Response(body, media_type=content_type)
