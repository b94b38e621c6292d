"""Latency rules: groups and disks that stand out among peers, averages above published limits."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import DeviceFigures, EntityStats, Metric, StatPoint, StatsEntityKind
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold

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


# -- latency.threshold ----------------------------------------------------------------------


@dataclass
class MeanLatency:
    """Mean read and write latency of one entity over the measured time, weighted by I/Os."""

    ref: EntityRef
    reads: float = 0.0
    writes: float = 0.0
    read_wait_ms: float = 0.0
    write_wait_ms: float = 0.0
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

    def mean(self, direction: str) -> tuple[float, float] | None:
        """(mean latency ms, IOPS) of reads or writes; None when none were measured."""
        count, wait = (
            (self.reads, self.read_wait_ms)
            if direction == "read"
            else (self.writes, self.write_wait_ms)
        )
        if count <= 0 or self.seconds <= 0:
            return None
        return wait / count, count / self.seconds


def _finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


def judged_devices(inventory: Inventory) -> dict[str, EntityRef]:
    """The kernel devices whose latency an application sees, by kernel name: SAN LUNs by their
    multipath map, else by the LUN's own device. Disks inside JBODs are judged among peers."""
    devices: dict[str, EntityRef] = {}
    for mpath in inventory.multipath.maps:
        if mpath.dm_device:
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
        if not (math.isfinite(seconds) and seconds > 0):
            continue
        for figures in interval.devices:
            ref = devices.get(figures.device)
            if ref is None or figures.reset:
                continue
            values = (figures.r_s, figures.w_s, figures.r_await, figures.w_await)
            found.setdefault(ref.id, MeanLatency(ref)).add(seconds, *values)
    for ref, entity in judged_volumes(context):
        mean = found.setdefault(ref.id, MeanLatency(ref))
        for point in entity.points:
            v = point.values
            seconds = point.interval_s or 1.0
            values = (
                v.get(Metric.READ_IOPS, 0.0),
                v.get(Metric.WRITE_IOPS, 0.0),
                v.get(Metric.READ_LATENCY_MS, 0.0),
                v.get(Metric.WRITE_LATENCY_MS, 0.0),
            )
            if math.isfinite(seconds) and seconds > 0:
                mean.add(seconds, *values)
    return list(found.values())


def latency_above_limits(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs and volumes whose mean read or write latency is above the warning or critical line."""
    for mean in volume_latencies(context):
        ref = mean.ref
        evidence = []
        worst: Severity | None = None
        worst_text = ""
        for direction in ("read", "write"):
            measured = mean.mean(direction)
            if measured is None:
                continue
            latency, iops = measured
            if iops < limits.number("min_iops", ref.id):
                continue
            warning = limits.number(f"{direction}_warning_ms", ref.id)
            critical = limits.number(f"{direction}_critical_ms", ref.id)
            if latency <= warning:
                continue
            severity = Severity.CRITICAL if latency > critical else Severity.WARNING
            line = critical if severity is Severity.CRITICAL else warning
            if worst is None or severity.rank > worst.rank:
                worst = severity
                worst_text = f"{direction}s average {latency:.1f} ms (limit {line:g} ms)"
            evidence.append(
                Evidence(
                    rule="latency.threshold",
                    summary=(
                        f"{ref.name}: {direction}s took {latency:.1f} ms on average at "
                        f"{iops:.1f} IOPS over {mean.seconds:.0f} s; warning above {warning:g} "
                        f"ms, critical above {critical:g} ms"
                    ),
                    facts=[
                        Fact(name=f"mean {direction} latency", value=round(latency, 2), unit="ms"),
                        Fact(name=f"{direction} IOPS", value=round(iops, 2)),
                        Fact(name="warning above", value=warning, unit="ms"),
                        Fact(name="critical above", value=critical, unit="ms"),
                    ],
                )
            )
        if evidence and worst is not None:
            yield Hit(
                entity=ref, title=f"{ref.name}: {worst_text}", evidence=evidence, severity=worst
            )


LATENCY_THRESHOLD = Rule(
    id="latency.threshold",
    title="Average read or write latency above the limits",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC),
    remediation=(
        "Find where the time goes: compare the LUN's or volume's wait with its busy time and "
        "queue (a slow but idle LUN points at the path: see `san.oversubscribed`), check the "
        "HBA queue depth and partition alignment, and spread hot files over more volumes."
    ),
    check=latency_above_limits,
    doc=(
        "Microsoft PAL's disk thresholds: average sec/read or sec/write above 15 ms is a "
        "warning, above 25 ms critical. Field case 2 expects data files at 5–10 ms and log "
        "files at 0–2 ms: set lower limits for a log volume per entity in `pinchpoint.toml` "
        '(`[[rules."latency.threshold".override]]`, `entity = "volume:LogicalDisk(L:)"`). '
        "The rule judges what an application sees: SAN LUNs (their multipath map) from "
        "diskstats, and imported volumes such as PerfMon logical disks, which stand alone "
        "without an inventory. Disks inside JBODs are judged against their peers instead "
        "(`latency.group.outlier`, `latency.disk.outlier`): a pool's disks under a "
        "streaming write queue by design. Idle volumes (below `min_iops`) are not judged. "
        "Without diskstats samples or an imported latency series the rule is skipped."
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
    """One interval of one LUN or volume: its load, mean time per I/O, I/O size and queue."""

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


def _volume_sample(point: StatPoint) -> QueueSample | None:
    """An interval of an imported volume (PerfMon); None without load, latency or queue."""
    v = {m: x for m, x in point.values.items() if math.isfinite(x)}
    seconds = point.interval_s or 1.0
    reads, writes = max(0.0, v.get(Metric.READ_IOPS, 0.0)), max(0.0, v.get(Metric.WRITE_IOPS, 0.0))
    iops = reads + writes
    queue = v.get(Metric.QUEUE, v.get(Metric.CURRENT_QUEUE))
    if iops <= 0 or queue is None or not (math.isfinite(seconds) and seconds > 0):
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


def queue_samples(context: RuleContext) -> dict[str, tuple[EntityRef, list[QueueSample]]]:
    """Every measured interval of the LUNs and volumes `latency.threshold` judges."""
    found: dict[str, tuple[EntityRef, list[QueueSample]]] = {}
    devices = judged_devices(context.inventory)
    for interval in context.intervals if devices else ():
        seconds = interval.interval_s
        if not (math.isfinite(seconds) and seconds > 0):
            continue
        for figures in interval.devices:
            ref = devices.get(figures.device)
            sample = None if ref is None else _device_sample(seconds, figures)
            if ref is not None and sample is not None:
                found.setdefault(ref.id, (ref, []))[1].append(sample)
    for ref, entity in judged_volumes(context):
        samples = [s for p in entity.points if (s := _volume_sample(p)) is not None]
        if samples:
            found.setdefault(ref.id, (ref, []))[1].extend(samples)
    return found


def overwhelmed_disks(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs and volumes that held a queue of one I/O or more while each I/O took longer than
    PAL's limits, for most of the measured time."""
    for ref, samples in queue_samples(context).values():
        busy = [s for s in samples if s.iops >= limits.number("min_iops", ref.id)]
        if not busy:
            continue
        warning = limits.number("warning_ms", ref.id)
        min_queue = limits.number("min_queue", ref.id)
        hit = [s for s in busy if s.queue >= min_queue and s.latency_ms > warning]
        measured_s = sum(s.seconds for s in busy)
        hit_s = sum(s.seconds for s in hit)
        if not hit or hit_s < limits.number("min_time_share", ref.id) * measured_s:
            continue
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
        large_kb = limits.number("large_io_kb", ref.id)
        small = size is not None and size <= large_kb
        critical = limits.number(
            "critical_small_io_ms" if small else "critical_large_io_ms", ref.id
        )
        severity = Severity.CRITICAL if latency > critical else Severity.WARNING
        size_text = (
            f"{size:.0f} KB per I/O" if size is not None else "I/O size unknown (the larger limit)"
        )
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name}: queue {queue:.1f} with {latency:.1f} ms per I/O "
                f"(limit {critical if severity is Severity.CRITICAL else warning:g} ms)"
            ),
            evidence=[
                Evidence(
                    rule="latency.disk.overwhelmed",
                    summary=(
                        f"{ref.name}: in {len(hit)} of {len(busy)} measured intervals "
                        f"({hit_s:.0f} of {measured_s:.0f} s) it held {queue:.1f} I/Os on average "
                        f"(≥ {min_queue:g}) while each took {latency:.1f} ms at {size_text}; "
                        f"PAL: warning above {warning:g} ms, critical above {critical:g} ms "
                        f"for I/Os {'up to' if small else 'above'} {large_kb:g} KB"
                    ),
                    facts=[
                        Fact(name="mean queue", value=round(queue, 2), unit="I/Os"),
                        Fact(name="mean latency", value=round(latency, 2), unit="ms"),
                        Fact(
                            name="mean I/O size",
                            value=None if size is None else round(size, 1),
                            unit="KB",
                        ),
                        Fact(name="IOPS", value=round(ios / hit_s, 1)),
                        Fact(name="overwhelmed time", value=round(hit_s, 1), unit="s"),
                        Fact(name="measured time", value=round(measured_s, 1), unit="s"),
                        Fact(name="warning above", value=warning, unit="ms"),
                        Fact(name="critical above", value=critical, unit="ms"),
                    ],
                )
            ],
            severity=severity,
        )


DISK_OVERWHELMED = Rule(
    id="latency.disk.overwhelmed",
    title="LUN or volume with I/Os queued and each taking longer than the limits",
    category="latency",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC),
    remediation=(
        "The device gets more I/O than it can serve in time: see whether the LUN's disks are "
        "busy (then add spindles or spread the load) or idle (then the path is the pinch "
        "point: FC adapters, HBA queue depth; see `san.oversubscribed`), and move hot files "
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
        "The rule judges the same entities as `latency.threshold` (SAN LUNs from diskstats "
        "`aqu-sz`, `r_await`, `w_await` and request sizes; imported volumes from PerfMon's "
        "`Avg. Disk Queue Length` and `Avg. Disk sec/Read|Write`) interval by interval, and "
        "fires when the overwhelmed intervals make at least `min_time_share` of the measured "
        "time; the severity follows their I/O-weighted mean latency and size."
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
