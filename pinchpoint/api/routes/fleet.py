"""Fleet: a central service keeps the reports agents push, per host, and compares identical
hosts with each other."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.model.findings import Finding, Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import host_name_problem
from pinchpoint.service.settings import Role
from pinchpoint.service.store import HostRecord

router = APIRouter(prefix="/v1", tags=["fleet"])


class PushedReport(BaseModel):
    """What an agent sends: its report and the inventory it was made from."""

    report: Report
    inventory: Inventory | None = None
    duration_s: float | None = None


class PushReceipt(BaseModel):
    id: int
    host: str
    transitions: int


@router.get("/hosts", response_model=list[HostRecord], dependencies=[ReadAccess])
def hosts(service: ServiceDep) -> list[HostRecord]:
    """Every host with reports here: last seen, report count, open findings by severity."""
    return service.store.hosts()


@router.post(
    "/pushed-reports",
    status_code=201,
    response_model=PushReceipt,
    dependencies=[AdminAccess],
    responses={409: {"description": "This service is not a central one"}},
)
def receive_report(pushed: PushedReport, service: ServiceDep, response: Response) -> PushReceipt:
    """Store a report an agent pushed (`--push-to`), keyed by its host name."""
    if service.settings.role is not Role.CENTRAL:
        raise ProblemError(
            409,
            "not-central",
            "this service keeps its own host only (start it with --role central)",
        )
    host = pushed.report.host.hostname or ""
    problem = host_name_problem(host) if host else "a pushed report needs one"
    if problem is not None:
        raise ProblemError(422, "validation", f"body: report.host.hostname: {problem}")
    saved = service.store.save_report(
        pushed.report,
        inventory=pushed.inventory,
        duration_s=pushed.duration_s,
        origin="push",
        raise_after=service.settings.raise_after,
        resolve_after=service.settings.resolve_after,
    )
    service.forget(host)
    service.notify(saved.transitions)
    response.headers["Location"] = f"/v1/reports/{saved.id}"
    return PushReceipt(id=saved.id, host=host, transitions=len(saved.transitions))


@router.get("/fleet/findings", response_model=list[Finding], dependencies=[ReadAccess])
def fleet_findings(service: ServiceDep) -> Response:
    """Findings that only a comparison of hosts shows: a NIC slower than the identical NICs of
    the other hosts (field case 3), a host's devices behind the fleet's firmware. The pushes
    that change a host's fleet facts judge them and store the findings; this reads the rows."""
    return Response(service.fleet_findings_json(), media_type="application/json")
