"""The inventory of the newest sweep: the whole model, or one part of it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import TypeAdapter

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.cached import cached_json, current_view, enclosures_json
from pinchpoint.api.problems import ProblemError
from pinchpoint.model.fc import FcPort
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.iscsi import IscsiSession
from pinchpoint.model.multipath import MultipathMap
from pinchpoint.model.network import Bond, Nic
from pinchpoint.model.nvme import NvmeSubsystem
from pinchpoint.model.sas import Disk, Enclosure, Hba
from pinchpoint.service.runtime import HostView
from pinchpoint.service.store import Page

router = APIRouter(prefix="/v1/inventory", tags=["inventory"], dependencies=[ReadAccess])

HostQuery = Annotated[str | None, Query(description="Host name (default: the newest report's)")]


async def _view(service: ServiceDep, host: str | None) -> tuple[HostView, Inventory]:
    """The newest view from memory when fresh, else read from the store on a worker thread."""
    view = await current_view(service, host)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet" + (f" for {host}" if host else ""))
    return view, view.inventory


def _json(
    request: Request, view: HostView, key: str, adapter: TypeAdapter[Any], value: Any
) -> Response:
    return cached_json(request, view, key, lambda: adapter.dump_json(value))


@router.get("", response_model=Inventory)
async def whole_inventory(
    request: Request, service: ServiceDep, host: HostQuery = None
) -> Response:
    """Everything the newest sweep saw (large: MBs on a 1,000-disk host)."""
    view, inventory = await _view(service, host)
    return _json(request, view, "inventory", TypeAdapter(Inventory), inventory)


@router.get("/hbas", response_model=list[Hba])
async def hbas(request: Request, service: ServiceDep, host: HostQuery = None) -> Response:
    """SAS HBAs with their ports and phys."""
    view, inventory = await _view(service, host)
    return _json(request, view, "hbas", TypeAdapter(list[Hba]), inventory.sas.hbas)


@router.get("/enclosures", response_model=list[Enclosure])
async def enclosures(request: Request, service: ServiceDep, host: HostQuery = None) -> Response:
    """Enclosures (JBODs) with slots and paths present against expected."""
    view = (await _view(service, host))[0]
    return cached_json(request, view, "enclosures", lambda: enclosures_json(view))


@router.get("/enclosures/{enclosure_id}", response_model=Enclosure)
async def enclosure(enclosure_id: str, service: ServiceDep, host: HostQuery = None) -> Enclosure:
    """One enclosure by its stable id, logical id or nickname."""
    inventory = (await _view(service, host))[1]
    for found in inventory.sas.enclosures:
        if enclosure_id in (found.id, found.logical_id, found.nickname):
            return found
    raise ProblemError(404, "not-found", f"no enclosure {enclosure_id!r}")


@router.get("/disks", response_model=Page[Disk])
async def disks(
    service: ServiceDep,
    host: HostQuery = None,
    enclosure: Annotated[str | None, Query(description="Enclosure id")] = None,
    hba: Annotated[str | None, Query(description="HBA id: disks with a path through it")] = None,
    hba_ports: Annotated[
        int | None, Query(ge=0, description="Reached through exactly this many HBA ports")
    ] = None,
    paths: Annotated[
        int | None,
        Query(ge=0, deprecated=True, description="Old name of `hba_ports` (until 0.3.0)"),
    ] = None,
    rotational: bool | None = None,
    model: Annotated[str | None, Query(description="Part of the model name")] = None,
    limit: Annotated[int, Query(ge=1, le=2000)] = 200,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[Disk]:
    """Disks with their paths, filtered and paged."""
    inventory = (await _view(service, host))[1]
    hba_ports = hba_ports if hba_ports is not None else paths
    chosen = [
        d
        for d in inventory.sas.disks
        if (enclosure is None or d.enclosure_id == enclosure)
        and (hba is None or any(p.hba_id == hba for p in d.paths))
        and (hba_ports is None or d.hba_ports == hba_ports)
        and (rotational is None or d.rotational is rotational)
        and (model is None or model.lower() in (d.model or "").lower())
    ]
    return Page[Disk](
        items=chosen[offset : offset + limit], total=len(chosen), limit=limit, offset=offset
    )


@router.get("/disks/{disk_id}", response_model=Disk)
async def disk(disk_id: str, service: ServiceDep, host: HostQuery = None) -> Disk:
    """One disk by its stable id, WWID or serial number."""
    inventory = (await _view(service, host))[1]
    for found in inventory.sas.disks:
        if disk_id in (found.id, found.wwid, found.serial):
            return found
    raise ProblemError(404, "not-found", f"no disk {disk_id!r}")


@router.get("/nics", response_model=list[Nic])
async def nics(service: ServiceDep, host: HostQuery = None) -> list[Nic]:
    """Network interfaces with speed, duplex and what ethtool says."""
    return (await _view(service, host))[1].network.nics


@router.get("/bonds", response_model=list[Bond])
async def bonds(service: ServiceDep, host: HostQuery = None) -> list[Bond]:
    """Bonds and their members."""
    return (await _view(service, host))[1].network.bonds


@router.get("/fc-ports", response_model=list[FcPort])
async def fc_ports(service: ServiceDep, host: HostQuery = None) -> list[FcPort]:
    """Fibre Channel ports with state, speed, remote ports and LUNs."""
    return (await _view(service, host))[1].fc.ports


@router.get("/multipath", response_model=list[MultipathMap])
async def multipath(service: ServiceDep, host: HostQuery = None) -> list[MultipathMap]:
    """dm-multipath maps with their path groups and paths."""
    return (await _view(service, host))[1].multipath.maps


@router.get("/nvme", response_model=list[NvmeSubsystem])
async def nvme(service: ServiceDep, host: HostQuery = None) -> list[NvmeSubsystem]:
    """NVMe subsystems with their controllers (transport, address, state), namespaces and each
    namespace's paths with their ANA state."""
    return (await _view(service, host))[1].nvme.subsystems


@router.get("/iscsi", response_model=list[IscsiSession])
async def iscsi(service: ServiceDep, host: HostQuery = None) -> list[IscsiSession]:
    """iSCSI sessions with their target, portal, interface, state and LUNs (by WWID)."""
    return (await _view(service, host))[1].iscsi.sessions
