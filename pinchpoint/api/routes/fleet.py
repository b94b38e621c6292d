"""Fleet: a central service keeps the reports agents push, per host, and compares identical
hosts with each other."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.pushes import (
    PushedByDigest,
    PushedReport,
    inventory_by_digest,
    whole_inventory,
)
from pinchpoint.model.findings import Finding, Report
from pinchpoint.naming import host_name_problem
from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import Role
from pinchpoint.service.store import HostRecord, SavedReport

router = APIRouter(prefix="/v1", tags=["fleet"])


class PushReceipt(BaseModel):
    id: int
    host: str
    transitions: int


@router.get("/hosts", response_model=list[HostRecord], dependencies=[ReadAccess])
def hosts(service: ServiceDep) -> list[HostRecord]:
    """Every host with reports here: last seen, report count, open findings by severity."""
    return service.store.hosts()


def _host_of_push(report: Report, service: Service) -> str:
    """The host a pushed report is stored under, once this service is a central one."""
    if service.settings.role is not Role.CENTRAL:
        raise ProblemError(
            409,
            "not-central",
            "this service keeps its own host only (start it with --role central)",
        )
    host = report.host.hostname or ""
    problem = host_name_problem(host) if host else "a pushed report needs one"
    if problem is not None:
        raise ProblemError(422, "validation", f"body: report.host.hostname: {problem}")
    return host


def _taken(saved: SavedReport, service: Service, response: Response) -> PushReceipt:
    service.forget(saved.host)
    service.notify(saved.transitions)
    response.headers["Location"] = f"/v1/reports/{saved.id}"
    return PushReceipt(id=saved.id, host=saved.host, transitions=len(saved.transitions))


@router.post(
    "/pushed-reports",
    status_code=201,
    response_model=PushReceipt,
    dependencies=[AdminAccess],
    responses={409: {"description": "This service is not a central one"}},
)
def receive_report(pushed: PushedReport, service: ServiceDep, response: Response) -> PushReceipt:
    """Store a report an agent pushed (`--push-to`), keyed by its host name, with the whole
    inventory it was made from. Each inventory part is checked against the model unless this
    central holds it already (by the SHA-256 of its compact JSON)."""
    _host_of_push(pushed.report, service)
    saved = service.store.save_pushed(
        pushed.report,
        whole_inventory(pushed.inventory) if pushed.inventory is not None else None,
        duration_s=pushed.duration_s,
        raise_after=service.settings.raise_after,
        resolve_after=service.settings.resolve_after,
    )
    return _taken(saved, service, response)


@router.post(
    "/pushed-reports/by-digest",
    status_code=201,
    response_model=PushReceipt,
    dependencies=[AdminAccess],
    responses={
        409: {
            "description": "This service is not a central one, or it does not hold the "
            "inventory parts named in `missing` (send again with their JSON in `bodies`)"
        }
    },
)
def receive_report_by_digest(
    pushed: PushedByDigest, service: ServiceDep, response: Response
) -> PushReceipt:
    """Store a report an agent pushed with its inventory's parts named by digest, and the
    JSON of only those parts this central does not hold: a host whose hardware did not change
    sends a few kilobytes instead of its whole inventory."""
    _host_of_push(pushed.report, service)
    saved = service.store.save_pushed(
        pushed.report,
        inventory_by_digest(pushed.inventory, pushed.bodies)
        if pushed.inventory is not None
        else None,
        duration_s=pushed.duration_s,
        raise_after=service.settings.raise_after,
        resolve_after=service.settings.resolve_after,
    )
    return _taken(saved, service, response)


@router.get("/fleet/findings", response_model=list[Finding], dependencies=[ReadAccess])
def fleet_findings(service: ServiceDep) -> Response:
    """Findings that only a comparison of hosts shows: a NIC slower than the identical NICs of
    the other hosts (field case 3), a host's devices behind the fleet's firmware. The pushes
    that change a host's fleet facts judge them and store the findings; this reads the rows."""
    return Response(service.fleet_findings_json(), media_type="application/json")
