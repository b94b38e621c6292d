"""Latency rules: groups and disks that stand out among peers, averages above published limits."""

from __future__ import annotations

import math
import posixpath
import re
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk
from pinchpoint.model.stats import DeviceFigures, EntityStats, Metric, StatPoint, StatsEntityKind
from pinchpoint.model.zfs import VdevRole
from pinchpoint.naming import disk_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.stats.attach import EntityIndex, wwid_key

MAD_SCALE = 1.4826  # MAD × this estimates the standard deviation of normal noise


@dataclass(frozen=True)
class Measure:
    """One figure compared among peers: how to read it, its unit, its threshold name."""

    name: str
    unit: str
    read: Callable[[GroupFigures], float | None]
    min_effect: str  # the threshold holding the smallest difference that counts


GROUP_MEASURES = (
    Measure("queue per disk", "I/Os", lambda g: g.queue_per_member, "min_queue_difference"),
    Measure("mean wait", "ms", lambda g: g.await_ms, "min_wait_difference_ms"),
    Measure("p99 latency", "ms", lambda g: g.p99_ms, "min_p99_difference_ms"),
    Measure(
        "share of slow I/Os",
        "%",
        lambda g: None if g.share_slower is None else 100.0 * g.share_slower,
        "min_share_difference_pct",
    ),
)
GROUP_KINDS = {
    GroupLevel.ENCLOSURE: EntityKind.ENCLOSURE,
    GroupLevel.CHAIN: EntityKind.CHAIN,
    GroupLevel.HBA_PORT: EntityKind.HBA_PORT,
    GroupLevel.HBA: EntityKind.HBA,
    GroupLevel.DISK: EntityKind.DISK,
}


@dataclass(frozen=True)
class Standout:
    """A figure of one group against the median of its peers."""

    measure: Measure
    value: float
    median: float
    robust_z: float

    @property
    def ratio(self) -> float:
        return self.value / self.median if self.median > 0 else math.inf


def per_member_iops(group: GroupFigures) -> float:
    return group.iops / group.measured if group.measured else 0.0


def standouts(
    group: GroupFigures,
    peers: Sequence[GroupFigures],
    measures: Sequence[Measure],
    limits: Limits,
) -> list[Standout]:
    """The figures in which `group` stands out above `peers` (itself included): at least
    `min_ratio` × their median, `min_robust_z` median absolute deviations above it, and more
    than the measure's smallest difference that matters."""
    found = []
    for measure in measures:
        values = [v for g in peers if (v := measure.read(g)) is not None and math.isfinite(v)]
        value = measure.read(group)
        if value is None or not math.isfinite(value) or len(values) < 3:
            continue
        median = statistics.median(values)
        spread = MAD_SCALE * statistics.median(abs(v - median) for v in values)
        difference = value - median
        z = difference / spread if spread > 0 else (math.inf if difference > 0 else 0.0)
        if (
            value >= limits.number("min_ratio", group.id) * median
            and difference >= limits.number(measure.min_effect, group.id)
            and z >= limits.number("min_robust_z", group.id)
        ):
            found.append(Standout(measure, value, median, z))
    return found


def _facts(found: Sequence[Standout]) -> list[Fact]:
    facts = []
    for s in found:
        facts.append(Fact(name=s.measure.name, value=round(s.value, 2), unit=s.measure.unit))
        facts.append(
            Fact(
                name=f"peers' median {s.measure.name}",
                value=round(s.median, 2),
                unit=s.measure.unit,
            )
        )
    return facts


def _sentence(found: Sequence[Standout]) -> str:
    return "; ".join(
        f"{s.measure.name} {s.value:.1f} {s.measure.unit} against a median of "
        f"{s.median:.1f} ({s.ratio:.1f}×)"
        for s in found
    )


def _ref(group: GroupFigures) -> EntityRef:
    return EntityRef(kind=GROUP_KINDS[group.level], id=group.id, name=group.name)


# -- latency.group.outlier ------------------------------------------------------------------


def _enclosures_of(level: GroupLevel, group_id: str, inventory: Inventory) -> set[str]:
    """The enclosures a group of `level` holds (itself for an enclosure)."""
    if level is GroupLevel.ENCLOSURE:
        return {group_id}
    found: set[str] = set()
    for chain in inventory.sas.chains:
        if group_id in (chain.id, chain.hba_port_id, chain.hba_id):
            found.update(chain.enclosure_ids)
    return found


def comparable(groups: Sequence[GroupFigures], limits: Limits) -> list[GroupFigures]:
    """Groups with load enough to compare: measured, and at least `min_iops` per disk."""
    return [g for g in groups if g.measured and per_member_iops(g) >= limits.number("min_iops")]


def group_outliers(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures, chains, HBA ports and HBAs whose disks queue or wait more than their peers'.

    The lowest level that stands out is reported; a chain or HBA is left out when it stands
    out only because it holds an enclosure already reported."""
    inventory = context.inventory
    covered: set[str] = set()
    for level in (GroupLevel.ENCLOSURE, GroupLevel.CHAIN, GroupLevel.HBA_PORT, GroupLevel.HBA):
        peers = comparable(context.groups(level), limits)
        if len(peers) < limits.number("min_peers"):
            continue
        load = statistics.median(per_member_iops(g) for g in peers)
        flagged: set[str] = set()
        for group in peers:
            enclosures = _enclosures_of(level, group.id, inventory)
            if enclosures & covered:
                continue
            if per_member_iops(group) > limits.number("max_load_ratio", group.id) * load:
                continue  # more work per disk explains more queue
            found = standouts(group, peers, GROUP_MEASURES, limits)
            if not found:
                continue
            flagged |= enclosures
            yield _group_hit(group, peers, found, load)
        covered |= flagged


def _group_hit(
    group: GroupFigures, peers: Sequence[GroupFigures], found: Sequence[Standout], load: float
) -> Hit:
    ref = _ref(group)
    topology = f" ({group.detail})" if group.detail else ""
    others = [g for g in peers if g.id != group.id]
    facts = [
        *_facts(found),
        Fact(name="IOPS per disk", value=round(per_member_iops(group), 1)),
        Fact(name="peers' median IOPS per disk", value=round(load, 1)),
        Fact(name="disks measured", value=group.measured),
    ]
    if group.detail:
        facts.append(Fact(name="topology", value=group.detail))
    facts += [
        Fact(
            name="peer queue per disk",
            value=round(g.queue_per_member or 0.0, 2),
            unit="I/Os",
            entity=_ref(g),
        )
        for g in others
    ]
    return Hit(
        entity=ref,
        title=f"{ref.name} queues and waits more than its peers",
        evidence=[
            Evidence(
                rule="latency.group.outlier",
                summary=(
                    f"{ref.name}{topology}: {_sentence(found)}, with the same work per disk "
                    f"({per_member_iops(group):.0f} against {load:.0f} IOPS) as its "
                    f"{len(others)} peers"
                ),
                facts=facts,
                peers=[_ref(g) for g in others],
            )
        ],
    )


OUTLIER_THRESHOLDS = {
    "min_ratio": Threshold(1.5, "A figure must be at least this many times the peers' median."),
    "min_robust_z": Threshold(
        3.5, "…and this many scaled median absolute deviations above the median."
    ),
    "min_queue_difference": Threshold(1.0, "Smallest queue difference that counts.", "I/Os"),
    "min_wait_difference_ms": Threshold(5.0, "Smallest mean-wait difference that counts.", "ms"),
    "min_p99_difference_ms": Threshold(20.0, "Smallest p99 difference that counts.", "ms"),
    "min_share_difference_pct": Threshold(
        5.0, "Smallest difference in the share of slow I/Os that counts.", "%"
    ),
    "min_peers": Threshold(3, "Fewest groups (with itself) to compare; fewer: no verdict."),
    "min_iops": Threshold(1.0, "Per-disk IOPS below which a group is idle, not compared."),
    "max_load_ratio": Threshold(
        2.0, "A group doing more than this times the median work per disk is not judged."
    ),
}

GROUP_OUTLIER = Rule(
    id="latency.group.outlier",
    title="Enclosure, chain or HBA whose disks queue or wait more than their peers'",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.DISK_STATS),
    uses=(Input.HISTOGRAMS,),
    remediation=(
        "Find why this group's disks wait longer with the same work: count its SAS paths "
        "(`pinchpoint inventory`), compare its chain depth with the others, check its "
        "phys for downgraded links and errors; recable so that every group has the same "
        "paths and chain depth."
    ),
    check=group_outliers,
    doc=(
        "Field case 1: per disk, the slow I/Os were spread evenly over all 144 disks; grouped "
        "by JBOD, two JBODs stood out with a higher share of slow I/Os and more I/Os queued "
        "per disk although every JBOD got the same work. They had one SAS path instead of "
        "two. The rule compares each enclosure (then chain, HBA port and HBA) with its peers "
        "on queue per disk, mean wait, p99 and the share of I/Os slower than the breakdown's "
        "line, with robust statistics — at least 1.5× the peers' median, 3.5 scaled median "
        "absolute deviations above it, and a minimum difference — so healthy noise never "
        "fires. Groups doing much more work per disk are not judged. The group's topology "
        "(paths present, chain depth) is in the evidence, and a missing path found by "
        "`sas.enclosure.single_path` takes this finding as its proof."
    ),
    thresholds=OUTLIER_THRESHOLDS,
    role=Role.SYMPTOM,
)


# -- latency.disk.outlier -------------------------------------------------------------------

DISK_MEASURES = (
    Measure("mean wait", "ms", lambda g: g.await_ms, "min_wait_difference_ms"),
    Measure("p99 latency", "ms", lambda g: g.p99_ms, "min_p99_difference_ms"),
)


def disk_outliers(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks clearly slower than the other disks of their enclosure."""
    enclosure_of = {d.id: d.enclosure_id for d in context.inventory.sas.disks}
    names = {e.id: e.name for e in context.inventory.sas.enclosures}
    by_enclosure: dict[str, list[GroupFigures]] = {}
    for group in comparable(context.groups(GroupLevel.DISK), limits):
        enclosure = enclosure_of.get(group.id)
        if enclosure is not None:
            by_enclosure.setdefault(enclosure, []).append(group)
    for enclosure, disks in by_enclosure.items():
        if len(disks) < limits.number("min_peers"):
            continue
        for disk in disks:
            found = standouts(disk, disks, DISK_MEASURES, limits)
            if not found:
                continue
            ref = _ref(disk)
            yield Hit(
                entity=ref,
                title=f"{ref.name} is slower than the other disks of {names.get(enclosure)}",
                evidence=[
                    Evidence(
                        rule="latency.disk.outlier",
                        summary=(
                            f"{ref.name}: {_sentence(found)} over the {len(disks)} measured "
                            f"disks of {names.get(enclosure, enclosure)}"
                        ),
                        facts=[*_facts(found), Fact(name="IOPS", value=round(disk.iops, 1))],
                        peers=[_ref(g) for g in disks if g.id != disk.id][:24],
                    )
                ],
            )


DISK_OUTLIER = Rule(
    id="latency.disk.outlier",
    title="Disk clearly slower than its peers in the same enclosure",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.DISK_STATS),
    uses=(Input.HISTOGRAMS, Input.HEALTH),
    remediation=(
        "Check the disk's SMART data (`smartctl -x`: grown defects, pending sectors, error "
        "log) and its paths; a disk that keeps slowing its vdev should be replaced before it "
        "fails (`zpool replace`)."
    ),
    check=disk_outliers,
    doc=(
        "A disk that takes much longer per I/O than the disks beside it, with the same work, "
        "is usually failing (retries, remapped sectors) or on a bad path; in a mirror or "
        "raidz vdev it slows every I/O that needs it. Robust statistics among the disks of "
        "one enclosure (2× the median, 3.5 scaled MADs, a minimum difference) keep healthy "
        "noise out."
    ),
    thresholds={
        **OUTLIER_THRESHOLDS,
        "min_ratio": Threshold(2.0, "A disk's figure must be at least this × the median."),
        "min_wait_difference_ms": Threshold(10.0, "Smallest mean-wait difference.", "ms"),
        "min_p99_difference_ms": Threshold(50.0, "Smallest p99 difference.", "ms"),
        "min_peers": Threshold(4, "Fewest measured disks in the enclosure to compare."),
    },
    role=Role.SYMPTOM,
)


# -- what the absolute limits judge ----------------------------------------------------------


@dataclass
class DeviceLatency:
    """Reads and writes of one device over the measured time: counts, waits summed over the
    I/Os (mean wait × I/Os) and kB, so means weight every I/O alike."""

    reads: float = 0.0
    writes: float = 0.0
    read_wait_ms: float = 0.0
    write_wait_ms: float = 0.0
    read_kb: float = 0.0
    write_kb: float = 0.0
    seconds: float = 0.0

    def add(
        self, seconds: float, read_iops: float, write_iops: float, r_ms: float, w_ms: float
    ) -> None:
        """One interval; a direction whose figures are not numbers is left out."""
        self.seconds += seconds
        if _finite(read_iops, r_ms):
            reads = max(0.0, read_iops) * seconds
            self.reads += reads
            self.read_wait_ms += max(0.0, r_ms) * reads
        if _finite(write_iops, w_ms):
            writes = max(0.0, write_iops) * seconds
            self.writes += writes
            self.write_wait_ms += max(0.0, w_ms) * writes

    def totals(self, direction: str) -> tuple[float, float, float]:
        """(I/Os, their summed wait in ms, their kB) of "read" or "write"."""
        if direction == "read":
            return self.reads, self.read_wait_ms, self.read_kb
        return self.writes, self.write_wait_ms, self.write_kb

    def mean(self, direction: str) -> tuple[float, float] | None:
        """(mean latency ms, IOPS) of reads or writes; None when none were measured."""
        count, wait, _ = self.totals(direction)
        if count <= 0 or self.seconds <= 0:
            return None
        return wait / count, count / self.seconds


@dataclass
class MeanLatency(DeviceLatency):
    """A LUN's or volume's reads and writes, with the name findings give it."""

    ref: EntityRef = field(kw_only=True)


def _finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


def _usable(seconds: float) -> bool:
    return math.isfinite(seconds) and seconds > 0


def disk_latencies(context: RuleContext, disks: Sequence[Disk]) -> dict[str, DeviceLatency]:
    """Each disk's reads and writes over the measured intervals, by disk id: the figures of
    the kernel devices of all its paths summed (I/O sent down either path is the disk's);
    a direction whose figures are not numbers is left out of that interval.

    Sums in plain lists and builds one `DeviceLatency` per disk at the end: on a 1,920-path
    host a method call per path and interval cost more than the arithmetic."""
    owner = {p.block_device: d.id for d in disks for p in d.paths if p.block_device}
    sums: dict[str, list[float]] = {}  # seconds, reads, writes, waits, kB
    isfinite = math.isfinite
    for interval in context.intervals if owner else ():
        seconds = interval.interval_s
        if not _usable(seconds):
            continue
        counted: set[str] = set()
        for f in interval.devices:
            disk_id = owner.get(f.device)
            if disk_id is None or f.reset:
                continue
            mine = sums.get(disk_id)
            if mine is None:
                mine = sums[disk_id] = [0.0] * 7
            if disk_id not in counted:
                mine[0] += seconds
                counted.add(disk_id)
            # `x > 0` is False for NaN and for a negative figure (counted as none)
            r_s, r_await, rkb_s = f.r_s, f.r_await, f.rkb_s
            if r_s > 0 and isfinite(r_s) and isfinite(r_await):
                reads = r_s * seconds
                mine[1] += reads
                if r_await > 0:
                    mine[3] += r_await * reads
                if rkb_s > 0 and isfinite(rkb_s):
                    mine[5] += rkb_s * seconds
            w_s, w_await, wkb_s = f.w_s, f.w_await, f.wkb_s
            if w_s > 0 and isfinite(w_s) and isfinite(w_await):
                writes = w_s * seconds
                mine[2] += writes
                if w_await > 0:
                    mine[4] += w_await * writes
                if wkb_s > 0 and isfinite(wkb_s):
                    mine[6] += wkb_s * seconds
    return {
        disk_id: DeviceLatency(
            reads=reads,
            writes=writes,
            read_wait_ms=read_wait,
            write_wait_ms=write_wait,
            read_kb=read_kb,
            write_kb=write_kb,
            seconds=seconds,
        )
        for disk_id, (seconds, reads, writes, read_wait, write_wait, read_kb, write_kb) in (
            sums.items()
        )
    }


_PARTITION = re.compile(r"^(?P<disk>(?:sd|vd|xvd|hd)[a-z]+)\d+$")
_BY_ID_PARTITION = re.compile(r"-part\d+$")


class DiskNames:
    """The names statistics and `zpool status` use for the SAS disks — kernel names of their
    paths and partitions, ZFS leaf paths — to disk ids: the few look-ups these rules need,
    without building the statistics' full `EntityIndex` (a 1,920-path host pays for that)."""

    def __init__(self, inventory: Inventory) -> None:
        self.by_kernel = {
            p.block_device: d.id for d in inventory.sas.disks for p in d.paths if p.block_device
        }
        self.by_wwid = {wwid_key(d.wwid): d.id for d in inventory.sas.disks if d.wwid}
        self.leaves: dict[str, str] = {}  # a ZFS leaf's path or name -> its kernel name
        for pool in inventory.zfs.pools:
            for leaf in pool.leaves():
                if leaf.block_device:
                    self.leaves[leaf.name] = leaf.block_device
                    if leaf.device_path:
                        self.leaves[leaf.device_path] = leaf.block_device

    def disk_id(self, name: str) -> str | None:
        """The disk a kernel name (`sdb`, `sdb1`, `/dev/sdb1`), a ZFS leaf name or a by-id
        name carrying its WWN (`wwn-0x5000cca2…`, with or without `-part1`) is about."""
        kernel = self.leaves.get(name) or posixpath.basename(name)
        found = self.by_kernel.get(kernel)
        if found is None:
            partition = _PARTITION.match(kernel)
            if partition is not None:
                found = self.by_kernel.get(partition["disk"])
        if found is None:
            found = self.by_wwid.get(wwid_key(_BY_ID_PARTITION.sub("", kernel)))
        return found


# The sections of a pool whose devices ZFS writes at transaction group syncs (a spare in use
# is listed under its data vdev; an available one gets no I/O; log devices take sync writes).
WRITE_BACK_ROLES = frozenset({VdevRole.DATA, VdevRole.SPECIAL, VdevRole.DEDUP, VdevRole.CACHE})


def all_disk_latencies(context: RuleContext) -> dict[str, DeviceLatency]:
    """`disk_latencies` of every SAS disk, computed once per check for all the rules."""
    return context.shared(
        "disk_latencies", lambda: disk_latencies(context, context.inventory.sas.disks)
    )


def pool_write_back(context: RuleContext) -> frozenset[str]:
    """`write_back_entities` of the host, computed once per check for all the rules."""
    return context.shared("write_back", lambda: write_back_entities(context.inventory))


def write_back_entities(inventory: Inventory) -> frozenset[str]:
    """The disks and LUNs (by entity id) whose writes are a ZFS pool's write-back: the leaves
    of its data, special and dedup vdevs and its cache devices. ZFS gathers writes in memory
    and issues them in bursts at each transaction group sync, filling each disk's queue on
    purpose; no application waits for them (a synchronous write waits for the intent log,
    which is why the leaves of a log vdev are not in the set, nor idle spares). SAS disks are
    found by name; anything else (a LUN) through the statistics' index."""
    if not inventory.zfs.pools:
        return frozenset()
    names = DiskNames(inventory)
    index: EntityIndex | None = None
    found: set[str] = set()
    for pool in inventory.zfs.pools:
        for vdev in pool.vdevs:
            if vdev.role not in WRITE_BACK_ROLES:
                continue
            for leaf in vdev.leaves():
                name = leaf.device_path or leaf.block_device or leaf.name
                disk_id = names.disk_id(leaf.block_device or name)
                if disk_id is not None:
                    found.add(disk_id)
                    continue
                index = index or EntityIndex(inventory)
                attached = index.attach(name)
                if attached is not None:
                    found.add(attached.entity_id)
    return frozenset(found)


def judged_directions(entity_id: str, write_back: frozenset[str]) -> tuple[str, ...]:
    """Reads and writes, or only reads where the writes are a ZFS pool's write-back."""
    return ("read",) if entity_id in write_back else ("read", "write")


def judged_devices(inventory: Inventory) -> dict[str, EntityRef]:
    """The SAN LUNs by kernel name: each by its multipath map, else by the LUN's own device.
    A map over a SAS disk of the fabric is left out: that disk is judged as a disk, through
    its paths."""
    devices: dict[str, EntityRef] = {}
    sas_wwids = {wwid_key(d.wwid) for d in inventory.sas.disks if d.wwid}
    for mpath in inventory.multipath.maps:
        if mpath.dm_device and wwid_key(mpath.wwid) not in sas_wwids:
            name = f"{mpath.name or mpath.wwid} ({mpath.dm_device})"
            devices[mpath.dm_device] = EntityRef(kind=EntityKind.LUN, id=mpath.id, name=name)
    mapped = {p.device for m in inventory.multipath.maps for p in m.paths if p.device}
    for port in inventory.fc.ports:
        for lun in port.luns:
            if lun.block_device and lun.block_device not in mapped:
                name = f"LUN {lun.lun} {lun.block_device} via {port.scsi_host}"
                devices[lun.block_device] = EntityRef(kind=EntityKind.LUN, id=lun.id, name=name)
    return devices


def judged_volumes(context: RuleContext) -> Iterator[tuple[EntityRef, EntityStats]]:
    """Imported volumes (PerfMon logical and physical disks), which stand alone without an
    inventory; the `_Total` sums are left out."""
    for imported in context.imported:
        for entity in imported.entities:
            if entity.kind is not StatsEntityKind.VOLUME or entity.name.endswith("(_Total)"):
                continue
            ref = EntityRef(kind=EntityKind.VOLUME, id=f"volume:{entity.name}", name=entity.name)
            yield ref, entity


def volume_latencies(context: RuleContext) -> list[MeanLatency]:
    """Mean latencies of SAN LUNs from diskstats and of imported volumes (PerfMon)."""
    found: dict[str, MeanLatency] = {}
    devices = judged_devices(context.inventory)
    for interval in context.intervals if devices else ():
        seconds = interval.interval_s
        if not _usable(seconds):
            continue
        for figures in interval.devices:
            ref = devices.get(figures.device)
            if ref is None or figures.reset:
                continue
            values = (figures.r_s, figures.w_s, figures.r_await, figures.w_await)
            found.setdefault(ref.id, MeanLatency(ref=ref)).add(seconds, *values)
    for ref, entity in judged_volumes(context):
        mean = found.setdefault(ref.id, MeanLatency(ref=ref))
        for point in entity.points:
            v = point.values
            seconds = point.interval_s or 1.0
            values = (
                v.get(Metric.READ_IOPS, 0.0),
                v.get(Metric.WRITE_IOPS, 0.0),
                v.get(Metric.READ_LATENCY_MS, 0.0),
                v.get(Metric.WRITE_LATENCY_MS, 0.0),
            )
            if _usable(seconds):
                mean.add(seconds, *values)
    return list(found.values())


@dataclass(frozen=True)
class DiskGroup:
    """Disks reported together: an enclosure's (named by it), or one disk outside any."""

    ref: EntityRef
    disks: list[Disk]


def disk_groups(inventory: Inventory, disk_ids: Iterable[str]) -> list[DiskGroup]:
    """The disks of `disk_ids` by enclosure, in the inventory's order."""
    wanted = set(disk_ids)
    enclosures = {e.id: e for e in inventory.sas.enclosures}
    groups: dict[str, DiskGroup] = {}
    for disk in inventory.sas.disks:
        if disk.id not in wanted:
            continue
        enclosure = enclosures.get(disk.enclosure_id or "")
        if enclosure is not None:
            key = enclosure.id
            ref = EntityRef(kind=EntityKind.ENCLOSURE, id=enclosure.id, name=enclosure.name)
        else:
            key, ref = disk.id, disk_ref(disk, inventory)
        groups.setdefault(key, DiskGroup(ref, [])).disks.append(disk)
    return list(groups.values())


# -- latency.threshold ----------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One direction of one entity above its warning line."""

    direction: str
    latency_ms: float
    iops: float
    severity: Severity
    warning_ms: float
    critical_ms: float

    @property
    def line_ms(self) -> float:
        return self.critical_ms if self.severity is Severity.CRITICAL else self.warning_ms


def verdicts(
    mean: DeviceLatency, limits: Limits, limits_id: str, directions: Sequence[str]
) -> list[Verdict]:
    """The directions of `mean` whose average latency is above the warning line."""
    found = []
    for direction in directions:
        measured = mean.mean(direction)
        if measured is None:
            continue
        latency, iops = measured
        if iops < limits.number("min_iops", limits_id):
            continue
        warning = limits.number(f"{direction}_warning_ms", limits_id)
        critical = limits.number(f"{direction}_critical_ms", limits_id)
        if latency <= warning:
            continue
        severity = Severity.CRITICAL if latency > critical else Severity.WARNING
        found.append(Verdict(direction, latency, iops, severity, warning, critical))
    return found


def _worst(found: Sequence[Verdict]) -> Verdict:
    return max(found, key=lambda v: (v.severity.rank, v.latency_ms))


def _volume_hit(mean: MeanLatency, found: Sequence[Verdict]) -> Hit:
    """A LUN's or volume's reads and writes above the limits."""
    ref = mean.ref
    evidence = [
        Evidence(
            rule="latency.threshold",
            summary=(
                f"{ref.name}: {v.direction}s took {v.latency_ms:.1f} ms on average at "
                f"{v.iops:.1f} IOPS over {mean.seconds:.0f} s; warning above "
                f"{v.warning_ms:g} ms, critical above {v.critical_ms:g} ms"
            ),
            facts=[
                Fact(name=f"mean {v.direction} latency", value=round(v.latency_ms, 2), unit="ms"),
                Fact(name=f"{v.direction} IOPS", value=round(v.iops, 2)),
                Fact(name="warning above", value=v.warning_ms, unit="ms"),
                Fact(name="critical above", value=v.critical_ms, unit="ms"),
            ],
        )
        for v in found
    ]
    worst = _worst(found)
    title = (
        f"{ref.name}: {worst.direction}s average {worst.latency_ms:.1f} ms "
        f"(limit {worst.line_ms:g} ms)"
    )
    return Hit(entity=ref, title=title, evidence=evidence, severity=worst.severity)


def _disks_hit(
    group: DiskGroup,
    measured: int,
    found: dict[str, list[tuple[Disk, Verdict]]],
    write_back: bool,
    inventory: Inventory,
) -> Hit:
    """An enclosure's disks (or one disk) whose reads or writes are above the limits."""
    ref = group.ref
    evidence = []
    everything: list[Verdict] = []
    for direction, hits in found.items():
        ios = sum(v.iops for _, v in hits)
        latency = sum(v.latency_ms * v.iops for _, v in hits) / ios if ios > 0 else 0.0
        disk, slowest = max(hits, key=lambda h: h[1].latency_ms)
        worst = _worst([v for _, v in hits])
        everything.append(worst)
        slowest_ref = disk_ref(disk, inventory)
        note = (
            "; its writes are the ZFS pool's write-back, not judged"
            if write_back and direction == "read"
            else ""
        )
        evidence.append(
            Evidence(
                rule="latency.threshold",
                summary=(
                    f"{ref.name}: {direction}s of {len(hits)} of {measured} measured disks "
                    f"took {latency:.1f} ms on average at {ios / len(hits):.1f} IOPS per disk "
                    f"(slowest {slowest_ref.name}: {slowest.latency_ms:.1f} ms); warning above "
                    f"{worst.warning_ms:g} ms, critical above {worst.critical_ms:g} ms{note}"
                ),
                facts=[
                    Fact(name=f"mean {direction} latency", value=round(latency, 2), unit="ms"),
                    Fact(name=f"{direction} IOPS per disk", value=round(ios / len(hits), 2)),
                    Fact(name="disks above the limit", value=len(hits)),
                    Fact(name="disks measured", value=measured),
                    Fact(
                        name=f"slowest disk's mean {direction} latency",
                        value=round(slowest.latency_ms, 2),
                        unit="ms",
                        entity=slowest_ref,
                    ),
                    Fact(name="warning above", value=worst.warning_ms, unit="ms"),
                    Fact(name="critical above", value=worst.critical_ms, unit="ms"),
                ],
                peers=[disk_ref(d, inventory) for d, _ in hits][:24],
            )
        )
    worst = _worst(everything)
    hits = found[worst.direction]
    ios = sum(v.iops for _, v in hits)
    latency = sum(v.latency_ms * v.iops for _, v in hits) / ios if ios > 0 else 0.0
    title = (
        f"{ref.name}: {worst.direction}s of {len(hits)} disks average {latency:.1f} ms "
        f"(limit {worst.line_ms:g} ms)"
    )
    return Hit(entity=ref, title=title, evidence=evidence, severity=worst.severity)


def latency_above_limits(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs, volumes and disks whose mean read or write latency is above the warning or
    critical line (a pool's write-back writes are not judged); disks reported by enclosure."""
    inventory = context.inventory
    write_back = pool_write_back(context)
    for mean in volume_latencies(context):
        directions = judged_directions(mean.ref.id, write_back)
        found = verdicts(mean, limits, mean.ref.id, directions)
        if found:
            yield _volume_hit(mean, found)
    loads = all_disk_latencies(context)
    for group in disk_groups(inventory, loads):
        by_direction: dict[str, list[tuple[Disk, Verdict]]] = {}
        for disk in group.disks:
            directions = judged_directions(disk.id, write_back)
            for verdict in verdicts(loads[disk.id], limits, group.ref.id, directions):
                by_direction.setdefault(verdict.direction, []).append((disk, verdict))
        if by_direction:
            pool_disks = all(d.id in write_back for d in group.disks)
            yield _disks_hit(group, len(group.disks), by_direction, pool_disks, inventory)


LATENCY_THRESHOLD = Rule(
    id="latency.threshold",
    title="Average read or write latency above the limits",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC, Input.SAS, Input.ZFS),
    remediation=(
        "Find where the time goes: compare the device's wait with its busy time and queue (a "
        "slow but idle LUN points at the path: see `san.oversubscribed`; a disk holding many "
        "I/Os at once: see `queue.hdd.too_deep`), check the HBA queue depth and partition "
        "alignment, and spread hot files over more volumes."
    ),
    check=latency_above_limits,
    doc=(
        "Microsoft PAL's disk thresholds: average sec/read or sec/write above 15 ms is a "
        "warning, above 25 ms critical. Field case 2 expects data files at 5–10 ms and log "
        "files at 0–2 ms: set lower limits for a log volume per entity in `pinchpoint.toml` "
        '(`[[rules."latency.threshold".override]]`, `entity = "volume:LogicalDisk(L:)"`). '
        "The rule judges every device with a latency series: SAN LUNs (their multipath map) "
        "and SAS disks (their paths summed) from diskstats, and imported volumes such as "
        "PerfMon logical disks, which stand alone without an inventory. Disks are reported "
        "by enclosure — one finding per JBOD naming how many of its disks are above the "
        "line and the slowest — so the finding joins a cause found on that JBOD (a missing "
        "path, a queue too deep); a disk outside any enclosure is reported alone, and an "
        "override for a JBOD's disks names the enclosure.\n\n"
        "The writes of a ZFS pool's data, special, dedup and cache devices are its "
        "write-back: gathered in memory and issued in bursts at each transaction group sync "
        "with the disks' queues filled on purpose, so their time on the disk is not what an "
        "application waits for (a synchronous write waits for the intent log; log devices "
        "are judged in full). Those devices are judged on their reads; their writes are "
        "compared among peers instead (`latency.group.outlier`, `latency.disk.outlier`). "
        "Idle devices (below `min_iops`) are not judged. Without diskstats samples or an "
        "imported latency series the rule is skipped."
    ),
    thresholds={
        "read_warning_ms": Threshold(15.0, "Mean read latency above which to warn.", "ms"),
        "read_critical_ms": Threshold(25.0, "Mean read latency above which it is critical.", "ms"),
        "write_warning_ms": Threshold(15.0, "Mean write latency above which to warn.", "ms"),
        "write_critical_ms": Threshold(
            25.0, "Mean write latency above which it is critical.", "ms"
        ),
        "min_iops": Threshold(1.0, "Reads or writes per second below which not to judge."),
    },
    role=Role.SYMPTOM,
)

# -- latency.disk.overwhelmed --------------------------------------------------------------


@dataclass(frozen=True)
class QueueSample:
    """One interval of one LUN, volume or disk: its load, mean time per I/O, I/O size and
    queue."""

    seconds: float
    iops: float
    latency_ms: float
    io_kb: float | None  # None: the source gave no sizes
    queue: float


def _device_sample(seconds: float, figures: DeviceFigures) -> QueueSample | None:
    """An interval of diskstats figures; None when a figure is not a number."""
    iops = figures.r_s + figures.w_s
    values = (iops, figures.r_await, figures.w_await, figures.rkb_s, figures.wkb_s)
    if figures.reset or not _finite(*values, figures.aqu_sz) or iops <= 0:
        return None
    latency = (figures.r_s * figures.r_await + figures.w_s * figures.w_await) / iops
    size = (figures.rkb_s + figures.wkb_s) / iops
    return QueueSample(seconds, iops, latency, size, figures.aqu_sz)


def _disk_sample(
    seconds: float, paths: Sequence[DeviceFigures], reads_only: bool
) -> QueueSample | None:
    """An interval of a disk: its paths' figures summed (the queue is the disk's whole
    queue); with `reads_only`, the load, latency and size of its reads alone."""
    r_s = w_s = read_ms = write_ms = rkb = wkb = queue = 0.0
    for f in paths:
        values = (f.r_s, f.w_s, f.r_await, f.w_await, f.rkb_s, f.wkb_s, f.aqu_sz)
        if f.reset or not _finite(*values):
            return None
        r_s, w_s = r_s + f.r_s, w_s + f.w_s
        read_ms, write_ms = read_ms + f.r_s * f.r_await, write_ms + f.w_s * f.w_await
        rkb, wkb, queue = rkb + f.rkb_s, wkb + f.wkb_s, queue + f.aqu_sz
    if reads_only:
        w_s = write_ms = wkb = 0.0
    iops = r_s + w_s
    if iops <= 0:
        return None
    return QueueSample(seconds, iops, (read_ms + write_ms) / iops, (rkb + wkb) / iops, queue)


def _volume_sample(point: StatPoint) -> QueueSample | None:
    """An interval of an imported volume (PerfMon); None without load, latency or queue."""
    v = {m: x for m, x in point.values.items() if math.isfinite(x)}
    seconds = point.interval_s or 1.0
    reads, writes = max(0.0, v.get(Metric.READ_IOPS, 0.0)), max(0.0, v.get(Metric.WRITE_IOPS, 0.0))
    iops = reads + writes
    queue = v.get(Metric.QUEUE, v.get(Metric.CURRENT_QUEUE))
    if iops <= 0 or queue is None or not _usable(seconds):
        return None
    if Metric.READ_LATENCY_MS in v or Metric.WRITE_LATENCY_MS in v:
        waited = reads * v.get(Metric.READ_LATENCY_MS, 0.0)
        latency = (waited + writes * v.get(Metric.WRITE_LATENCY_MS, 0.0)) / iops
    elif Metric.LATENCY_MS in v:
        latency = v[Metric.LATENCY_MS]
    else:
        return None
    size: float | None = None
    if Metric.READ_KBPS in v or Metric.WRITE_KBPS in v:
        size = (v.get(Metric.READ_KBPS, 0.0) + v.get(Metric.WRITE_KBPS, 0.0)) / iops
    elif Metric.READ_SIZE_KB in v or Metric.WRITE_SIZE_KB in v:
        sized = reads * v.get(Metric.READ_SIZE_KB, 0.0) + writes * v.get(Metric.WRITE_SIZE_KB, 0.0)
        size = sized / iops
    return QueueSample(seconds, iops, max(0.0, latency), size, max(0.0, queue))


def queue_samples(
    context: RuleContext, write_back: frozenset[str] = frozenset()
) -> dict[str, tuple[EntityRef, list[QueueSample]]]:
    """Every measured interval of the LUNs and volumes `latency.threshold` judges (a LUN
    holding a ZFS pool's write-back: its reads alone)."""
    found: dict[str, tuple[EntityRef, list[QueueSample]]] = {}
    devices = judged_devices(context.inventory)
    for interval in context.intervals if devices else ():
        seconds = interval.interval_s
        if not _usable(seconds):
            continue
        for figures in interval.devices:
            ref = devices.get(figures.device)
            if ref is None:
                continue
            if ref.id in write_back:
                sample = _disk_sample(seconds, [figures], reads_only=True)
            else:
                sample = _device_sample(seconds, figures)
            if sample is not None:
                found.setdefault(ref.id, (ref, []))[1].append(sample)
    for ref, entity in judged_volumes(context):
        samples = [s for p in entity.points if (s := _volume_sample(p)) is not None]
        if samples:
            found.setdefault(ref.id, (ref, []))[1].extend(samples)
    return found


def disk_queue_samples(
    context: RuleContext, write_back: frozenset[str]
) -> dict[str, list[QueueSample]]:
    """Every measured interval of each SAS disk, by disk id: its paths' figures summed (the
    queue is the disk's whole queue); a disk holding a pool's write-back, its reads alone.
    An interval with a figure that is not a number is left out for that disk.

    Sums in plain lists, as `disk_latencies` does (a 1,920-path host)."""
    owner = {
        p.block_device: d.id for d in context.inventory.sas.disks for p in d.paths if p.block_device
    }
    found: dict[str, list[QueueSample]] = {}
    isfinite = math.isfinite
    for interval in context.intervals if owner else ():
        seconds = interval.interval_s
        if not _usable(seconds):
            continue
        sums: dict[str, list[float]] = {}  # r/s, w/s, r and w ms × I/Os, r and w kB/s, queue
        broken: set[str] = set()
        for f in interval.devices:
            disk_id = owner.get(f.device)
            if disk_id is None:
                continue
            values = (f.r_s, f.w_s, f.r_await, f.w_await, f.rkb_s, f.wkb_s, f.aqu_sz)
            if f.reset or not all(map(isfinite, values)):
                broken.add(disk_id)
                continue
            mine = sums.get(disk_id)
            if mine is None:
                mine = sums[disk_id] = [0.0] * 7
            mine[0] += f.r_s
            mine[1] += f.w_s
            mine[2] += f.r_s * f.r_await
            mine[3] += f.w_s * f.w_await
            mine[4] += f.rkb_s
            mine[5] += f.wkb_s
            mine[6] += f.aqu_sz
        for disk_id, (r_s, w_s, read_ms, write_ms, rkb, wkb, queue) in sums.items():
            if disk_id in broken:
                continue
            if disk_id in write_back:
                w_s = write_ms = wkb = 0.0
            iops = r_s + w_s
            if iops > 0:
                sample = QueueSample(
                    seconds, iops, (read_ms + write_ms) / iops, (rkb + wkb) / iops, queue
                )
                found.setdefault(disk_id, []).append(sample)
    return found


@dataclass(frozen=True)
class Overwhelmed:
    """The intervals in which one device held a queue while each I/O took too long."""

    busy: int  # intervals with load
    hit: int  # of them, overwhelmed
    measured_s: float
    hit_s: float
    queue: float
    latency_ms: float
    io_kb: float | None
    iops: float
    severity: Severity
    warning_ms: float
    critical_ms: float
    large_kb: float

    @property
    def small(self) -> bool:
        return self.io_kb is not None and self.io_kb <= self.large_kb


def overwhelmed(
    samples: Sequence[QueueSample], limits: Limits, limits_id: str
) -> Overwhelmed | None:
    """How a device's intervals judge against PAL's "disk overwhelmed"; None when it was not
    overwhelmed for at least `min_time_share` of its measured time."""
    busy = [s for s in samples if s.iops >= limits.number("min_iops", limits_id)]
    if not busy:
        return None
    warning = limits.number("warning_ms", limits_id)
    min_queue = limits.number("min_queue", limits_id)
    hit = [s for s in busy if s.queue >= min_queue and s.latency_ms > warning]
    measured_s = sum(s.seconds for s in busy)
    hit_s = sum(s.seconds for s in hit)
    if not hit or hit_s < limits.number("min_time_share", limits_id) * measured_s:
        return None
    ios = sum(s.iops * s.seconds for s in hit)
    latency = sum(s.latency_ms * s.iops * s.seconds for s in hit) / ios
    queue = sum(s.queue * s.seconds for s in hit) / hit_s
    sized = [s for s in hit if s.io_kb is not None]
    size = (
        sum((s.io_kb or 0.0) * s.iops * s.seconds for s in sized)
        / sum(s.iops * s.seconds for s in sized)
        if sized
        else None
    )
    large_kb = limits.number("large_io_kb", limits_id)
    small = size is not None and size <= large_kb
    critical = limits.number("critical_small_io_ms" if small else "critical_large_io_ms", limits_id)
    severity = Severity.CRITICAL if latency > critical else Severity.WARNING
    return Overwhelmed(
        len(busy),
        len(hit),
        measured_s,
        hit_s,
        queue,
        latency,
        size,
        ios / hit_s,
        severity,
        warning,
        critical,
        large_kb,
    )


def _overwhelmed_facts(o: Overwhelmed) -> list[Fact]:
    return [
        Fact(name="mean queue", value=round(o.queue, 2), unit="I/Os"),
        Fact(name="mean latency", value=round(o.latency_ms, 2), unit="ms"),
        Fact(name="mean I/O size", value=None if o.io_kb is None else round(o.io_kb, 1), unit="KB"),
        Fact(name="IOPS", value=round(o.iops, 1)),
        Fact(name="overwhelmed time", value=round(o.hit_s, 1), unit="s"),
        Fact(name="measured time", value=round(o.measured_s, 1), unit="s"),
        Fact(name="warning above", value=o.warning_ms, unit="ms"),
        Fact(name="critical above", value=o.critical_ms, unit="ms"),
    ]


def _limit_words(o: Overwhelmed) -> str:
    return (
        f"PAL: warning above {o.warning_ms:g} ms, critical above {o.critical_ms:g} ms "
        f"for I/Os {'up to' if o.small else 'above'} {o.large_kb:g} KB"
    )


def _line(o: Overwhelmed) -> float:
    return o.critical_ms if o.severity is Severity.CRITICAL else o.warning_ms


def overwhelmed_disks(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs, volumes and disks that held a queue of one I/O or more while each I/O took
    longer than PAL's limits, for most of the measured time; disks reported by enclosure."""
    inventory = context.inventory
    write_back = pool_write_back(context)
    min_queue = limits.number("min_queue")
    for ref, samples in queue_samples(context, write_back).values():
        o = overwhelmed(samples, limits, ref.id)
        if o is None:
            continue
        size_text = (
            f"{o.io_kb:.0f} KB per I/O"
            if o.io_kb is not None
            else "I/O size unknown (the larger limit)"
        )
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name}: queue {o.queue:.1f} with {o.latency_ms:.1f} ms per I/O "
                f"(limit {_line(o):g} ms)"
            ),
            evidence=[
                Evidence(
                    rule="latency.disk.overwhelmed",
                    summary=(
                        f"{ref.name}: in {o.hit} of {o.busy} measured intervals "
                        f"({o.hit_s:.0f} of {o.measured_s:.0f} s) it held {o.queue:.1f} I/Os on "
                        f"average (≥ {min_queue:g}) while each took {o.latency_ms:.1f} ms at "
                        f"{size_text}; {_limit_words(o)}"
                    ),
                    facts=_overwhelmed_facts(o),
                )
            ],
            severity=o.severity,
        )
    samples_of = disk_queue_samples(context, write_back)
    for group in disk_groups(inventory, samples_of):
        found = [
            (disk, o)
            for disk in group.disks
            if (o := overwhelmed(samples_of[disk.id], limits, group.ref.id)) is not None
        ]
        if not found:
            continue
        yield _overwhelmed_disks_hit(group, found, write_back, inventory)


def _overwhelmed_disks_hit(
    group: DiskGroup,
    found: list[tuple[Disk, Overwhelmed]],
    write_back: frozenset[str],
    inventory: Inventory,
) -> Hit:
    """An enclosure's overwhelmed disks (or one disk) as one hit: the I/O-weighted means of
    those disks, the worst disk named."""
    ref = group.ref
    weight = sum(o.iops * o.hit_s for _, o in found)
    latency = sum(o.latency_ms * o.iops * o.hit_s for _, o in found) / weight
    queue = sum(o.queue for _, o in found) / len(found)
    disk, worst = max(found, key=lambda f: (f[1].severity.rank, f[1].latency_ms))
    worst_ref = disk_ref(disk, inventory)
    what = "read" if all(d.id in write_back for d, _ in found) else "I/O"
    facts = [
        Fact(name="disks overwhelmed", value=len(found)),
        Fact(name="disks measured", value=len(group.disks)),
        Fact(name="mean queue per disk", value=round(queue, 2), unit="I/Os"),
        Fact(name=f"mean latency per {what}", value=round(latency, 2), unit="ms"),
        Fact(
            name="worst disk's mean latency",
            value=round(worst.latency_ms, 2),
            unit="ms",
            entity=worst_ref,
        ),
        Fact(
            name="worst disk's mean I/O size",
            value=None if worst.io_kb is None else round(worst.io_kb, 1),
            unit="KB",
        ),
        Fact(name="warning above", value=worst.warning_ms, unit="ms"),
        Fact(name="critical above", value=worst.critical_ms, unit="ms"),
    ]
    return Hit(
        entity=ref,
        title=(
            f"{ref.name}: {len(found)} disks hold {queue:.1f} I/Os with {latency:.1f} ms per "
            f"{what} (limit {_line(worst):g} ms)"
        ),
        evidence=[
            Evidence(
                rule="latency.disk.overwhelmed",
                summary=(
                    f"{ref.name}: {len(found)} of {len(group.disks)} measured disks held "
                    f"{queue:.1f} I/Os on average while each {what} took {latency:.1f} ms, for "
                    f"most of the measured time (worst {worst_ref.name}: "
                    f"{worst.latency_ms:.1f} ms); {_limit_words(worst)}"
                ),
                facts=facts,
                peers=[disk_ref(d, inventory) for d, _ in found][:24],
            )
        ],
        severity=worst.severity,
    )


DISK_OVERWHELMED = Rule(
    id="latency.disk.overwhelmed",
    title="LUN, volume or disk with I/Os queued and each taking longer than the limits",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC, Input.SAS, Input.ZFS),
    remediation=(
        "The device gets more I/O than it can serve in time: see whether the LUN's disks are "
        "busy (then add spindles or spread the load) or idle (then the path is the pinch "
        "point: FC adapters, HBA queue depth; see `san.oversubscribed`); for a disk, see "
        "whether it may hold too many I/Os at once (`queue.hdd.too_deep`); move hot files "
        "to other volumes."
    ),
    check=overwhelmed_disks,
    doc=(
        "Microsoft PAL's *disk overwhelmed* analysis: a disk is overwhelmed when I/Os queue "
        "(queue length ≥ 1) and each still takes long — above 15 ms is a warning; above 25 ms "
        "for I/Os of 64 KB or less, above 35 ms for larger ones (a large transfer takes longer "
        "by itself) is critical. A long wait without a queue is a slow device; a queue "
        "without a long wait is a busy but healthy one: both together mean the device, or "
        "the path to it, cannot keep up (field case 2: seconds per I/O on three SAN LUNs). "
        "The rule judges the same devices as `latency.threshold` — SAN LUNs and SAS disks "
        "(their paths summed) from diskstats `aqu-sz`, `r_await`, `w_await` and request "
        "sizes; imported volumes from PerfMon's `Avg. Disk Queue Length` and "
        "`Avg. Disk sec/Read|Write` — interval by interval, and fires when the overwhelmed "
        "intervals make at least `min_time_share` of the measured time; the severity follows "
        "their I/O-weighted mean latency and size. Disks are reported by enclosure, as in "
        "`latency.threshold`. A device holding a ZFS pool's write-back is judged on its "
        "reads (their time against the whole queue, write-back included): the write-back "
        "fills the queue by design."
    ),
    thresholds={
        "min_queue": Threshold(1.0, "Mean queue from which a device counts as queuing.", "I/Os"),
        "warning_ms": Threshold(15.0, "Mean time per I/O above which to warn.", "ms"),
        "critical_small_io_ms": Threshold(
            25.0, "Critical above this for I/Os up to `large_io_kb`.", "ms"
        ),
        "critical_large_io_ms": Threshold(
            35.0, "Critical above this for larger I/Os (or of unknown size).", "ms"
        ),
        "large_io_kb": Threshold(64.0, "I/O size above which the larger limit applies.", "KB"),
        "min_time_share": Threshold(
            0.5, "Share of the measured time the device must be overwhelmed (0.0–1.0)."
        ),
        "min_iops": Threshold(1.0, "I/Os per second below which an interval is not judged."),
    },
    role=Role.SYMPTOM,
)

RULES: tuple[Rule, ...] = (GROUP_OUTLIER, DISK_OUTLIER, LATENCY_THRESHOLD, DISK_OVERWHELMED)
