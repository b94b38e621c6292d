"""The maintenance view of every enclosure, and its locate LEDs."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, TypeAdapter
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.cached import cached_json, current_view
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.views.maintenance import EnclosureMaintenance, enclosure_maintenance
from pinchpoint.model.sas import Enclosure
from pinchpoint.service.locate import LocateError, LocateResult, set_locate
from pinchpoint.service.runtime import HostView

router = APIRouter(prefix="/v1/maintenance", tags=["maintenance"])

MAINTENANCE_LIST = TypeAdapter(list[EnclosureMaintenance])
HostQuery = Annotated[str | None, Query(description="Host name (default: the newest report's)")]


class LocateRequest(BaseModel):
    on: bool


async def _maintenance(
    service: ServiceDep, host: str | None
) -> tuple[HostView, list[EnclosureMaintenance]]:
    view = await current_view(service, host)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet")
    built = view.derived.get("maintenance")
    if built is None:
        built = view.derived["maintenance"] = await run_in_threadpool(
            enclosure_maintenance, view.inventory, view.report.findings
        )
    return view, cast(list[EnclosureMaintenance], built)


@router.get("/enclosures", response_model=list[EnclosureMaintenance], dependencies=[ReadAccess])
async def enclosures(request: Request, service: ServiceDep, host: HostQuery = None) -> Response:
    """Per enclosure: HBA ports and chain position, paths present/expected, I/O modules, slot
    occupancy and faults, open findings."""
    view, found = await _maintenance(service, host)
    return cached_json(request, view, "maintenance", lambda: MAINTENANCE_LIST.dump_json(found))


@router.get(
    "/enclosures/{enclosure_id}",
    response_model=EnclosureMaintenance,
    dependencies=[ReadAccess],
)
async def enclosure(
    enclosure_id: str, service: ServiceDep, host: HostQuery = None
) -> EnclosureMaintenance:
    """One enclosure's maintenance view (by id, logical id or nickname)."""
    for found in (await _maintenance(service, host))[1]:
        if enclosure_id in (found.id, found.logical_id, found.nickname):
            return found
    raise ProblemError(404, "not-found", f"no enclosure {enclosure_id!r}")


def _enclosure(service: ServiceDep, enclosure_id: str) -> Enclosure:
    refusal = service.target.locate_refusal()
    if refusal is not None:
        raise ProblemError(409, "locate-refused", refusal)
    view = service.view(None)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet")
    for found in view.inventory.sas.enclosures:
        if enclosure_id in (found.id, found.logical_id, found.nickname):
            return found
    raise ProblemError(404, "not-found", f"no enclosure {enclosure_id!r}")


def _switch(enclosure: Enclosure, slot: int | None, on: bool) -> LocateResult:
    try:
        return set_locate(enclosure, slot, on)
    except LocateError as err:
        raise ProblemError(502, "locate-failed", str(err)) from None


@router.post(
    "/enclosures/{enclosure_id}/locate",
    response_model=LocateResult,
    dependencies=[AdminAccess],
    responses={409: {"description": "A snapshot or the demo host: no LEDs to switch"}},
)
def locate_enclosure(
    enclosure_id: str, request: LocateRequest, service: ServiceDep
) -> LocateResult:
    """Switch the enclosure's identify LED (live host only)."""
    return _switch(_enclosure(service, enclosure_id), None, request.on)


@router.post(
    "/enclosures/{enclosure_id}/slots/{slot}/locate",
    response_model=LocateResult,
    dependencies=[AdminAccess],
    responses={409: {"description": "A snapshot or the demo host: no LEDs to switch"}},
)
def locate_slot(
    enclosure_id: str, slot: int, request: LocateRequest, service: ServiceDep
) -> LocateResult:
    """Switch one bay's locate LED (live host only)."""
    return _switch(_enclosure(service, enclosure_id), slot, request.on)
