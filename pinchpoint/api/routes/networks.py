"""Views of the storage networks page: NVMe subsystems and their paths, iSCSI sessions and
their LUNs, NIC and FC port error counters, each flagged where an open finding names it; and
one entity of each, for a link. Unknown entities answer 404."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.cached import cached_json, current_view
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.views.networks import (
    FcPortCountersView,
    IscsiSessionView,
    NetworksView,
    NicCountersView,
    NvmeSubsystemView,
    networks_view,
)
from pinchpoint.model.fc import normalise_wwn
from pinchpoint.service.runtime import HostView, Service

router = APIRouter(prefix="/v1/views", tags=["views"], dependencies=[ReadAccess])

HostQuery = Annotated[str | None, Query(description="Host name (default: the newest report's)")]
VIEW_KEY = "view-networks"


async def _host(service: Service, host: str | None) -> HostView:
    view = await current_view(service, host)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet" + (f" for {host}" if host else ""))
    return view


def _built(view: HostView) -> NetworksView:
    """The page's view of this report, built once per report."""
    built = view.derived.get(VIEW_KEY)
    if not isinstance(built, NetworksView):
        assert view.inventory is not None
        built = networks_view(view.inventory, view.report.findings, view.report_id)
        view.derived[VIEW_KEY] = built
    return built


@router.get("/networks", response_model=NetworksView)
async def networks(request: Request, service: ServiceDep, host: HostQuery = None) -> Response:
    """Everything the storage networks page draws: NVMe subsystems (NQN, controllers with
    transport, address and state, each namespace's paths with their ANA state), iSCSI sessions
    (target, portal, session and connection state, the LUNs behind each by WWID and their
    multipath map), physical NICs' error counters and FC ports' link error counters (with the
    rise since the previous sweep where a finding judged it). `sections` lists the parts the
    host has; the others are empty."""
    view = await _host(service, host)
    return cached_json(request, view, VIEW_KEY, lambda: _built(view).model_dump_json().encode())


def _missing(what: str, name: str) -> ProblemError:
    return ProblemError(404, "not-found", f"no {what} {name!r}")


@router.get("/nvme/{subsystem}", response_model=NvmeSubsystemView)
async def nvme_subsystem(
    subsystem: str, service: ServiceDep, host: HostQuery = None
) -> NvmeSubsystemView:
    """One NVMe subsystem by its id (`nvme-subsys:<NQN>`), its NQN or its kernel name."""
    built = _built(await _host(service, host))
    for found in built.nvme:
        if subsystem in (found.id, found.nqn, found.kernel_name):
            return found
    raise _missing("NVMe subsystem", subsystem)


@router.get("/iscsi/{session}", response_model=list[IscsiSessionView])
async def iscsi_sessions(
    session: str, service: ServiceDep, host: HostQuery = None
) -> list[IscsiSessionView]:
    """The iSCSI sessions of one name (`session3`) or to one target IQN, with their LUNs."""
    built = _built(await _host(service, host))
    found = [s for s in built.iscsi if session in (s.name, s.target)]
    if not found:
        raise _missing("iSCSI session or target", session)
    return found


@router.get("/nics/{nic}", response_model=NicCountersView)
async def nic_counters(nic: str, service: ServiceDep, host: HostQuery = None) -> NicCountersView:
    """One physical NIC's error counters by its id (`nic:<MAC>`) or kernel name."""
    built = _built(await _host(service, host))
    for found in built.nics:
        if nic in (found.id, found.name):
            return found
    raise _missing("physical NIC with counters", nic)


@router.get("/fc-ports/{port}", response_model=FcPortCountersView)
async def fc_port_counters(
    port: str, service: ServiceDep, host: HostQuery = None
) -> FcPortCountersView:
    """One FC port's link error counters by its id (`fc-port:<WWPN>`), WWPN or kernel host."""
    built = _built(await _host(service, host))
    wwpn = normalise_wwn(port)
    for found in built.fc_ports:
        if port in (found.id, found.scsi_host) or wwpn == found.wwpn:
            return found
    raise _missing("FC port", port)
