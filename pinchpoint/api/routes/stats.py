"""Statistics: series and latency histograms along the hierarchy (what the heat maps draw), and
statistics files posted in the importers' formats."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.params import IsoDatetime
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.views.stats import (
    PERCENTILES,
    HistogramPoint,
    HistogramUpload,
    SeriesView,
    StatsImportResult,
    import_statistics,
    series_views,
)
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.stats import ImportKind

router = APIRouter(prefix="/v1", tags=["statistics"])

MAX_RANGE = timedelta(days=366)


class StatsResponse(BaseModel):
    host: str
    start: datetime
    end: datetime
    by: GroupLevel | None
    percentiles: list[float] = Field(default_factory=lambda: list(PERCENTILES))
    series: list[SeriesView]


@router.get("/stats", response_model=StatsResponse, dependencies=[ReadAccess])
def get_stats(
    service: ServiceDep,
    entity: Annotated[
        str | None, Query(description="An entity id (disk, enclosure, chain, HBA port, HBA…)")
    ] = None,
    by: Annotated[
        GroupLevel | None,
        Query(
            description="Every group of this level (within `entity` when given: drill-down); "
            "without `entity` and `by`: every enclosure"
        ),
    ] = None,
    start: Annotated[
        IsoDatetime | None, Query(alias="from", description="Default: 1 h ago")
    ] = None,
    end: Annotated[IsoDatetime | None, Query(alias="to", description="Default: now")] = None,
    host: Annotated[str | None, Query()] = None,
) -> StatsResponse:
    """Points of the chosen entities over [from, to) (at most 366 days, ending at `to`):
    load, queue, mean latency, a latency histogram per point (heat map rows) and percentile
    lines."""
    if entity is None and by is None:
        by = GroupLevel.ENCLOSURE
    end = (end or datetime.now(UTC)).astimezone(UTC)
    start = (start or end - timedelta(hours=1)).astimezone(UTC)
    if start >= end:
        raise ProblemError(422, "validation", "query: from: must be before `to`")
    start = max(start, end - MAX_RANGE)  # at most a year per answer: the coarsest tier's span
    view = service.view(host)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet")
    host_name = host or view.report.host.hostname or ""
    try:
        series = series_views(service, view.inventory, host_name, entity, by, start, end)
    except LookupError as err:
        raise ProblemError(404, "not-found", str(err)) from None
    return StatsResponse(host=host_name, start=start, end=end, by=by, series=series)


@router.post(
    "/stats",
    status_code=201,
    response_model=StatsImportResult,
    dependencies=[AdminAccess],
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/plain": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "object"}},
            },
        }
    },
)
async def post_stats(
    request: Request,
    service: ServiceDep,
    kind: Annotated[
        ImportKind | None,
        Query(description="The file's format (guessed when left out); JSON histograms need none"),
    ] = None,
    host: Annotated[str | None, Query(description="Default: the host this service sweeps")] = None,
) -> StatsImportResult:
    """Add statistics: a file in one of the importers' formats (PerfMon CSV, `zpool iostat
    -wvHp`, iostat text or JSON, fio JSON) as the body, or histograms in the JSON form."""
    body = await request.body()
    if not body.strip():
        raise ProblemError(400, "empty", "the body is empty")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProblemError(400, "not-text", "the body is not UTF-8 text") from None
    view = service.view(host)
    if view is None or view.inventory is None:
        raise ProblemError(409, "no-inventory", "no inventory yet to attach statistics to")
    host_name = host or view.report.host.hostname or ""
    file: tuple[str, ImportKind | None] | None = (text, kind)
    points: list[HistogramPoint] = []
    content_type = request.headers.get("content-type", "")
    if kind is None and content_type.startswith("application/json"):
        try:
            parsed = json.loads(text)
        except ValueError as err:
            raise ProblemError(422, "validation", f"body: not JSON: {err}") from None
        if not isinstance(parsed, dict):
            raise ProblemError(
                422, "validation", "body: a JSON object is expected (histograms, iostat, fio)"
            )
        if "points" in parsed:
            try:
                upload = HistogramUpload.model_validate(parsed)
            except ValidationError as err:
                raise ProblemError(422, "validation", f"body: {err}") from None
            file, points = None, upload.points
    try:
        return await run_in_threadpool(
            import_statistics, service, view.inventory, host_name, file, points
        )
    except ValueError as err:
        raise ProblemError(422, "stats-import", str(err)) from None
