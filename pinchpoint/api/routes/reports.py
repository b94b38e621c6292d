"""Sweeps and their reports: start a sweep, follow it, list, read, render and diff reports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.cached import cached_json, current_view, report_json
from pinchpoint.api.params import IsoDatetime
from pinchpoint.api.problems import ProblemError
from pinchpoint.model.findings import Report
from pinchpoint.report import ReportFormat
from pinchpoint.service.store import Page, ReportDiff, ReportSummary, StoredReport
from pinchpoint.service.sweeps import Sweep, SweepQueueFullError

router = APIRouter(prefix="/v1", tags=["checks and reports"])

HostQuery = Annotated[str | None, Query(description="Host name (default: any host)")]
Limit = Annotated[int, Query(ge=1, le=500)]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000)]
ReportId = Annotated[int, Path(ge=1, le=2**62)]


REPORT_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {
        "content": {"text/html": {}, "text/markdown": {}, "text/plain": {}},
        "description": "The report: JSON (docs/report-format.md), HTML, Markdown or the table",
    },
    404: {"description": "No such report"},
}


@router.post("/checks", status_code=202, response_model=Sweep, dependencies=[AdminAccess])
def start_check(service: ServiceDep, response: Response) -> Sweep:
    """Start a sweep now; returns at once with its id (follow it at `/v1/checks/{id}`)."""
    try:
        sweep = service.runner.request("api")
    except SweepQueueFullError as err:
        raise ProblemError(429, "sweeps-queued", str(err), {"Retry-After": "60"}) from None
    response.headers["Location"] = f"/v1/checks/{sweep.id}"
    return sweep


@router.get("/checks", response_model=list[Sweep], dependencies=[ReadAccess])
def list_checks(service: ServiceDep) -> list[Sweep]:
    """Recent sweeps, newest first: waiting, running and finished."""
    return service.runner.recent()


@router.get("/checks/{sweep_id}", response_model=Sweep, dependencies=[ReadAccess])
def get_check(sweep_id: str, service: ServiceDep) -> Sweep:
    """A sweep's state and the step it is at; its report id once done."""
    sweep = service.runner.get(sweep_id)
    if sweep is None:
        raise ProblemError(404, "not-found", f"no sweep {sweep_id!r} (they are kept 200 deep)")
    return sweep


@router.get("/reports", response_model=Page[ReportSummary], dependencies=[ReadAccess])
def list_reports(
    service: ServiceDep,
    host: HostQuery = None,
    since: Annotated[IsoDatetime | None, Query(description="Generated at or after")] = None,
    until: Annotated[IsoDatetime | None, Query(description="Generated before")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Page[ReportSummary]:
    """Report summaries, newest first."""
    return service.store.report_summaries(
        host=host, since=since, until=until, limit=limit, offset=offset
    )


def _rendered(stored: StoredReport, form: ReportFormat) -> Response:
    headers = {"X-Report-Id": str(stored.id)}
    if form is ReportFormat.JSON:
        return Response(
            stored.report.model_dump_json(), media_type="application/json", headers=headers
        )
    from pinchpoint.report.text import report_text

    return Response(report_text(stored.report, form), media_type=form.media_type, headers=headers)


@router.get(
    "/reports/latest",
    response_model=Report,
    responses=REPORT_RESPONSES,
    dependencies=[ReadAccess],
)
async def latest_report(
    request: Request,
    service: ServiceDep,
    host: HostQuery = None,
    format: ReportFormat = ReportFormat.JSON,
) -> Response:
    """The newest report (of `host`)."""
    view = await current_view(service, host)
    if view is None:
        raise ProblemError(404, "not-found", "no report yet" + (f" for {host}" if host else ""))
    if format is ReportFormat.JSON:
        return cached_json(request, view, "report", lambda: report_json(view))
    stored = await run_in_threadpool(service.store.report, view.report_id)
    if stored is None:
        raise ProblemError(404, "not-found", f"report {view.report_id} was pruned")
    return await run_in_threadpool(_rendered, stored, format)


@router.get(
    "/reports/{report_id}",
    response_model=Report,
    responses=REPORT_RESPONSES,
    dependencies=[ReadAccess],
)
def get_report(
    report_id: ReportId, service: ServiceDep, format: ReportFormat = ReportFormat.JSON
) -> Response:
    """One report, as JSON or rendered as HTML or Markdown."""
    stored = service.store.report(report_id)
    if stored is None:
        raise ProblemError(404, "not-found", f"no report {report_id}")
    return _rendered(stored, format)


@router.get("/reports/{a}/diff/{b}", response_model=ReportDiff, dependencies=[ReadAccess])
def diff_reports(a: ReportId, b: ReportId, service: ServiceDep) -> ReportDiff | JSONResponse:
    """What changed from report `a` to report `b`: new, resolved, worsened and persisting
    findings."""
    diff = service.store.diff(a, b)
    if diff is None:
        raise ProblemError(404, "not-found", f"report {a} or {b} does not exist")
    return diff
