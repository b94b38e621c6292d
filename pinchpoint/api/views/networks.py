"""What the storage networks page draws: NVMe subsystems with their controllers and each
namespace's paths and ANA state, iSCSI sessions with the LUNs behind them, NIC error counters
and FC port statistics, each flagged where an open finding names it.

A section is empty (and the page leaves it out) when the host has no such device; NIC counters
are the physical NICs' (a veth's errors say nothing of a cable). The rise of a counter since
the previous sweep comes from the finding that judged it (`net.link.errors`, `fc.port.errors`):
the report keeps the two sweeps' comparison, the inventory only this sweep's totals.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from pinchpoint.api.views.maintenance import FindingBrief
from pinchpoint.model.fc import FcPort, normalise_wwn
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.iscsi import DEVICE_UP, IscsiDevice, IscsiSession, iscsi_lun_id
from pinchpoint.model.network import DRIVER_COUNTER_PREFIX, Nic, NicKind
from pinchpoint.model.nvme import (
    ANA_OPTIMIZED,
    ANA_USABLE,
    CONTROLLER_LIVE,
    NvmeController,
    NvmeNamespace,
    NvmeSubsystem,
)
from pinchpoint.naming import (
    fc_port_name,
    multipath_lun_name,
    nvme_namespace_name,
    nvme_subsystem_name,
)
from pinchpoint.rules.derived.counters import counter_label
from pinchpoint.stats.attach import wwid_key

# NIC counters shown, in the page's column order: (column, the kernel's counter).
NIC_COLUMNS = (
    ("rx errors", "rx_errors"),
    ("tx errors", "tx_errors"),
    ("CRC errors", "rx_crc_errors"),
    ("rx dropped", "rx_dropped"),
    ("tx dropped", "tx_dropped"),
    ("carrier changes", "carrier_changes"),
)
# FC port counters shown: the FC-FS link error status block and error frames.
FC_COLUMNS = (
    ("link failures", "link_failure_count"),
    ("loss of sync", "loss_of_sync_count"),
    ("loss of signal", "loss_of_signal_count"),
    ("invalid CRC", "invalid_crc_count"),
    ("invalid tx words", "invalid_tx_word_count"),
    ("error frames", "error_frames"),
)


class Counter(BaseModel):
    """One counter: its total now, and its rise since the previous sweep where a finding
    compared the two (None: not judged, or not risen)."""

    label: str
    name: str  # the kernel's (or `ethtool:<driver name>`)
    value: int | None = None  # None: the driver keeps no such counter
    rise: int | None = None


class Flagged(BaseModel):
    """What an open finding says of an entity: its worst severity and the findings."""

    worst: Severity | None = None
    findings: list[FindingBrief] = Field(default_factory=list)


# --- NVMe ----------------------------------------------------------------------------------


class NvmeControllerView(BaseModel):
    name: str
    transport: str | None = None
    address: str | None = None  # "10.162.198.45:4420", a PCI address
    adapter: str | None = None  # what its connection leaves the host through
    state: str | None = None
    live: bool


class NvmePathView(BaseModel):
    name: str  # nvme2c2n1
    controller: str
    transport: str | None = None
    address: str | None = None
    state: str | None = None  # its controller's
    ana_state: str | None = None  # None: the controller reports no ANA (most PCIe drives)
    live: bool  # I/O can go down it
    optimized: bool | None = None  # None where there is no ANA
    flagged: bool  # an open finding of its namespace, and this path is down or not optimized


class NvmeNamespaceView(Flagged):
    id: str
    name: str
    nsid: int | None = None
    wwid: str | None = None
    head: str | None = None
    size_bytes: int | None = None
    paths: list[NvmePathView] = Field(default_factory=list)
    live_paths: int


class NvmeSubsystemView(Flagged):
    id: str
    name: str
    kernel_name: str
    nqn: str
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    iopolicy: str | None = None
    transports: list[str] = Field(default_factory=list)
    fabrics: bool
    controllers: list[NvmeControllerView] = Field(default_factory=list)
    namespaces: list[NvmeNamespaceView] = Field(default_factory=list)


# --- iSCSI ---------------------------------------------------------------------------------


class IscsiLunView(Flagged):
    hctl: str
    lun: int | None = None
    wwid: str | None = None
    wwid_from: str | None = None  # "vpd_pg83" or "wwid"
    lun_id: str | None = None  # iscsi-lun:<WWID>: the entity findings name
    state: str | None = None
    up: bool
    vendor: str | None = None
    model: str | None = None
    block_device: str | None = None
    multipath: str | None = None  # the dm-multipath map of its WWID, named
    sessions: int  # sessions presenting this LUN (its WWID) on this host


class IscsiSessionView(Flagged):
    name: str
    target: str | None = None
    portal: str | None = None
    tpgt: int | None = None
    state: str | None = None
    connection_state: str | None = None
    logged_in: bool
    iface: str | None = None
    interface: str | None = None  # what it leaves the host through
    initiator: str | None = None
    luns: list[IscsiLunView] = Field(default_factory=list)


# --- counters ------------------------------------------------------------------------------


class NicCountersView(Flagged):
    id: str
    name: str
    operstate: str | None = None
    speed_mbps: int | None = None
    bond: str | None = None
    counters: list[Counter] = Field(default_factory=list)
    driver_errors: list[Counter] = Field(default_factory=list)  # `ethtool -S` CRC/alignment …


class FcPortCountersView(Flagged):
    id: str
    name: str
    scsi_host: str
    wwpn: str | None = None  # normalised, `0x…`
    port_state: str | None = None
    speed_text: str | None = None
    seconds_since_reset: int | None = None
    counters: list[Counter] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list)


class NetworksView(BaseModel):
    """The storage networks page in one answer; a list is empty when the host has none."""

    host: str | None = None
    report_id: int | None = None
    sections: list[str] = Field(default_factory=list)  # "nvme", "iscsi", "nics", "fc"
    nvme: list[NvmeSubsystemView] = Field(default_factory=list)
    iscsi: list[IscsiSessionView] = Field(default_factory=list)
    nics: list[NicCountersView] = Field(default_factory=list)
    fc_ports: list[FcPortCountersView] = Field(default_factory=list)


# --- findings ------------------------------------------------------------------------------


class FindingsByEntity:
    """Open findings of a report by the entity they name (muted ones are left out)."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.by_entity: dict[str, list[Finding]] = {}
        for finding in findings:
            if finding.muted is None:
                self.by_entity.setdefault(finding.entity.id, []).append(finding)

    def of(self, *entity_ids: str) -> list[Finding]:
        return [f for e in dict.fromkeys(entity_ids) for f in self.by_entity.get(e, [])]

    def flag(self, *entity_ids: str) -> Flagged:
        mine = self.of(*entity_ids)
        briefs = [
            FindingBrief(
                id=f.id,
                rule=f.rule,
                severity=f.severity,
                title=f.title,
                entity_id=f.entity.id,
                muted=False,
            )
            for f in mine
        ]
        worst = max((f.severity for f in mine), key=lambda s: s.rank, default=None)
        return Flagged(worst=worst, findings=briefs)

    def rises(self, entity_id: str, rule: str) -> dict[str, int]:
        """Counter label → rise, from the facts of the rule's finding on the entity."""
        found: dict[str, int] = {}
        for finding in self.by_entity.get(entity_id, []):
            if finding.rule != rule:
                continue
            for evidence in finding.evidence:
                for fact in evidence.facts:
                    if isinstance(fact.value, int) and fact.unit in ("errors", "changes"):
                        found.setdefault(fact.name, fact.value)
        return found


Found = Iterable[Finding] | FindingsByEntity


def by_entity(findings: Found) -> FindingsByEntity:
    return findings if isinstance(findings, FindingsByEntity) else FindingsByEntity(findings)


# --- building ------------------------------------------------------------------------------


def _address(controller: NvmeController) -> str | None:
    if controller.target_address and controller.target_port:
        return f"{controller.target_address}:{controller.target_port}"
    return controller.target_address or controller.address


def _live(controller: NvmeController | None, ana_state: str | None) -> bool:
    return (
        controller is not None
        and controller.state == CONTROLLER_LIVE
        and (ana_state is None or ana_state in ANA_USABLE)
    )


def _namespace(
    namespace: NvmeNamespace, subsystem: NvmeSubsystem, findings: FindingsByEntity
) -> NvmeNamespaceView:
    flagged = findings.flag(namespace.id)
    has_ana = any(p.ana_state is not None for p in namespace.paths)
    paths = []
    for path in namespace.paths:
        controller = subsystem.controller(path.controller)
        live = _live(controller, path.ana_state)
        optimized = live and path.ana_state == ANA_OPTIMIZED if has_ana else None
        paths.append(
            NvmePathView(
                name=path.name,
                controller=path.controller,
                transport=controller.transport if controller else None,
                address=_address(controller) if controller else None,
                state=controller.state if controller else None,
                ana_state=path.ana_state,
                live=live,
                optimized=optimized,
                flagged=bool(flagged.findings) and (not live or optimized is False),
            )
        )
    return NvmeNamespaceView(
        **flagged.model_dump(),
        id=namespace.id,
        name=nvme_namespace_name(namespace, subsystem),
        nsid=namespace.nsid,
        wwid=namespace.wwid,
        head=namespace.head,
        size_bytes=namespace.size_bytes,
        paths=paths,
        live_paths=sum(1 for p in paths if p.live),
    )


def nvme_views(inventory: Inventory, findings: Found = ()) -> list[NvmeSubsystemView]:
    """Every NVMe subsystem with its controllers and each namespace's paths."""
    index = by_entity(findings)
    views = []
    for subsystem in inventory.nvme.subsystems:
        namespaces = [_namespace(n, subsystem, index) for n in subsystem.namespaces]
        own = index.flag(subsystem.id)
        worst = max(
            [s for s in [own.worst, *(n.worst for n in namespaces)] if s is not None],
            key=lambda s: s.rank,
            default=None,
        )
        views.append(
            NvmeSubsystemView(
                worst=worst,
                findings=own.findings,
                id=subsystem.id,
                name=nvme_subsystem_name(subsystem),
                kernel_name=subsystem.name,
                nqn=subsystem.nqn,
                model=subsystem.model,
                serial=subsystem.serial,
                firmware=subsystem.firmware,
                iopolicy=subsystem.iopolicy,
                transports=subsystem.transports,
                fabrics=subsystem.fabrics,
                controllers=[
                    NvmeControllerView(
                        name=c.name,
                        transport=c.transport,
                        address=_address(c),
                        adapter=c.adapter,
                        state=c.state,
                        live=c.state == CONTROLLER_LIVE,
                    )
                    for c in subsystem.controllers
                ],
                namespaces=namespaces,
            )
        )
    return views


def _lun_key(session: IscsiSession, device: IscsiDevice) -> str:
    """A LUN as `iscsi.target.single_path` counts it: its WWID, else target and number."""
    return device.wwid or f"{session.target or session.name}/lun{device.lun}"


def iscsi_views(inventory: Inventory, findings: Found = ()) -> list[IscsiSessionView]:
    """Every iSCSI session with the LUNs behind it, each joined to its multipath map by WWID."""
    index = by_entity(findings)
    maps = {wwid_key(m.wwid): m for m in inventory.multipath.maps if m.wwid}
    presenting: dict[str, int] = {}
    for session in inventory.iscsi.sessions:
        for device in session.devices:
            key = _lun_key(session, device)
            presenting[key] = presenting.get(key, 0) + 1
    views = []
    for session in inventory.iscsi.sessions:
        luns = []
        for device in session.devices:
            key = _lun_key(session, device)
            lun_id = iscsi_lun_id(key)
            mpath = maps.get(wwid_key(device.wwid)) if device.wwid else None
            luns.append(
                IscsiLunView(
                    **index.flag(lun_id).model_dump(),
                    hctl=device.hctl,
                    lun=device.lun,
                    wwid=device.wwid,
                    wwid_from=device.wwid_from,
                    lun_id=lun_id,
                    state=device.state,
                    up=device.state is None or device.state in DEVICE_UP,
                    vendor=device.vendor,
                    model=device.model,
                    block_device=device.block_device,
                    multipath=multipath_lun_name(mpath) if mpath else None,
                    sessions=presenting[key],
                )
            )
        worst = max(
            [lun.worst for lun in luns if lun.worst is not None],
            key=lambda s: s.rank,
            default=None,
        )
        views.append(
            IscsiSessionView(
                worst=worst,
                name=session.name,
                target=session.target,
                portal=session.portal,
                tpgt=session.tpgt,
                state=session.state,
                connection_state=session.connection_state,
                logged_in=session.logged_in,
                iface=session.iface,
                interface=session.interface,
                initiator=session.initiator,
                luns=luns,
            )
        )
    return views


def _nic_view(nic: Nic, index: FindingsByEntity) -> NicCountersView:
    assert nic.counters is not None
    values = nic.counters.values()
    rises = index.rises(nic.id, "net.link.errors")
    counters = [
        Counter(label=label, name=name, value=values.get(name), rise=rises.get(counter_label(name)))
        for label, name in NIC_COLUMNS
    ]
    driver = [
        Counter(
            label=counter_label(f"{DRIVER_COUNTER_PREFIX}{name}"),
            name=f"{DRIVER_COUNTER_PREFIX}{name}",
            value=value,
            rise=rises.get(counter_label(f"{DRIVER_COUNTER_PREFIX}{name}")),
        )
        for name, value in sorted(nic.counters.driver.items())
        if any(word in name.lower() for word in ("crc", "fcs", "align", "symbol"))
    ]
    return NicCountersView(
        **index.flag(nic.id).model_dump(),
        id=nic.id,
        name=nic.name,
        operstate=nic.operstate,
        speed_mbps=nic.speed_mbps,
        bond=nic.bond,
        counters=counters,
        driver_errors=driver,
    )


def nic_views(inventory: Inventory, findings: Found = ()) -> list[NicCountersView]:
    """Physical NICs whose counters were read, with each counter's rise where judged."""
    index = by_entity(findings)
    return [
        _nic_view(nic, index)
        for nic in inventory.network.nics
        if nic.kind is NicKind.PHYSICAL and nic.counters is not None
    ]


def _fc_view(port: FcPort, index: FindingsByEntity) -> FcPortCountersView:
    statistics = port.statistics
    rises = index.rises(port.id, "fc.port.errors")
    counters = [
        Counter(
            label=label,
            name=name,
            value=getattr(statistics, name),
            rise=rises.get(counter_label(name)),
        )
        for label, name in FC_COLUMNS
    ]
    return FcPortCountersView(
        **index.flag(port.id).model_dump(),
        id=port.id,
        name=fc_port_name(port),
        scsi_host=port.scsi_host,
        wwpn=normalise_wwn(port.port_name) if port.port_name else None,
        port_state=port.port_state,
        speed_text=port.speed_text,
        seconds_since_reset=statistics.seconds_since_last_reset,
        counters=counters,
        unsupported=list(statistics.unsupported),
    )


def fc_views(inventory: Inventory, findings: Found = ()) -> list[FcPortCountersView]:
    """Every FC port with its link error counters."""
    index = by_entity(findings)
    return [_fc_view(port, index) for port in inventory.fc.ports]


def networks_view(
    inventory: Inventory, findings: Iterable[Finding], report_id: int | None = None
) -> NetworksView:
    """The whole page: each section only where the host has such devices."""
    index = FindingsByEntity(findings)
    view = NetworksView(
        host=inventory.host.hostname,
        report_id=report_id,
        nvme=nvme_views(inventory, index),
        iscsi=iscsi_views(inventory, index),
        nics=nic_views(inventory, index),
        fc_ports=fc_views(inventory, index),
    )
    present = {"nvme": view.nvme, "iscsi": view.iscsi, "nics": view.nics, "fc": view.fc_ports}
    view.sections = [name for name, items in present.items() if items]
    return view


def has_networks(inventory: Inventory) -> bool:
    """Whether the host has anything the storage networks page shows (its navigation link)."""
    return bool(
        inventory.nvme.subsystems
        or inventory.iscsi.sessions
        or inventory.fc.ports
        or any(n.kind is NicKind.PHYSICAL and n.counters for n in inventory.network.nics)
    )
