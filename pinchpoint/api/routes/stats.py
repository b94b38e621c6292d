"""Statistics: series and latency histograms along the hierarchy (what the heat maps draw), and
statistics files posted in the importers' formats."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.cached import current_view
from pinchpoint.api.heavy import heavy_limit
from pinchpoint.api.params import IsoDatetime
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.views.stats import (
    DEFAULT_SERIES,
    MAX_SERIES,
    PERCENTILES,
    HistogramPoint,
    HistogramUpload,
    SeriesView,
    StatsImportResult,
    import_statistics,
    series_views,
)
from pinchpoint.checks.parse.json_text import JsonTooDeepError, loads_bounded
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.stats import HistogramKind, ImportKind
from pinchpoint.service.runtime import HostView, Service

router = APIRouter(prefix="/v1", tags=["statistics"])

MAX_RANGE = timedelta(days=366)


class StatsResponse(BaseModel):
    host: str
    start: datetime
    end: datetime
    by: GroupLevel | None
    percentiles: list[float] = Field(default_factory=lambda: list(PERCENTILES))
    total: int = Field(description="Series in all: `series` is the page from `offset`")
    offset: int
    limit: int
    series: list[SeriesView]
    latency_source: str | None = Field(
        default=None,
        description="Where the latency comes from: `ebpf` (per-I/O, recorded in the kernel), "
        "`diskstats` (averages per interval only), `replayed` (a snapshot's or the demo's "
        "samples); null for a host this service does not sample (a fleet member)",
    )
    latency_note: str | None = Field(
        default=None, description="Why the latency is averages only, when it is"
    )


def _stats_body(
    service: Service,
    view: HostView,
    host: str,
    entity: str | None,
    by: GroupLevel | None,
    span: tuple[datetime, datetime],
    page: tuple[int, int],
    kinds: Sequence[HistogramKind] = (),
) -> bytes:
    """The JSON of one page of series (run on a worker thread, holding a heavy slot)."""
    start, end = span
    offset, limit = page
    try:
        total, series = series_views(
            service, view, host, entity, by, start, end, offset, limit, kinds
        )
    except LookupError as err:
        raise ProblemError(404, "not-found", str(err)) from None
    own = host == (view.inventory.host.hostname if view.inventory else None) or not host
    source, note = service.sampler.latency if own else (None, None)
    answer = StatsResponse(
        latency_source=source,
        latency_note=note,
        host=host,
        start=start,
        end=end,
        by=by,
        total=total,
        offset=offset,
        limit=limit,
        series=series,
    )
    return answer.model_dump_json().encode()


@router.get("/stats", response_model=StatsResponse, dependencies=[ReadAccess])
async def get_stats(
    request: Request,
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
    limit: Annotated[
        int, Query(ge=1, le=MAX_SERIES, description="Series per page (the groups of `by`)")
    ] = DEFAULT_SERIES,
    offset: Annotated[int, Query(ge=0, le=2**31, description="First series of the page")] = 0,
    kind: Annotated[
        list[HistogramKind] | None,
        Query(
            max_length=len(HistogramKind),
            description="The latency histograms to draw, merged (repeat for several: "
            "`kind=total_wait/read&kind=total_wait/write`); default: the best family the "
            "points carry (total wait, else read/write latency, else device time), read and "
            "write together. Each series says what it drew (`latency`) and what it has "
            "(`kinds_available`)",
        ),
    ] = None,
) -> Response:
    """Points of the chosen entities over [from, to) (at most 366 days, ending at `to`):
    load, queue, mean latency, a latency histogram per point (heat map rows) and percentile
    lines. The groups of a level come a page at a time (`limit`, `offset`; `total` says how
    many there are). A heavy request: beyond a few at once it waits, then gets 503."""
    if entity is None and by is None:
        by = GroupLevel.ENCLOSURE
    end = (end or datetime.now(UTC)).astimezone(UTC)
    start = (start or end - timedelta(hours=1)).astimezone(UTC)
    if start >= end:
        raise ProblemError(422, "validation", "query: from: must be before `to`")
    start = max(start, end - MAX_RANGE)  # at most a year per answer: the coarsest tier's span
    async with heavy_limit(request).slot():
        view = await current_view(service, host)
        if view is None or view.inventory is None:
            raise ProblemError(404, "not-found", "no inventory yet")
        host_name = host or view.report.host.hostname or ""
        body = await run_in_threadpool(
            _stats_body,
            service,
            view,
            host_name,
            entity,
            by,
            (start, end),
            (offset, limit),
            kind or (),
        )
    return Response(body, media_type="application/json")


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
    view = await current_view(service, host)
    if view is None or view.inventory is None:
        raise ProblemError(409, "no-inventory", "no inventory yet to attach statistics to")
    host_name = host or view.report.host.hostname or ""
    file: tuple[str, ImportKind | None] | None = (text, kind)
    points: list[HistogramPoint] = []
    content_type = request.headers.get("content-type", "")
    if kind is None and content_type.startswith("application/json"):
        try:
            parsed = loads_bounded(text)
        except JsonTooDeepError as err:
            raise ProblemError(400, "json-too-deep", f"body: {err}") from None
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
        async with heavy_limit(request).slot():
            return await run_in_threadpool(
                import_statistics, service, view.inventory, host_name, file, points
            )
    except ValueError as err:
        raise ProblemError(422, "stats-import", str(err)) from None
