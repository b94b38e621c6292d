"""Statistics summed along the hierarchy: disk → enclosure → chain → HBA port → HBA,
LUN → FC port → FC adapter, and NIC → bond (network traffic, `pinchpoint.stats.links`).

Each kernel device's figures are first turned back into totals over the measured time (I/Os,
kB, milliseconds of waiting, I/O-seconds of queue), so that any number of intervals and any
number of devices add up exactly. A group then sums the totals of its devices:

- a disk is the sum of its paths (a dual-pathed disk shows as two sdX), or its dm multipath
  map where it has one; a partition is never added (the disk's own line already counts it);
- an enclosure sums its disks; a chain, an HBA port and an HBA sum the paths that run through
  them, so a dual-pathed disk counts half its I/O on each side, as the cables carry it;
- a LUN is its multipath map (else the sum of its paths); an FC port and an FC adapter sum the
  paths through them.

Per group: IOPS and MB/s summed, the queue (aqu-sz: I/Os active plus waiting) summed then
divided by the members measured, the mean wait over all I/Os, and — where latency histograms
were imported (`zpool iostat -w`, fio) — the members' histograms merged: its 99th percentile
and its share of I/Os slower than the threshold, exact to a bucket. Where only means are known
the breakdown says so rather than guessing a share.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from operator import add
from typing import Any

from pydantic import BaseModel

from pinchpoint.model.block import BlockDevice
from pinchpoint.model.breakdown import (
    Breakdown,
    GroupFigures,
    GroupLevel,
    LevelBreakdown,
    SlowerBasis,
)
from pinchpoint.model.histogram import LatencyHistogram, merged
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import (
    DeviceFigures,
    EntityStats,
    HistogramKind,
    ImportedStats,
    ImportKind,
    IntervalFigures,
    Metric,
    NetDevInterval,
    StatPoint,
    StatsEntityKind,
)
from pinchpoint.naming import (
    block_disk_name,
    chain_name,
    controller_name,
    controller_port_name,
    disk_name,
    fc_lun_name,
    fc_port_name,
    hba_port_name,
    multipath_lun_name,
)
from pinchpoint.performance import gc_paused
from pinchpoint.plurals import plural
from pinchpoint.stats.attach import AttachedKind, Attachment, DeviceRole, EntityIndex, wwid_key
from pinchpoint.stats.block_disks import other_disks
from pinchpoint.stats.links import LINK_LEVELS, network_breakdown
from pinchpoint.units import KIB_PER_MB

DEFAULT_SLOWER_THAN_S = 0.220  # the threshold of field case 1
ALL_LEVELS = (
    GroupLevel.DISK,
    GroupLevel.ENCLOSURE,
    GroupLevel.CHAIN,
    GroupLevel.HBA_PORT,
    GroupLevel.HBA,
    GroupLevel.LUN,
    GroupLevel.FC_PORT,
    GroupLevel.FC_ADAPTER,
    GroupLevel.CONTROLLER_PORT,
    GroupLevel.CONTROLLER,
)
# Which imported histograms make a group's latency, best first: the whole time an I/O took
# (ZFS: queue plus disk), else a tool's read/write latency, else the time on the disk only.
HISTOGRAM_FAMILIES = (
    (HistogramKind.TOTAL_WAIT_READ, HistogramKind.TOTAL_WAIT_WRITE),
    (HistogramKind.READ, HistogramKind.WRITE),
    (HistogramKind.DISK_WAIT_READ, HistogramKind.DISK_WAIT_WRITE),
)
# What the kernel recorder's whole time in the block layer is kept as (docs/ebpf.md).
RECORDED_FAMILY = (HistogramKind.READ, HistogramKind.WRITE)
_INTERIOR_VDEV_PREFIXES = ("mirror", "raidz", "draid", "spare", "replacing", "indirect", "root")


class DeviceLoad(BaseModel):
    """One device's totals over the time it was measured; rates are totals ÷ seconds."""

    seconds: float = 0.0
    reads: float = 0.0
    writes: float = 0.0
    read_kb: float = 0.0
    write_kb: float = 0.0
    read_wait_ms: float = 0.0  # summed over the reads: mean r_await × reads
    write_wait_ms: float = 0.0
    queue_s: float = 0.0  # aqu-sz integrated over time (I/O-seconds)
    busy_s: float = 0.0  # time with I/O in flight

    def add_point(self, point: StatPoint, interval_s: float) -> None:
        """Add one imported point (iostat, PerfMon, fio): its metrics over `interval_s`."""
        values = {m: v for m, v in point.values.items() if math.isfinite(v) and v >= 0.0}
        reads = values.get(Metric.READ_IOPS, 0.0) * interval_s
        writes = values.get(Metric.WRITE_IOPS, 0.0) * interval_s
        either = values.get(Metric.LATENCY_MS)
        self.seconds += interval_s
        self.reads += reads
        self.writes += writes
        self.read_kb += values.get(Metric.READ_KBPS, 0.0) * interval_s
        self.write_kb += values.get(Metric.WRITE_KBPS, 0.0) * interval_s
        self.read_wait_ms += values.get(Metric.READ_LATENCY_MS, either or 0.0) * reads
        self.write_wait_ms += values.get(Metric.WRITE_LATENCY_MS, either or 0.0) * writes
        self.queue_s += values.get(Metric.QUEUE, 0.0) * interval_s
        if Metric.UTIL_PCT in values:
            self.busy_s += min(100.0, values[Metric.UTIL_PCT]) / 100.0 * interval_s
        elif Metric.IDLE_PCT in values:
            self.busy_s += max(0.0, 100.0 - values[Metric.IDLE_PCT]) / 100.0 * interval_s

    def rate(self, total: float) -> float:
        return total / self.seconds if self.seconds > 0 else 0.0


LOAD_FIELDS = tuple(DeviceLoad.model_fields)


def figure_totals(figures: DeviceFigures, interval_s: float) -> tuple[float, ...]:
    """One interval's `iostat -x` figures as totals, in the order of `LOAD_FIELDS`; negative
    figures count as zero."""
    reads = max(0.0, figures.r_s) * interval_s
    writes = max(0.0, figures.w_s) * interval_s
    return (
        interval_s,
        reads,
        writes,
        max(0.0, figures.rkb_s) * interval_s,
        max(0.0, figures.wkb_s) * interval_s,
        max(0.0, figures.r_await) * reads,
        max(0.0, figures.w_await) * writes,
        max(0.0, figures.aqu_sz) * interval_s,
        min(100.0, max(0.0, figures.util)) / 100.0 * interval_s,
    )


def device_loads(intervals: Sequence[IntervalFigures], notes: list[str]) -> dict[str, DeviceLoad]:
    """Every device's totals over all usable intervals; unusable ones are noted and left out.

    Sums in plain tuples and makes one `DeviceLoad` per device at the end (setting a pydantic
    model's fields per interval cost more than the arithmetic)."""
    totals: dict[str, tuple[float, ...]] = {}
    resets: dict[str, int] = {}
    for number, interval in enumerate(intervals):
        notes.extend(f"interval {number}: {problem}" for problem in interval.problems)
        if not (math.isfinite(interval.interval_s) and interval.interval_s > 0):
            notes.append(
                f"interval {number} left out: its length is {interval.interval_s} s "
                "(samples taken at the same moment, or out of order)"
            )
            continue
        for figures in interval.devices:
            if figures.reset:
                resets[figures.device] = resets.get(figures.device, 0) + 1
                continue
            this = figure_totals(figures, interval.interval_s)
            before = totals.get(figures.device)
            totals[figures.device] = this if before is None else tuple(map(add, before, this))
    for device, count in sorted(resets.items()):
        noun = "interval" if count == 1 else "intervals"
        notes.append(f"{device}: counters went backwards (device reset); {count} {noun} left out")
    return {
        device: DeviceLoad(**dict(zip(LOAD_FIELDS, sums, strict=True)))
        for device, sums in totals.items()
    }


def _is_interior(entity: EntityStats) -> bool:
    """A pool or a mirror/raidz line of `zpool iostat`, or PerfMon's `_Total` instance: sums
    of other entities, not a device."""
    if entity.kind is StatsEntityKind.POOL or "_Total" in entity.name:
        return True
    return entity.kind is StatsEntityKind.VDEV and entity.name.startswith(_INTERIOR_VDEV_PREFIXES)


def imported_loads(entity: EntityStats, notes: list[str]) -> DeviceLoad | None:
    """An imported entity's points as totals; points without a length are noted, left out."""
    load = DeviceLoad()
    without_length = 0
    for point in entity.points:
        if point.interval_s is None or not point.interval_s > 0:
            without_length += 1
            continue
        load.add_point(point, point.interval_s)
    if without_length:
        noun = "point" if without_length == 1 else "points"
        notes.append(f"{entity.name}: {without_length} {noun} without an interval length left out")
    return load if load.seconds > 0 else None


def histogram_family(imports: Sequence[ImportedStats]) -> tuple[HistogramKind, ...]:
    """The best family of histogram kinds that any imported entity carries (none: empty).
    Per-I/O latency recorded in the kernel comes first: every disk's own requests, timed in
    the block layer, where ZFS's histograms add its own queues and cover only pool disks.
    An empty histogram (a write-only load's reads) is no kind carried: it would name the
    columns after reads there were none of."""
    present = {k for i in imports for e in i.entities for k, h in e.histograms.items() if h.count}
    recorded = {
        kind
        for i in imports
        if i.kind is ImportKind.EBPF
        for e in i.entities
        for kind, histogram in e.histograms.items()
        if histogram.count
    }
    families: tuple[tuple[HistogramKind, ...], ...] = HISTOGRAM_FAMILIES
    if recorded.intersection(RECORDED_FAMILY):
        present = recorded
        families = (RECORDED_FAMILY, *HISTOGRAM_FAMILIES)
    for family in families:
        if present.intersection(family):
            return tuple(k for k in family if k in present)
    return ()


class _Measured:
    """The devices and histograms of one host, joined to its inventory."""

    def __init__(self, inventory: Inventory) -> None:
        self.index = EntityIndex(inventory)
        self.devices: list[tuple[Attachment, DeviceLoad]] = []
        self.devices_of: dict[str, list[tuple[Attachment, DeviceLoad]]] = {}  # by entity id
        self.histograms: dict[str, LatencyHistogram] = {}
        # by entity id, each kind apart; None unless the breakdown keeps kinds apart
        self.kinds: dict[str, dict[HistogramKind, LatencyHistogram]] | None = None
        self.standalone: list[GroupFigures] = []
        self.unmatched: list[str] = []
        self._attached: dict[str, Attachment | None] = {}

    def attach(self, name: str) -> Attachment | None:
        """`EntityIndex.attach`, once per name (an entity brings several histograms)."""
        if name in self._attached:
            return self._attached[name]
        found = self._attached[name] = self.index.attach(name)
        return found

    def add_load(self, name: str, load: DeviceLoad) -> bool:
        """Attach one device's totals; False when the name matches nothing."""
        found = self.attach(name)
        if found is None:
            self.unmatched.append(name)
            return False
        if found.role is not DeviceRole.PARTITION:
            self.devices.append((found, load))
            self.devices_of.setdefault(found.entity_id, []).append((found, load))
        return True

    def add_histogram(
        self, name: str, histogram: LatencyHistogram, kind: HistogramKind | None = None
    ) -> bool:
        found = self.attach(name)
        if found is None:
            self.unmatched.append(name)
            return False
        mine = self.histograms.get(found.entity_id)
        if mine is None:
            mine = self.histograms[found.entity_id] = LatencyHistogram()
        mine.merge_from(histogram)
        if self.kinds is not None and kind is not None:
            # kept as given (never changed: a second one of the kind makes a new merge)
            own = self.kinds.setdefault(found.entity_id, {})
            before = own.get(kind)
            own[kind] = histogram if before is None else merged((before, histogram))
        return True

    def entity_devices(self, entity_id: str) -> list[tuple[Attachment, DeviceLoad]]:
        """What makes an entity's load: its whole device where measured, else its paths."""
        mine = self.devices_of.get(entity_id, [])
        whole = [(a, load) for a, load in mine if a.role is DeviceRole.WHOLE]
        return whole or list(mine)


def _group(
    level: GroupLevel,
    group_id: str,
    name: str,
    detail: str | None,
    member_ids: list[str],
    devices: Iterable[tuple[Attachment, DeviceLoad]],
    histograms: dict[str, LatencyHistogram],
    slower_than_s: float,
    kinds: dict[str, dict[HistogramKind, LatencyHistogram]] | None = None,
) -> GroupFigures:
    """One group's figures from the devices that carry its load and its members' histograms
    (and, given `kinds`, the members' histograms merged kind by kind).

    Sums in plain locals and builds the model once: setting a pydantic field per device costs
    more than the arithmetic."""
    measured: set[str] = set()
    read_iops = write_iops = read_mb_s = write_mb_s = 0.0
    queue = 0.0
    ios = 0.0
    waited_ms = 0.0
    utils: list[float] = []
    for attachment, load in devices:
        if load.seconds <= 0:
            continue
        measured.add(attachment.entity_id)
        read_iops += load.rate(load.reads)
        write_iops += load.rate(load.writes)
        read_mb_s += load.rate(load.read_kb) / KIB_PER_MB
        write_mb_s += load.rate(load.write_kb) / KIB_PER_MB
        queue += load.rate(load.queue_s)
        ios += load.reads + load.writes
        waited_ms += load.read_wait_ms + load.write_wait_ms
        utils.append(100.0 * load.rate(load.busy_s))
    found: dict[str, Any] = {}  # the figures there are, for the one construction below
    if measured:
        found["queue_per_member"] = queue / len(measured)
        found["util_pct"] = sum(utils) / len(utils)
        found["slower_basis"] = SlowerBasis.MEANS_ONLY
    if ios > 0:
        found["await_ms"] = waited_ms / ios
    together = merged(histograms[m] for m in member_ids if m in histograms)
    if not together.empty:
        p99 = together.percentile_s(99.0)
        found["histogram"] = together
        found["p99_ms"] = None if p99 is None else p99 * 1000
        found["share_slower"] = together.share_above(slower_than_s)
        found["slower_basis"] = SlowerBasis.HISTOGRAMS
        if kinds is not None:  # `merged` per kind: its fast path, not a merge_from per member
            own = [kinds[m] for m in member_ids if m in kinds]
            by_kind = {
                kind: merged(h[kind] for h in own if kind in h)
                for kind in {kind for h in own for kind in h}
            }
            found["histograms"] = {k: h for k, h in by_kind.items() if not h.empty}
    return GroupFigures(
        level=level,
        id=group_id,
        name=name,
        detail=detail,
        members=len(member_ids),
        measured=len(measured),
        member_ids=member_ids,
        read_iops=read_iops,
        write_iops=write_iops,
        read_mb_s=read_mb_s,
        write_mb_s=write_mb_s,
        **found,
    )


def _compare_with_peers(groups: list[GroupFigures]) -> None:
    """Each group's queue per member against the median of its level's groups."""
    queues = [g.queue_per_member for g in groups if g.queue_per_member is not None]
    if len(queues) < 2:
        return
    median = statistics.median(queues)
    if median <= 0:
        return
    for group in groups:
        if group.queue_per_member is not None:
            group.queue_vs_peers = group.queue_per_member / median


class _Levels:
    """Builds the groups of each level from one host's measured devices."""

    def __init__(self, inventory: Inventory, measured: _Measured, slower_than_s: float) -> None:
        self.inventory = inventory
        self.measured = measured
        self.slower_than_s = slower_than_s
        self.enclosure_by_id = {e.id: e for e in inventory.sas.enclosures}
        self._routes: dict[str, dict[str | None, list[tuple[Attachment, DeviceLoad]]]] = {}
        self._disks_through: dict[str, dict[str | None, list[str]]] = {}
        self._other_disks: list[BlockDevice] | None = None

    @property
    def other_disks(self) -> list[BlockDevice]:
        """The disks outside the SAS fabric and the SAN (`other_disks`), found once."""
        if self._other_disks is None:
            self._other_disks = other_disks(self.inventory)
        return self._other_disks

    def group(
        self,
        level: GroupLevel,
        group_id: str,
        name: str,
        detail: str | None,
        member_ids: list[str],
        devices: Iterable[tuple[Attachment, DeviceLoad]],
    ) -> GroupFigures:
        return _group(
            level,
            group_id,
            name,
            detail,
            member_ids,
            devices,
            self.measured.histograms,
            self.slower_than_s,
            self.measured.kinds,
        )

    def by_entities(self, member_ids: list[str]) -> list[tuple[Attachment, DeviceLoad]]:
        return [d for member in member_ids for d in self.measured.entity_devices(member)]

    def routed(self, key: str, value: str) -> list[tuple[Attachment, DeviceLoad]]:
        """The measured devices whose route (`hba_port_id`, `hba_id`, `fc_port_id`) is `value`;
        a whole dm map over several paths has no route and is left to its paths. The devices
        are indexed by `key` once, not scanned per group."""
        routes = self._routes.get(key)
        if routes is None:
            routes = self._routes[key] = {}
            for attachment, load in self.measured.devices:
                routes.setdefault(getattr(attachment, key), []).append((attachment, load))
        return list(routes.get(value, []))

    def disks_through(self, key: str, value: str) -> list[str]:
        """The SAS disks with a path whose `key` (`hba_port_id`, `hba_id`) is `value`, in
        inventory order; the disks are indexed by `key` once, not scanned per group."""
        through = self._disks_through.get(key)
        if through is None:
            through = self._disks_through[key] = {}
            for disk in self.inventory.sas.disks:
                for route in dict.fromkeys(getattr(p, key) for p in disk.paths):
                    through.setdefault(route, []).append(disk.id)
        return list(through.get(value, []))

    def disks(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.DISK)
        for disk in self.inventory.sas.disks:
            devices = self.measured.entity_devices(disk.id)
            names = "+".join(sorted(a.name for a, _ in devices)) or "no figures"
            noun = "path" if disk.hba_ports == 1 else "paths"
            level.groups.append(
                self.group(
                    GroupLevel.DISK,
                    disk.id,
                    disk_name(disk, self.enclosure_by_id.get(disk.enclosure_id or "")),
                    f"{disk.hba_ports} {noun} ({names})",
                    [disk.id],
                    devices,
                )
            )
        for device in self.other_disks:
            devices = self.measured.entity_devices(device.id)
            kind = device.controller.kind.value if device.controller else device.kind.value
            spins = "?" if device.rotational is None else "HDD" if device.rotational else "SSD"
            level.groups.append(
                self.group(
                    GroupLevel.DISK,
                    device.id,
                    block_disk_name(device),
                    f"{kind}, {spins} ({device.name})",
                    [device.id],
                    devices,
                )
            )
        if not level.groups:
            level.note = "no SAS disks in the inventory"
        return level

    def _controller_groups(self, level: GroupLevel) -> LevelBreakdown:
        """Disks outside the SAS fabric grouped by controller, or by port of one."""
        found = LevelBreakdown(level=level)
        members: dict[str, tuple[str, str, list[str]]] = {}
        for device in self.other_disks:
            c = device.controller
            if c is None:
                continue
            if level is GroupLevel.CONTROLLER:
                key, name = c.id, controller_name(c)
            else:
                key, name = c.port_id, controller_port_name(c)
            detail = c.driver or c.kind.value
            members.setdefault(key, (name, detail, []))[2].append(device.id)
        for key, (name, detail, ids) in members.items():
            noun = "disk" if len(ids) == 1 else "disks"
            found.groups.append(
                self.group(
                    level, key, name, f"{detail}, {len(ids)} {noun}", ids, self.by_entities(ids)
                )
            )
        if not found.groups:
            found.note = "no disks on controllers outside the SAS fabric"
        return found

    def controllers(self) -> LevelBreakdown:
        return self._controller_groups(GroupLevel.CONTROLLER)

    def controller_ports(self) -> LevelBreakdown:
        return self._controller_groups(GroupLevel.CONTROLLER_PORT)

    def enclosures(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.ENCLOSURE)
        chains = self.inventory.sas.chains
        for enclosure in self.inventory.sas.enclosures:
            members = [d.id for d in self.inventory.sas.disks if d.enclosure_id == enclosure.id]
            depths = sorted({c.enclosure_count for c in chains if enclosure.id in c.enclosure_ids})
            chain_text = "/".join(str(d) for d in depths) or "?"
            noun = "path" if enclosure.hba_ports == 1 else "paths"
            detail = (
                f"{enclosure.hba_ports} {noun} of {enclosure.hba_ports_expected}, "
                f"chain of {chain_text}"
            )
            level.groups.append(
                self.group(
                    GroupLevel.ENCLOSURE,
                    enclosure.id,
                    enclosure.name,
                    detail,
                    members,
                    self.by_entities(members),
                )
            )
        if not level.groups:
            level.note = "no enclosures in the inventory"
        return level

    def chains(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.CHAIN)
        for chain in self.inventory.sas.chains:
            level.groups.append(
                self.group(
                    GroupLevel.CHAIN,
                    chain.id,
                    chain_name(chain, self.inventory),
                    f"{plural(chain.enclosure_count, 'enclosure')}, depth {chain.depth}",
                    self.disks_through("hba_port_id", chain.hba_port_id),
                    self.routed("hba_port_id", chain.hba_port_id),
                )
            )
        if not level.groups:
            level.note = "no SAS chains in the inventory"
        return level

    def hba_ports(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.HBA_PORT)
        for hba in self.inventory.sas.hbas:
            for port in hba.ports:
                level.groups.append(
                    self.group(
                        GroupLevel.HBA_PORT,
                        port.id,
                        hba_port_name(hba, port),
                        f"x{port.width}, {plural(port.phys_up, 'phy')} up",
                        self.disks_through("hba_port_id", port.id),
                        self.routed("hba_port_id", port.id),
                    )
                )
        if not level.groups:
            level.note = "no SAS HBA ports in the inventory"
        return level

    def hbas(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.HBA)
        for hba in self.inventory.sas.hbas:
            members = self.disks_through("hba_id", hba.id)
            level.groups.append(
                self.group(
                    GroupLevel.HBA,
                    hba.id,
                    hba.label,
                    f"{hba.driver or 'driver ?'}, {plural(len(hba.ports), 'port')}",
                    members,
                    self.routed("hba_id", hba.id),
                )
            )
        if not level.groups:
            level.note = "no SAS HBAs in the inventory"
        return level

    def _luns(self) -> dict[str, tuple[str, str, set[str]]]:
        """LUN id → (name, detail, FC ports its paths use), for every LUN the index knows."""
        luns: dict[str, tuple[str, str, set[str]]] = {}
        for found in self.inventory.multipath.maps:
            same = self.measured.index.by_wwid.get(wwid_key(found.wwid))
            if same is not None and same.kind is not AttachedKind.LUN:
                continue  # a map over a SAS disk of the fabric: shown as that disk
            detail = f"{found.path_count} paths, {found.vendor or ''} {found.product or ''}"
            luns[found.id] = (multipath_lun_name(found), detail.strip(" ,"), set())
        paths = {lun.id: (lun, port) for port in self.inventory.fc.ports for lun in port.luns}
        for attachment in self.measured.index.by_device.values():
            if attachment.kind is not AttachedKind.LUN:
                continue
            path = paths.get(attachment.entity_id)
            name = fc_lun_name(*path) if path is not None else attachment.name
            _, _, ports = luns.setdefault(
                attachment.entity_id, (name, "1 path (no multipath map)", set())
            )
            if attachment.fc_port_id:
                ports.add(attachment.fc_port_id)
        return luns

    def luns(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.LUN)
        for lun_id, (name, detail, _) in self._luns().items():
            level.groups.append(
                self.group(
                    GroupLevel.LUN, lun_id, name, detail, [lun_id], self.by_entities([lun_id])
                )
            )
        if not level.groups:
            level.note = "no LUNs (multipath maps or FC LUNs) in the inventory"
        return level

    def fc_ports(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.FC_PORT)
        luns = self._luns()
        for port in self.inventory.fc.ports:
            members = sorted(lun for lun, (_, _, ports) in luns.items() if port.id in ports)
            speed = port.speed_text or "speed ?"
            level.groups.append(
                self.group(
                    GroupLevel.FC_PORT,
                    port.id,
                    fc_port_name(port),
                    f"{speed}, {port.port_state or 'state ?'}",
                    members,
                    self.routed("fc_port_id", port.id),
                )
            )
        if not level.groups:
            level.note = "no FC ports in the inventory"
        return level

    def fc_adapters(self) -> LevelBreakdown:
        level = LevelBreakdown(level=GroupLevel.FC_ADAPTER)
        luns = self._luns()
        for adapter in self.inventory.fc.adapters:
            ports = set(adapter.port_ids)
            members = sorted(lun for lun, (_, _, used) in luns.items() if used & ports)
            devices = [(a, load) for a, load in self.measured.devices if a.fc_port_id in ports]
            level.groups.append(
                self.group(
                    GroupLevel.FC_ADAPTER,
                    adapter.id,
                    f"{adapter.pci_address} {adapter.model or ''}".strip(),
                    f"{adapter.driver or 'driver ?'}, {plural(len(adapter.port_ids), 'port')}",
                    members,
                    devices,
                )
            )
        if not level.groups:
            level.note = "no FC adapters in the inventory"
        return level

    def build(self, level: GroupLevel) -> LevelBreakdown:
        builders = {
            GroupLevel.DISK: self.disks,
            GroupLevel.ENCLOSURE: self.enclosures,
            GroupLevel.CHAIN: self.chains,
            GroupLevel.HBA_PORT: self.hba_ports,
            GroupLevel.HBA: self.hbas,
            GroupLevel.LUN: self.luns,
            GroupLevel.FC_PORT: self.fc_ports,
            GroupLevel.FC_ADAPTER: self.fc_adapters,
            GroupLevel.CONTROLLER: self.controllers,
            GroupLevel.CONTROLLER_PORT: self.controller_ports,
        }
        if level is GroupLevel.STANDALONE:
            return LevelBreakdown(level=level, groups=list(self.measured.standalone))
        built = builders[level]()
        _compare_with_peers(built.groups)
        return built


def _standalone(
    name: str,
    load: DeviceLoad | None,
    histograms: dict[HistogramKind, LatencyHistogram],
    family: tuple[HistogramKind, ...],
    slower_than_s: float,
) -> GroupFigures:
    """An entity matched to no topology, as its tool named it (a Windows volume `H:`)."""
    devices = [] if load is None else [(_standalone_attachment(name), load)]
    own = {name: LatencyHistogram()}
    for kind, histogram in histograms.items():
        if kind in family:
            own[name].merge_from(histogram)
    return _group(GroupLevel.STANDALONE, name, name, None, [name], devices, own, slower_than_s)


def _standalone_attachment(name: str) -> Attachment:
    return Attachment(
        name=name,
        kind=AttachedKind.BLOCK_DEVICE,
        entity_id=name,
        role=DeviceRole.WHOLE,
        via="matched to no inventory entity",
    )


@gc_paused()
def breakdown(
    inventory: Inventory,
    levels: Sequence[GroupLevel] = ALL_LEVELS,
    intervals: Sequence[IntervalFigures] = (),
    imports: Sequence[ImportedStats] = (),
    slower_than_s: float = DEFAULT_SLOWER_THAN_S,
    net_intervals: Sequence[NetDevInterval] = (),
    by_kind: bool = False,
) -> Breakdown:
    """The host's statistics grouped at each of `levels`: diskstats intervals (all of them,
    I/O counts summed) and imported series and histograms, attached to `inventory`; the NIC
    and bond levels from the `/proc/net/dev` intervals `net_intervals`. `by_kind`: each group
    also keeps its histograms kind by kind (read apart from write), as a heat map labels them."""
    result = Breakdown(slower_than_ms=slower_than_s * 1000)
    result.network = network_breakdown(inventory.network, levels, net_intervals, result.notes)
    levels = [level for level in levels if level not in LINK_LEVELS]
    measured = _Measured(inventory)
    if by_kind:
        measured.kinds = {}
    loads = device_loads(intervals, result.notes)
    result.intervals = sum(1 for i in intervals if i.interval_s > 0 and math.isfinite(i.interval_s))
    result.measured_s = sum(i.interval_s for i in intervals if i.interval_s > 0)
    standalone_loads: dict[str, DeviceLoad] = {}
    for name, device_load in loads.items():
        if not measured.add_load(name, device_load) and device_load.reads + device_load.writes > 0:
            standalone_loads[name] = device_load
    family = histogram_family(imports)
    result.histogram_kinds = list(family)
    for imported in imports:
        for problem in imported.problems:
            result.notes.append(f"{imported.source_name}: {problem}")
        skipped = imported.skipped.summary()
        if skipped:
            result.notes.append(f"{imported.source_name}: {skipped}")
        for entity in imported.entities:
            if _is_interior(entity):
                continue
            load = imported_loads(entity, result.notes)
            if load is not None and entity.name in loads:
                result.notes.append(
                    f"{imported.source_name}: {entity.name} also has diskstats figures; "
                    "its imported figures are left out"
                )
                load = None
            chosen = [(kind, h) for kind, h in entity.histograms.items() if kind in family]
            attached = True
            if load is not None:
                attached = measured.add_load(entity.name, load)
            for kind, histogram in chosen:
                attached = measured.add_histogram(entity.name, histogram, kind) and attached
            if not attached and (load is not None or chosen):
                measured.standalone.append(
                    _standalone(entity.name, load, entity.histograms, family, slower_than_s)
                )
    for name, device_load in standalone_loads.items():
        measured.standalone.append(_standalone(name, device_load, {}, family, slower_than_s))
    result.unmatched = sorted(set(measured.unmatched))
    builder = _Levels(inventory, measured, slower_than_s)
    result.levels = [builder.build(level) for level in levels]
    result.standalone = measured.standalone
    if family and result.intervals:
        result.notes.append(
            "latency histograms and diskstats figures may cover different times "
            "(zpool iostat -w without an interval counts since the pool was imported)"
        )
    return result
