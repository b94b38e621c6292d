"""What the maintenance view's topology and enclosure pages draw, in one answer each.

Topology: the SAS tree HBA → port → chain → enclosure → slot, each node with its worst open
finding and the load it carried over a recent window (I/Os per second, I/Os queued per disk and
in total, slow I/Os, p99): the hierarchy chart of field case 1, where two single-pathed JBODs
stood out by their queued I/Os. Enclosure: the front view of its bays, each disk's paths and
SMART health, its I/O modules and the HBA port each is cabled to, and whether its locate LEDs
can be switched from here.

Figures come from the sampler's series: single disks from its memory, groups (enclosure,
chain, HBA port, HBA) from the store, each summed over the window like `GET /v1/stats` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from pinchpoint.api.views.maintenance import (
    EnclosureMaintenance,
    SlotView,
    enclosure_maintenance,
    slot_view,
)
from pinchpoint.model.bay_layout import BayLayout, bay_layout
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.health import DiskHealth, SelfTestOutcome
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Chain, Disk, Enclosure, EnclosureElement, Hba, HbaPort
from pinchpoint.model.stats import Metric
from pinchpoint.naming import connector_name, element_name, hba_port_name
from pinchpoint.report.pool_tree import PoolNode, pool_trees
from pinchpoint.stats.enclosure_elements import (
    ABSENT_STATUSES,
    element_troubles,
    elements_summary,
)
from pinchpoint.stats.series import SeriesPoint, combine_into
from pinchpoint.units import KIB_PER_MB, gbps_text

if TYPE_CHECKING:
    from pinchpoint.service.runtime import Service

SLOWER_THAN_S = 0.22  # field case 1 counted the I/Os slower than 220 ms
WINDOW_S = 300


class Figures(BaseModel):
    """Load of one node over the window: means over time, I/O counts over the whole window."""

    disks: int  # disks under the node per the inventory
    measured: int = 0  # of those, disks with figures (a group's own series: all of them)
    iops: float | None = None
    mb_s: float | None = None  # read + write in MB/s, SI: 10⁶ bytes (docs/units.md)
    queue_per_disk: float | None = None  # I/Os active plus waiting per disk (aqu-sz)
    queued: float | None = None  # … summed over the node's disks
    latency_ms: float | None = None  # mean time per I/O
    ios: int = 0  # I/Os the latency histograms hold
    slow_ios: float | None = None  # of those, slower than the threshold
    p99_ms: float | None = None


class SlotNode(SlotView):
    """A bay with its worst open finding and its disk's figures."""

    worst: Severity | None = None
    figures: Figures | None = None


class EnclosureNode(BaseModel):
    id: str
    name: str
    product: str | None = None
    hba_ports: int
    hba_ports_expected: int
    bay_count: int | None = None
    worst: Severity | None = None
    findings: list[str] = Field(default_factory=list)  # titles of its open findings
    figures: Figures | None = None
    slots: list[SlotNode] = Field(default_factory=list)


class ChainMember(BaseModel):
    enclosure_id: str
    position: int  # 1 = cabled straight to the HBA port
    branch: int = 1  # daisy chains below one port, numbered from 1


class ChainNode(BaseModel):
    id: str
    name: str  # "chain of 4: JBOD-001 → JBOD-003 → JBOD-007 → JBOD-012"
    depth: int
    members: list[ChainMember] = Field(default_factory=list)
    worst: Severity | None = None
    findings: list[str] = Field(default_factory=list)
    figures: Figures | None = None


class PortNode(BaseModel):
    id: str
    name: str  # "connector 0": under its HBA (pinchpoint.naming.connector_name)
    kernel_name: str  # "port-1:0"
    width: int
    link: str  # "4 × 12 Gb/s", "2 of 4 phys up"
    attached: str
    worst: Severity | None = None
    findings: list[str] = Field(default_factory=list)
    figures: Figures | None = None
    chains: list[ChainNode] = Field(default_factory=list)


class HbaNode(BaseModel):
    id: str
    name: str  # "0000:03:00.0 SAS9300-8e"
    driver: str | None = None
    pcie: str | None = None  # "x8 at 8.0 GT/s (max x8 at 8.0 GT/s)"
    worst: Severity | None = None
    findings: list[str] = Field(default_factory=list)
    figures: Figures | None = None
    ports: list[PortNode] = Field(default_factory=list)


class TopologyView(BaseModel):
    """The whole tree; enclosures are listed once and named by id from the chains (a
    dual-pathed JBOD hangs below two HBA ports)."""

    host: str
    report_id: int
    generated_at: datetime
    window_start: datetime
    window_end: datetime
    slower_than_ms: float
    sampled: bool  # figures were found for at least one node
    hbas: list[HbaNode] = Field(default_factory=list)
    enclosures: list[EnclosureNode] = Field(default_factory=list)
    unchained: list[str] = Field(default_factory=list)  # enclosure ids reached by no chain


class CableTo(BaseModel):
    hba_port_id: str
    hba: str
    hba_port: str  # "0000:03:00.0 SAS9300-8e connector 0" (pinchpoint.naming)
    port: str  # kernel name, "port-1:0"
    connector: int


class IoModule(BaseModel):
    """One I/O module of an enclosure as the host sees it: an SES device and its cabling."""

    label: str  # "I/O module 1"
    seen: bool  # False: the enclosure reports it, but no path from this host reaches it
    ses_id: str | None = None
    sas_address: str | None = None
    sg_devices: list[str] = Field(default_factory=list)
    product: str | None = None
    revision: str | None = None
    cabled_to: list[CableTo] = Field(default_factory=list)


class PathBrief(BaseModel):
    hba: str
    port: str | None = None  # "connector 0", beside its HBA (pinchpoint.naming.connector_name)
    hba_port: str | None = None  # "0000:03:00.0 SAS9300-8e connector 0" (pinchpoint.naming)
    hctl: str
    block_device: str | None = None
    state: str | None = None
    queue_depth: int | None = None


class HealthBrief(BaseModel):
    """What smartctl said of one disk, in the few words a technician needs."""

    verdict: str  # "passed", "FAILED", "no verdict", "not collected: …"
    passed: bool | None = None
    temperature_c: int | None = None
    power_on_hours: int | None = None
    grown_defects: int | None = None
    uncorrected_errors: int | None = None
    reallocated_sectors: int | None = None
    pending_sectors: int | None = None
    temperature_limit_c: int | None = None  # the drive's critical limit, else its warning one
    endurance_used_pct: int | None = None  # SSDs: rated endurance used
    last_self_test: str | None = None  # "Extended offline: Completed: read failure"
    last_self_test_passed: bool | None = None


class BayView(BaseModel):
    slot: SlotNode
    serial: str | None = None
    model: str | None = None
    size_bytes: int | None = None
    rotational: bool | None = None
    disk_paths: list[PathBrief] = Field(default_factory=list)
    health: HealthBrief | None = None
    findings: list[str] = Field(default_factory=list)


class ElementBrief(BaseModel):
    """One SES element of the enclosure (PSU, fan, sensor, expander …) for its page: its state,
    its reading and its own limits, and what is wrong with it (`stats.enclosure_elements`)."""

    name: str  # "power supply 1 (PSU 2)" (pinchpoint.naming.element_name)
    element_type: str  # as SES names it: "Power supply", "Cooling", "Temperature sensor"
    index: int
    status: str
    reading: str | None = None  # "64 °C", "12.1 V", "5240 rpm"
    temperature_c: float | None = None
    fan_rpm: int | None = None
    high_warning: float | None = None  # the sensor's own limits (threshold page)
    high_critical: float | None = None
    limits_unit: str | None = None
    problem: str | None = None  # "reports Critical", "at 64 °C, over its 60 °C warning limit"
    severity: Severity | None = None  # of the problem; None when the element is fine


def _reading(element: EnclosureElement) -> str | None:
    if element.temperature_c is not None:
        return f"{element.temperature_c:g} °C"
    if element.voltage_v is not None:
        return f"{element.voltage_v:g} V"
    if element.current_a is not None:
        return f"{element.current_a:g} A"
    if element.fan_rpm is not None:
        return f"{element.fan_rpm} rpm"
    return None


def element_briefs(enclosure: Enclosure) -> list[ElementBrief]:
    """The enclosure's elements worth showing: those installed, and those in trouble; disk
    slots, connectors and the enclosure element itself are shown elsewhere or say nothing."""
    troubles = {id(t.element): t for t in element_troubles(enclosure)}
    briefs = []
    for element in enclosure.elements or []:
        trouble = troubles.get(id(element))
        kind = element.element_type.lower()
        if trouble is None and (
            element.status.lower() in ABSENT_STATUSES
            or kind in ("sas connector", "enclosure", "audible alarm")
        ):
            continue
        limits = element.limits
        briefs.append(
            ElementBrief(
                name=element_name(element),
                element_type=element.element_type,
                index=element.index,
                status=element.status,
                reading=_reading(element),
                temperature_c=element.temperature_c,
                fan_rpm=element.fan_rpm,
                high_warning=limits.high_warning if limits else None,
                high_critical=limits.high_critical if limits else None,
                limits_unit=limits.unit if limits else None,
                problem=trouble.what if trouble else None,
                severity=trouble.severity if trouble else None,
            )
        )
    return briefs


class EnclosureView(BaseModel):
    """One enclosure's page: its maintenance view, I/O modules, bays and locate ability."""

    host: str
    report_id: int
    maintenance: EnclosureMaintenance
    figures: Figures | None = None
    io_modules: list[IoModule] = Field(default_factory=list)
    bays: list[BayView] = Field(default_factory=list)
    # where the bays sit, for a known enclosure model (the H4060-J's drawer); None: SES order
    layout: BayLayout | None = None
    # SES elements: power supplies, fans, sensors, expanders; None where not read
    elements: list[ElementBrief] | None = None
    elements_summary: str = ""  # "2 power supplies, 4 fans, …: all OK"
    # the ZFS pools with a disk in this enclosure, each whole (a mirror's other side elsewhere)
    pools: list[PoolNode] = Field(default_factory=list)
    locate_refusal: str | None = None  # why the locate LEDs cannot be switched here
    window_start: datetime
    window_end: datetime
    slower_than_ms: float


# --- figures -------------------------------------------------------------------------------


def figures_of(
    points: Sequence[SeriesPoint], disks: int, measured: int, slower_s: float
) -> Figures:
    """`points` summed into one window's figures; `measured` disks stand behind them."""
    figures = Figures(disks=disks, measured=measured if points else 0)
    if not points:
        return figures
    total = SeriesPoint(start_s=points[0].start_s, resolution_s=1)
    for point in points:
        combine_into(total, point)
    values = total.values
    reads, writes = values.get(Metric.READ_IOPS), values.get(Metric.WRITE_IOPS)
    if reads is not None or writes is not None:
        figures.iops = (reads or 0.0) + (writes or 0.0)
    read_kb, write_kb = values.get(Metric.READ_KBPS), values.get(Metric.WRITE_KBPS)
    if read_kb is not None or write_kb is not None:
        figures.mb_s = ((read_kb or 0.0) + (write_kb or 0.0)) / KIB_PER_MB
    queue = values.get(Metric.QUEUE)
    if queue is not None:
        figures.queue_per_disk = queue
        figures.queued = queue * max(1, figures.measured)
    figures.latency_ms = values.get(Metric.LATENCY_MS)
    histogram = next(iter(total.histograms.values()), None)
    if histogram is not None and not histogram.empty:
        _add_histogram(figures, histogram, slower_s)
    return figures


def _add_histogram(figures: Figures, histogram: LatencyHistogram, slower_s: float) -> None:
    figures.ios = histogram.count
    figures.slow_ios = histogram.count_above(slower_s)
    p99 = histogram.percentile_s(99.0)
    figures.p99_ms = None if p99 is None else p99 * 1000


class WindowReader:
    """Reads each entity's points over one window: disks from the sampler's memory, groups from
    the store."""

    def __init__(self, service: Service, host: str, start: datetime, end: datetime) -> None:
        self.service = service
        self.host = host
        self.start = start
        self.end = end

    def disk_points(self, disk_ids: Iterable[str]) -> dict[str, list[SeriesPoint]]:
        sampler = self.service.sampler
        found = {}
        for disk_id in disk_ids:
            points = sampler.member_points(disk_id, self.start, self.end).points
            if points:
                found[disk_id] = points
        return found

    def group_points(self, entity: str) -> list[SeriesPoint]:
        from pinchpoint.service.sampling import group_policy

        pending = self.service.sampler.pending_point(self.host, entity)
        query = self.service.store.query_series(
            self.host, entity, self.start, self.end, group_policy(), pending
        )
        return query.points


# --- findings ------------------------------------------------------------------------------


class FindingIndex:
    """Open (unmuted) findings of a report by the entity they are about."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.by_entity: dict[str, list[Finding]] = {}
        for finding in findings:
            if finding.muted is None:
                self.by_entity.setdefault(finding.entity.id, []).append(finding)

    def of(self, *entity_ids: str) -> list[Finding]:
        return [f for e in entity_ids for f in self.by_entity.get(e, [])]

    @staticmethod
    def worst(findings: Iterable[Finding]) -> Severity | None:
        return max((f.severity for f in findings), key=lambda s: s.rank, default=None)


# --- the tree ------------------------------------------------------------------------------


def _port_link(port: HbaPort) -> str:
    up = [p for p in port.phys if p.negotiated_gbps]
    rates = sorted({p.negotiated_gbps for p in up if p.negotiated_gbps})
    if not port.phys:
        return f"{port.width} phys"
    if len(up) < len(port.phys):
        return f"{len(up)} of {len(port.phys)} phys up"
    if len(rates) == 1:
        return f"{len(up)} × {gbps_text(rates[0])}"
    return f"{len(up)} phys at {' and '.join(gbps_text(r) for r in rates)}"


def _pcie_text(hba: Hba) -> str | None:
    link = hba.pcie
    if link is None or link.current_width is None:
        return None
    if link.current_speed_gts is None:
        return f"x{link.current_width}, speed unknown"
    now = f"x{link.current_width} at {link.current_speed_gts:g} GT/s"
    if link.max_width is None or link.max_speed_gts is None:
        return now
    return f"{now} (max x{link.max_width} at {link.max_speed_gts:g} GT/s)"


def _chain_node(chain: Chain, names: dict[str, str]) -> ChainNode:
    members: list[ChainMember] = []
    branches = chain.branches or [chain.enclosure_ids]
    for number, branch in enumerate(branches, start=1):
        for position, enclosure_id in enumerate(branch, start=1):
            members.append(ChainMember(enclosure_id=enclosure_id, position=position, branch=number))
    order = " | ".join(" → ".join(names.get(e, e) for e in branch) for branch in branches)
    count = len(chain.enclosure_ids)
    noun = "enclosure" if count == 1 else "enclosures"
    return ChainNode(
        id=chain.id, name=f"chain of {count} {noun}: {order}", depth=chain.depth, members=members
    )


def _slot_nodes(
    enclosure: Enclosure,
    disks: dict[str, Disk],
    index: FindingIndex,
    disk_figures: dict[str, Figures],
) -> list[SlotNode]:
    nodes = []
    for slot in enclosure.slots:
        disk = disks.get(slot.disk_id or "")
        nodes.append(
            SlotNode(
                **vars(slot_view(slot, disk, enclosure)),
                worst=index.worst(index.of(slot.disk_id)) if slot.disk_id else None,
                figures=disk_figures.get(slot.disk_id or ""),
            )
        )
    return nodes


def _disk_figures(
    reader: WindowReader, disk_ids: Sequence[str], slower_s: float
) -> dict[str, Figures]:
    return {
        disk_id: figures_of(points, 1, 1, slower_s)
        for disk_id, points in reader.disk_points(disk_ids).items()
    }


def _group_figures(
    reader: WindowReader,
    entity: str,
    member_ids: Sequence[str],
    disk_figures: dict[str, Figures],
    slower_s: float,
) -> Figures:
    """A group's own series over the window; its disks' sums where it has none."""
    own = reader.group_points(entity)
    if own:
        return figures_of(own, len(member_ids), len(member_ids), slower_s)
    return summed_figures([disk_figures[d] for d in member_ids if d in disk_figures], member_ids)


def summed_figures(parts: Sequence[Figures], member_ids: Sequence[str]) -> Figures:
    """Disks' figures added up (queue per disk: their mean)."""
    figures = Figures(disks=len(member_ids), measured=len(parts))
    if not parts:
        return figures

    def total(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return sum(present) if present else None

    figures.iops = total([p.iops for p in parts])
    figures.mb_s = total([p.mb_s for p in parts])
    figures.queued = total([p.queued for p in parts])
    if figures.queued is not None:
        figures.queue_per_disk = figures.queued / len(parts)
    figures.slow_ios = total([p.slow_ios for p in parts])
    figures.ios = sum(p.ios for p in parts)
    return figures


def _window(window_s: int, now: datetime | None) -> tuple[datetime, datetime]:
    end = (now or datetime.now(UTC)).astimezone(UTC)
    return end - timedelta(seconds=window_s), end


def topology_view(
    service: Service,
    inventory: Inventory,
    findings: Sequence[Finding],
    report_id: int,
    generated_at: datetime,
    *,
    window_s: int = WINDOW_S,
    slower_than_s: float = SLOWER_THAN_S,
    now: datetime | None = None,
) -> TopologyView:
    """The SAS tree of `inventory` with findings and the last `window_s` seconds' figures."""
    fabric = inventory.sas
    host = inventory.host.hostname or ""
    start, end = _window(window_s, now)
    reader = WindowReader(service, host, start, end)
    index = FindingIndex(findings)
    disks = {d.id: d for d in fabric.disks}
    disk_figures = _disk_figures(reader, list(disks), slower_than_s)
    names = {e.id: e.name for e in fabric.enclosures}
    by_enclosure: dict[str, list[str]] = {}
    for disk in fabric.disks:
        if disk.enclosure_id:
            by_enclosure.setdefault(disk.enclosure_id, []).append(disk.id)
    by_port: dict[str, list[str]] = {}
    for disk in fabric.disks:
        for port_id in dict.fromkeys(p.hba_port_id for p in disk.paths if p.hba_port_id):
            by_port.setdefault(port_id, []).append(disk.id)

    enclosures = []
    for enclosure in fabric.enclosures:
        members = by_enclosure.get(enclosure.id, [])
        mine = index.of(enclosure.id, *members)
        enclosures.append(
            EnclosureNode(
                id=enclosure.id,
                name=enclosure.name,
                product=" ".join(p for p in (enclosure.vendor, enclosure.product) if p) or None,
                hba_ports=enclosure.hba_ports,
                hba_ports_expected=enclosure.hba_ports_expected,
                bay_count=enclosure.bay_count,
                worst=index.worst(mine),
                findings=[f.title for f in index.of(enclosure.id)],
                figures=_group_figures(reader, enclosure.id, members, disk_figures, slower_than_s),
                slots=_slot_nodes(enclosure, disks, index, disk_figures),
            )
        )

    hbas = []
    chained: set[str] = set()
    for hba in fabric.hbas:
        ports = []
        for port in hba.ports:
            port_disks = by_port.get(port.id, [])
            chains = []
            for chain in fabric.chains:
                if chain.hba_port_id != port.id:
                    continue
                node = _chain_node(chain, names)
                chain_disks = [d for e in chain.enclosure_ids for d in by_enclosure.get(e, [])]
                node.figures = _group_figures(
                    reader, chain.id, chain_disks, disk_figures, slower_than_s
                )
                node.findings = [f.title for f in index.of(chain.id)]
                node.worst = index.worst(index.of(chain.id))
                chained.update(chain.enclosure_ids)
                chains.append(node)
            port_findings = index.of(port.id)
            ports.append(
                PortNode(
                    id=port.id,
                    name=connector_name(port.connector),
                    kernel_name=port.name,
                    width=port.width,
                    link=_port_link(port),
                    attached=port.attached_kind.value,
                    worst=index.worst(port_findings),
                    findings=[f.title for f in port_findings],
                    figures=_group_figures(
                        reader, port.id, port_disks, disk_figures, slower_than_s
                    ),
                    chains=chains,
                )
            )
        hba_disks = list(dict.fromkeys(d for p in hba.ports for d in by_port.get(p.id, [])))
        hba_findings = index.of(hba.id)
        hbas.append(
            HbaNode(
                id=hba.id,
                name=hba.label,
                driver=hba.driver,
                pcie=_pcie_text(hba),
                worst=index.worst(hba_findings),
                findings=[f.title for f in hba_findings],
                figures=_group_figures(reader, hba.id, hba_disks, disk_figures, slower_than_s),
                ports=ports,
            )
        )
    sampled = bool(disk_figures) or any(e.figures and e.figures.measured for e in enclosures)
    return TopologyView(
        host=host,
        report_id=report_id,
        generated_at=generated_at,
        window_start=start,
        window_end=end,
        slower_than_ms=slower_than_s * 1000,
        sampled=sampled,
        hbas=hbas,
        enclosures=enclosures,
        unchained=[e.id for e in fabric.enclosures if e.id not in chained],
    )


# --- one enclosure -------------------------------------------------------------------------


def _io_modules(enclosure: Enclosure, inventory: Inventory) -> list[IoModule]:
    ports = {p.id: (h, p) for h in inventory.sas.hbas for p in h.ports}
    modules = []
    for number, ses in enumerate(enclosure.ses_devices, start=1):
        cabled = []
        for port_id in ses.hba_port_ids:
            hba, port = ports.get(port_id, (None, None))
            if hba is None or port is None:
                continue
            cabled.append(
                CableTo(
                    hba_port_id=port.id,
                    hba=hba.label,
                    hba_port=hba_port_name(hba, port),
                    port=port.name,
                    connector=port.connector,
                )
            )
        modules.append(
            IoModule(
                label=f"I/O module {number}",
                seen=True,
                ses_id=ses.id,
                sas_address=ses.sas_address,
                sg_devices=ses.sg_devices,
                product=" ".join(p for p in (ses.vendor, ses.product) if p) or None,
                revision=ses.revision,
                cabled_to=cabled,
            )
        )
    reported = enclosure.io_modules or 0
    for number in range(len(modules) + 1, reported + 1):
        modules.append(IoModule(label=f"I/O module {number}", seen=False))
    return modules


def health_brief(health: DiskHealth | None) -> HealthBrief | None:
    """smartctl's verdict and the counters that matter at the rack."""
    if health is None:
        return None
    if not health.collected:
        return HealthBrief(verdict=f"not collected: {health.not_collected_reason or 'unknown'}")
    verdict = {True: "passed", False: "FAILED", None: "no verdict"}[health.smart_passed]
    brief = HealthBrief(
        verdict=verdict,
        passed=health.smart_passed,
        temperature_c=health.temperature_c,
        power_on_hours=health.power_on_hours,
    )
    if health.scsi is not None:
        brief.grown_defects = health.scsi.grown_defects
        errors = [
            health.scsi.uncorrected_read_errors,
            health.scsi.uncorrected_write_errors,
            health.scsi.uncorrected_verify_errors,
        ]
        known = [e for e in errors if e is not None]
        brief.uncorrected_errors = sum(known) if known else None
    if health.ata is not None:
        brief.reallocated_sectors = health.ata.reallocated_sectors
        brief.pending_sectors = health.ata.pending_sectors
    if health.nvme is not None:
        brief.uncorrected_errors = health.nvme.media_errors
    brief.temperature_limit_c = health.temperature_critical_c or health.temperature_warning_c
    brief.endurance_used_pct = health.endurance_used_pct
    last = next((t for t in health.self_tests or [] if t.outcome in _DECISIVE), None)
    if last is not None:
        brief.last_self_test = f"{last.description}: {last.status}"
        brief.last_self_test_passed = last.outcome is SelfTestOutcome.PASSED
    return brief


# Self-test outcomes that say something of the medium (aborted and running ones do not).
_DECISIVE = (SelfTestOutcome.PASSED, SelfTestOutcome.FAILED)


def _health_by_disk(inventory: Inventory) -> dict[str, DiskHealth]:
    """smartctl reports by disk id, joined on the WWN (else the serial)."""
    by_wwn = {h.wwn: h for h in inventory.health.disks if h.wwn}
    by_serial = {h.serial: h for h in inventory.health.disks if h.serial}
    found = {}
    for disk in inventory.sas.disks:
        health = by_wwn.get(disk.wwid or "") or by_serial.get(disk.serial or "")
        if health is not None:
            found[disk.id] = health
    return found


def _paths(disk: Disk, inventory: Inventory) -> list[PathBrief]:
    hbas = {h.id: h for h in inventory.sas.hbas}
    ports = {p.id: p for h in inventory.sas.hbas for p in h.ports}
    briefs = []
    for path in disk.paths:
        hba = hbas.get(path.hba_id)
        port = ports.get(path.hba_port_id or "")
        briefs.append(
            PathBrief(
                hba=hba.label if hba is not None else path.hba_id,
                port=connector_name(port.connector) if port is not None else None,
                hba_port=hba_port_name(hba, port) if hba is not None and port is not None else None,
                hctl=path.hctl,
                block_device=path.block_device,
                state=path.state,
                queue_depth=path.queue_depth,
            )
        )
    return briefs


def enclosure_pools(inventory: Inventory, enclosure_id: str) -> list[PoolNode]:
    """The vdev trees of the pools with a device in the enclosure, each device with its bay."""
    return [
        pool
        for pool in pool_trees(inventory)
        if any(leaf.enclosure_id == enclosure_id for leaf in pool.leaves())
    ]


def enclosure_view(
    service: Service,
    inventory: Inventory,
    findings: Sequence[Finding],
    report_id: int,
    enclosure_id: str,
    *,
    window_s: int = WINDOW_S,
    slower_than_s: float = SLOWER_THAN_S,
    now: datetime | None = None,
) -> EnclosureView | None:
    """One enclosure (by id, logical id or nickname) for its page; None when there is none."""
    enclosure = next(
        (e for e in inventory.sas.enclosures if enclosure_id in (e.id, e.logical_id, e.nickname)),
        None,
    )
    if enclosure is None:
        return None
    maintenance = next(
        m for m in enclosure_maintenance(inventory, list(findings)) if m.id == enclosure.id
    )
    host = inventory.host.hostname or ""
    start, end = _window(window_s, now)
    reader = WindowReader(service, host, start, end)
    index = FindingIndex(findings)
    disks = {d.id: d for d in inventory.sas.disks if d.enclosure_id == enclosure.id}
    disk_figures = _disk_figures(reader, list(disks), slower_than_s)
    health = _health_by_disk(inventory)
    bays = []
    for slot in _slot_nodes(enclosure, disks, index, disk_figures):
        disk = disks.get(slot.disk_id or "")
        bay = BayView(slot=slot)
        if disk is not None:
            bay.serial = disk.serial
            bay.model = " ".join(p for p in (disk.vendor, disk.model) if p) or None
            bay.size_bytes = disk.size_bytes
            bay.rotational = disk.rotational
            bay.disk_paths = _paths(disk, inventory)
            bay.health = health_brief(health.get(disk.id))
            bay.findings = [f.title for f in index.of(disk.id)]
        bays.append(bay)
    return EnclosureView(
        host=host,
        report_id=report_id,
        maintenance=maintenance,
        figures=_group_figures(reader, enclosure.id, list(disks), disk_figures, slower_than_s),
        io_modules=_io_modules(enclosure, inventory),
        bays=bays,
        layout=bay_layout(enclosure.vendor, enclosure.product, enclosure.bay_count),
        elements=element_briefs(enclosure) if enclosure.elements is not None else None,
        elements_summary=elements_summary(enclosure),
        pools=enclosure_pools(inventory, enclosure.id),
        locate_refusal=service.target.locate_refusal(),
        window_start=start,
        window_end=end,
        slower_than_ms=slower_than_s * 1000,
    )
