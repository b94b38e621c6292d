"""What a rule is: a small documented unit with a stable id, the inputs it needs, its thresholds
and its fix, and a function that judges one host and says what is wrong.

A rule's judge receives a `RuleContext` (the inventory and, where measured, the statistics)
and its `Limits` (thresholds resolved for each entity: per-entity override, then the config
file, then the default) and yields `Hit`s. What several rules derive from the same inputs (each
disk's latency, the daisy chains …) is a derived fact: a plain function of the context that a
rule declares and reads with `context.derived(fact)`, computed once per check. The engine turns
hits into findings, stamps the rule's id on their evidence, skips the rule with a reason when an
input it needs is missing, and never lets one rule's failure stop the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar, cast

from pinchpoint.model.block import BlockKind
from pinchpoint.model.findings import EntityRef, Evidence, Severity
from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import ImportedStats, IntervalFigures, Metric, NetDevInterval

ThresholdValue = float | int | bool | str


class Input(StrEnum):
    """A part of what pinchpoint knows about a host that a rule may need."""

    SAS = "sas"  # the SAS fabric: HBAs, ports, chains, enclosures, disks and paths
    NETWORK = "network"  # NICs and bonds
    FC = "fc"  # Fibre Channel ports and adapters
    MULTIPATH = "multipath"  # dm-multipath maps
    PCIE = "pcie"  # PCIe functions and their links
    BLOCK = "block"  # block devices: queue settings, partitions
    HEALTH = "health"  # SMART
    ZFS = "zfs"  # pools and vdevs
    DISK_STATS = "disk_stats"  # diskstats intervals (iostat figures)
    HISTOGRAMS = "histograms"  # latency histograms (zpool iostat -w, fio …)
    NET_STATS = "net_stats"  # /proc/net/dev intervals
    # latency over time: diskstats intervals, or imported series with a latency metric (PerfMon)
    LATENCY_SERIES = "latency_series"
    PREVIOUS = "previous"  # the inventory of the sweep before (for counters that rise)
    FLEET = "fleet"  # the fleet facts of every host a central service holds (model/fleet.py)
    NVME = "nvme"  # NVMe subsystems, controllers and paths
    ISCSI = "iscsi"  # iSCSI sessions and their LUNs
    # NIC error counters (`Nic.counters`) in this sweep and, when there is one, the one before
    NIC_COUNTERS = "nic_counters"
    # SES element status (PSUs, fans, sensors, I/O modules) of at least one enclosure
    ENCLOSURE_ELEMENTS = "enclosure_elements"
    # where device firmware levels are read: a SAS HBA (its fabric), or SMART data of a disk
    FIRMWARE = "firmware"


@dataclass(frozen=True)
class Threshold:
    """A configurable limit of a rule, with its default and what it means."""

    default: ThresholdValue
    doc: str
    unit: str | None = None


@dataclass
class Hit:
    """What a rule found about one entity; the engine makes it a `Finding`."""

    entity: EntityRef
    title: str
    evidence: list[Evidence]  # the engine stamps the rule's id on each
    severity: Severity | None = None  # None: the rule's severity (from the config or default)
    remediation: str | None = None  # None: the rule's remediation text
    key: str | None = None  # the finding id's part after "@"; None: the entity's id
    # A cause's other entities whose symptoms it explains (the LUNs an over-subscribed SAN
    # path slows): their symptom findings fold into this one, as those on its own entity do.
    explains: tuple[str, ...] = ()


T = TypeVar("T")
# A fact several rules derive from the same inputs, computed once per check: a plain function.
DerivedFact = Callable[["RuleContext"], T]


@dataclass
class RuleContext:
    """Everything a rule may look at for one host (or, on a central service, a fleet of hosts).
    Statistics are empty where not measured."""

    inventory: Inventory
    intervals: list[IntervalFigures] = field(default_factory=list)
    imported: list[ImportedStats] = field(default_factory=list)
    net_intervals: list[NetDevInterval] = field(default_factory=list)
    previous: Inventory | None = None
    slower_than_s: float = 0.220  # the "slow I/O" line of the breakdown (field case 1: 220 ms)
    fleet: FleetFacts | None = None  # on a central service: the fleet facts of its hosts
    _derived: dict[DerivedFact[object], object] = field(default_factory=dict, repr=False)

    def derived(self, fact: DerivedFact[T]) -> T:
        """The derived fact `fact` of this context, computed by the first rule that asks and
        kept for the others: once per check."""
        if fact not in self._derived:
            self._derived[fact] = fact(self)
        return cast(T, self._derived[fact])

    def missing(self, needed: Input) -> str | None:
        """Why `needed` is not available for this host; None when it is."""
        inventory = self.inventory
        present = {
            Input.SAS: bool(inventory.sas.hbas),
            Input.NETWORK: bool(inventory.network.nics),
            Input.FC: bool(inventory.fc.ports),
            Input.MULTIPATH: bool(inventory.multipath.maps),
            Input.PCIE: bool(inventory.pcie.functions),
            Input.BLOCK: bool(inventory.block.devices),
            Input.HEALTH: bool(inventory.health.disks),
            Input.ZFS: bool(inventory.zfs.pools),
            Input.DISK_STATS: any(i.devices for i in self.intervals),
            Input.HISTOGRAMS: any(e.histograms for s in self.imported for e in s.entities),
            Input.NET_STATS: any(i.interfaces for i in self.net_intervals),
            Input.LATENCY_SERIES: self._has_latency_series(),
            Input.PREVIOUS: self.previous is not None,
            Input.FLEET: self.fleet is not None and bool(self.fleet.hosts),
            Input.NVME: bool(inventory.nvme.subsystems),
            Input.ISCSI: bool(inventory.iscsi.sessions),
            Input.NIC_COUNTERS: _has_nic_counters(inventory)
            and (self.previous is None or _has_nic_counters(self.previous)),
            Input.ENCLOSURE_ELEMENTS: any(e.elements is not None for e in inventory.sas.enclosures),
            Input.FIRMWARE: bool(inventory.sas.hbas) or bool(inventory.health.disks),
        }[needed]
        if present:
            return None
        not_collected = [p for p in inventory.problems if p.part == needed.value]
        if not_collected:
            # a collector's reason often says "not collected: why" itself: say it once
            why = not_collected[0].reason.removeprefix("not collected: ")
            return f"{needed.value} not collected: {why}"
        if needed is Input.HEALTH:
            return _no_health_reason(inventory)
        return _ABSENT[needed]

    def _has_latency_series(self) -> bool:
        """Diskstats intervals, or an imported series that carries a latency figure."""
        if any(i.devices for i in self.intervals):
            return True
        return any(
            metric in LATENCY_METRICS
            for imported in self.imported
            for entity in imported.entities
            for point in entity.points
            for metric in point.values
        )


def _no_health_reason(inventory: Inventory) -> str:
    """Why no disk has SMART data when no collector said why: on a host whose block devices
    are all virtual or software ones (a VM's `vda`, `zram0`, device-mapper) there was no disk
    for smartctl to ask, which is not smartctl missing."""
    devices = inventory.block.devices
    if not devices or any(d.kind in (BlockKind.SCSI_DISK, BlockKind.NVME) for d in devices):
        return _ABSENT[Input.HEALTH]
    names = ", ".join(d.name for d in devices[:4]) + (", …" if len(devices) > 4 else "")
    return (
        "no SMART data: no SCSI, SATA, SAS or NVMe disk on this host for smartctl to ask "
        f"(its block devices, {names}, are virtual or software devices)"
    )


def _has_nic_counters(inventory: Inventory) -> bool:
    return any(nic.counters is not None for nic in inventory.network.nics)


# The metrics that make an imported series a latency series.
LATENCY_METRICS = frozenset((Metric.READ_LATENCY_MS, Metric.WRITE_LATENCY_MS, Metric.LATENCY_MS))

_ABSENT = {
    Input.SAS: "no SAS HBA on this host",
    Input.NETWORK: "no network interfaces found",
    Input.FC: "no Fibre Channel ports on this host",
    Input.MULTIPATH: "no dm-multipath maps on this host",
    Input.PCIE: "no PCIe devices found",
    Input.BLOCK: "no block devices found",
    Input.HEALTH: "no SMART data (smartctl not run or not installed)",
    Input.ZFS: "no ZFS pools on this host",
    Input.DISK_STATS: "no diskstats samples (capture --samples N, or a live check)",
    Input.HISTOGRAMS: "no latency histograms (zpool iostat -w, fio json+ or a snapshot with them)",
    Input.NET_STATS: "no /proc/net/dev samples (capture --samples N, or a live check)",
    Input.LATENCY_SERIES: (
        "no latency series (diskstats samples: capture --samples N or a live check; "
        "or an imported series with latencies, e.g. PerfMon CSV)"
    ),
    Input.PREVIOUS: "no earlier sweep of this host to compare with",
    Input.FLEET: (
        "runs on a central service across hosts (GET /v1/fleet/findings), not on one host"
    ),
    Input.NVME: "no NVMe subsystems on this host",
    Input.ISCSI: "no iSCSI sessions on this host",
    Input.NIC_COUNTERS: (
        "no NIC error counters in this sweep or the one before (a snapshot taken before "
        "pinchpoint read /sys/class/net/IF/statistics, carrier_changes and ethtool -S has none)"
    ),
    Input.ENCLOSURE_ELEMENTS: (
        "no SES element status read (no enclosure answered `sg_ses --page=es`, or the snapshot "
        "predates element collection: capture again)"
    ),
    Input.FIRMWARE: (
        "no SAS HBA and no SMART data on this host: no device's firmware level known "
        "(smartctl not run or not installed, or no disks)"
    ),
}


class Limits:
    """A rule's thresholds as they apply to each entity: an override for that entity, else the
    config file's value, else the rule's default."""

    def __init__(
        self,
        thresholds: Mapping[str, Threshold],
        configured: Mapping[str, ThresholdValue],
        per_entity: Mapping[str, Mapping[str, ThresholdValue]],
    ) -> None:
        self._thresholds = thresholds
        self._configured = configured
        self._per_entity = per_entity

    def get(self, name: str, entity_id: str | None = None) -> ThresholdValue:
        """The value of threshold `name` for `entity_id` (or host-wide)."""
        if name not in self._thresholds:
            raise KeyError(f"no threshold {name!r}; known: {', '.join(self._thresholds)}")
        if entity_id is not None and name in self._per_entity.get(entity_id, {}):
            return self._per_entity[entity_id][name]
        return self._configured.get(name, self._thresholds[name].default)

    def number(self, name: str, entity_id: str | None = None) -> float:
        """A numeric threshold as a float."""
        value = self.get(name, entity_id)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"threshold {name!r} is {value!r}, not a number")
        return float(value)


Judge = Callable[[RuleContext, Limits], Iterable[Hit]]


class Role(StrEnum):
    """How a rule's findings correlate with others on the same entity."""

    CAUSE = "cause"  # a cabling or configuration fault: keeps the finding
    SYMPTOM = "symptom"  # what a fault does to latency or load: folded into a cause's finding
    ALONE = "alone"  # neither


@dataclass(frozen=True)
class Rule:
    """One rule of the catalog. `id` is a contract: reports, mutes and history key on it."""

    id: str  # "sas.enclosure.single_path": domain, subject, condition
    title: str  # "Enclosure reached through fewer HBA ports than expected"
    severity: Severity  # the default
    needs: tuple[Input, ...]  # every input must be present, else the rule is skipped
    remediation: str  # the fix, in words a technician acts on
    judge: Judge
    doc: str  # what it finds and why it matters (the catalog's text; Markdown)
    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    role: Role = Role.ALONE
    # Inputs that sharpen the evidence when present but are not required (statistics).
    uses: tuple[Input, ...] = ()
    # The derived facts the judge reads (`context.derived(fact)`); the engine provides them.
    derived: tuple[DerivedFact[object], ...] = ()

    @property
    def category(self) -> str:
        """The id's first part: "sas", "latency", "net" …"""
        return self.id.split(".", 1)[0]
