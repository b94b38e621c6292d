"""`latency.disk.overwhelmed`: a LUN, volume or disk holding a queue while each I/O takes longer
than the limits, for most of the measured time (Microsoft PAL's "disk overwhelmed")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.naming import stacked_device_ref
from pinchpoint.plurals import agree, plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.block_disks import controller_disks, stacked, stacked_latencies
from pinchpoint.rules.derived.luns import san_luns
from pinchpoint.rules.derived.write_back import pool_write_back
from pinchpoint.rules.latency.judged import DiskGroup, JudgedDisk, disk_groups, judged_volumes
from pinchpoint.rules.latency.stacked import explain, explanation_evidence, stacked_remediation
from pinchpoint.stats.queue_samples import (
    QueueSample,
    device_queue_samples,
    disk_queue_samples,
    series_samples,
)
from pinchpoint.stats.write_back import judged_directions
from pinchpoint.units import BYTES_PER_KIB, capacity_text, latency_ms_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs, volumes and disks that held a queue of one I/O or more while each I/O took
    longer than PAL's limits, for most of the measured time; disks reported by enclosure."""
    inventory = context.inventory
    write_back = context.derived(pool_write_back)
    min_queue = limits.number("min_queue")
    for ref, samples in _lun_and_volume_samples(context, write_back):
        o = overwhelmed(samples, limits, ref.id)
        if o is not None:
            yield _device_hit(ref, o, min_queue)
    samples_of = disk_queue_samples(inventory.sas.disks, context.intervals, write_back)
    others = context.derived(controller_disks)
    own = {d.name: d.id for d in others}
    samples_of |= device_queue_samples(own, context.intervals, write_back)
    rotational = {d.id: d.rotational for d in inventory.sas.disks}
    rotational |= {d.id: d.rotational for d in others}
    for group in disk_groups(inventory, samples_of, others):
        found = [
            (disk, o)
            for disk in group.disks
            if (o := overwhelmed(samples_of[disk.id], limits, group.ref.id)) is not None
        ]
        if not found:
            continue
        hit = _overwhelmed_disks_hit(group, found, write_back)
        if all(rotational.get(disk.id) is False for disk, _ in found):
            hit.remediation = FLASH_REMEDIATION
        yield hit
    yield from _stacked_hits(context, limits, write_back)


def _device_hit(ref: EntityRef, o: Overwhelmed, min_queue: float) -> Hit:
    """One LUN, volume or stacked device overwhelmed."""
    size_text = (
        f"{capacity_text(o.io_kb * BYTES_PER_KIB)} per I/O"
        if o.io_kb is not None
        else "I/O size unknown (the larger limit)"
    )
    return Hit(
        entity=ref,
        title=(
            f"{ref.name}: queue {o.queue:.1f} with {latency_ms_text(o.latency_ms)} per I/O "
            f"(limit {latency_ms_text(o.line_ms)})"
        ),
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}: in {o.hit} of {o.busy} measured intervals "
                    f"({o.hit_s:.0f} of {o.measured_s:.0f} s) it held {o.queue:.1f} I/Os on "
                    f"average (≥ {min_queue:g}) while each took "
                    f"{latency_ms_text(o.latency_ms)} at {size_text}; {o.limit_words}"
                ),
                facts=_overwhelmed_facts(o),
            )
        ],
        severity=o.severity,
    )


def _stacked_hits(
    context: RuleContext, limits: Limits, write_back: frozenset[str]
) -> Iterator[Hit]:
    """md arrays, LVM and dm-crypt volumes overwhelmed, each saying whether a member explains
    it (then pointing at it) or the layer does. Their queue is what waits on the layer and its
    members together: the knob is the members' (`queue.hdd.too_deep` judges those)."""
    stacks = context.derived(stacked)
    refs = {s.device.name: stacked_device_ref(s.device) for s in stacks}
    samples_of = device_queue_samples(
        {name: ref.id for name, ref in refs.items()}, context.intervals, write_back
    )
    latencies = context.derived(stacked_latencies)
    for stack in stacks:
        ref = refs[stack.device.name]
        o = overwhelmed(samples_of.get(ref.id, []), limits, ref.id)
        if o is None:
            continue
        hit = _device_hit(ref, o, limits.number("min_queue", ref.id))
        share = limits.number("member_share", ref.id)
        directions = judged_directions(ref.id, write_back)
        why = explain(stack, o.latency_ms, latencies, directions, share)
        what = "reads" if directions == ("read",) else "I/Os"
        hit.evidence.append(explanation_evidence(ref, stack, o.latency_ms, why, what))
        hit.remediation = stacked_remediation(stack, why)
        yield hit


# An SSD serves many I/Os at once: a deep queue and long waits on flash say the drive cannot
# keep up, not that it is allowed too many I/Os (the advice for HDDs).
FLASH_REMEDIATION = (
    "Flash serves many I/Os at once, so a shallower queue will not help: the SSD cannot keep "
    "up. Check its temperature (a throttling drive slows down) and SMART (endurance used, "
    "media errors: `disk.ssd.worn`), whether sustained writes have exhausted its fast write "
    "cache (consumer and QLC drives then write many times slower), its PCIe link "
    "(`pcie.link.downgraded`) and its firmware; then spread the load over more drives or move "
    "it to drives rated for sustained writes."
)


def _lun_and_volume_samples(
    context: RuleContext, write_back: frozenset[str]
) -> list[tuple[EntityRef, list[QueueSample]]]:
    """Every measured interval of the LUNs and volumes `latency.threshold` judges (a LUN
    holding a ZFS pool's write-back: its reads alone)."""
    luns = context.derived(san_luns)
    refs = {ref.id: ref for ref in luns.values()}
    by_kernel_name = {name: ref.id for name, ref in luns.items()}
    samples = device_queue_samples(by_kernel_name, context.intervals, write_back)
    found = {entity_id: (refs[entity_id], found) for entity_id, found in samples.items()}
    for ref, entity in judged_volumes(context.imported):
        volume = series_samples(entity.points)
        if volume:
            found.setdefault(ref.id, (ref, []))[1].extend(volume)
    return list(found.values())


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

    @property
    def line_ms(self) -> float:
        """The limit the device was judged by: critical's when critical, else warning's."""
        return self.critical_ms if self.severity is Severity.CRITICAL else self.warning_ms

    @property
    def limit_words(self) -> str:
        return (
            f"PAL: warning above {latency_ms_text(self.warning_ms)}, critical above "
            f"{latency_ms_text(self.critical_ms)} for I/Os {'up to' if self.small else 'above'} "
            f"{capacity_text(self.large_kb * BYTES_PER_KIB)}"
        )


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
        Fact(
            name="mean I/O size", value=None if o.io_kb is None else round(o.io_kb, 1), unit="KiB"
        ),
        Fact(name="IOPS", value=round(o.iops, 1)),
        Fact(name="overwhelmed time", value=round(o.hit_s, 1), unit="s"),
        Fact(name="measured time", value=round(o.measured_s, 1), unit="s"),
        Fact(name="warning above", value=o.warning_ms, unit="ms"),
        Fact(name="critical above", value=o.critical_ms, unit="ms"),
    ]


def _overwhelmed_disks_hit(
    group: DiskGroup,
    found: list[tuple[JudgedDisk, Overwhelmed]],
    write_back: frozenset[str],
) -> Hit:
    """An enclosure's overwhelmed disks (or one disk) as one hit: the I/O-weighted means of
    those disks, the worst disk named."""
    ref = group.ref
    weight = sum(o.iops * o.hit_s for _, o in found)
    latency = sum(o.latency_ms * o.iops * o.hit_s for _, o in found) / weight
    queue = sum(o.queue for _, o in found) / len(found)
    disk, worst = max(found, key=lambda f: (f[1].severity.rank, f[1].latency_ms))
    worst_ref = disk.ref
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
            unit="KiB",
        ),
        Fact(name="warning above", value=worst.warning_ms, unit="ms"),
        Fact(name="critical above", value=worst.critical_ms, unit="ms"),
    ]
    return Hit(
        entity=ref,
        title=(
            f"{ref.name}: {plural(len(found), 'disk')} {agree(len(found), 'holds', 'hold')} "
            f"{queue:.1f} I/Os with {latency_ms_text(latency)} per "
            f"{what} (limit {latency_ms_text(worst.line_ms)})"
        ),
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}: {len(found)} of {len(group.disks)} measured disks held "
                    f"{queue:.1f} I/Os on average while each {what} took "
                    f"{latency_ms_text(latency)}, "
                    f"for most of the measured time (worst {worst_ref.name}: "
                    f"{latency_ms_text(worst.latency_ms)}); {worst.limit_words}"
                ),
                facts=facts,
                peers=[d.ref for d, _ in found][:24],
            )
        ],
        severity=worst.severity,
    )


RULE = Rule(
    id="latency.disk.overwhelmed",
    title="LUN, volume or disk with I/Os queued and each taking longer than the limits",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC, Input.SAS, Input.BLOCK, Input.ZFS),
    derived=(pool_write_back, san_luns, controller_disks, stacked, stacked_latencies),
    remediation=(
        "The device gets more I/O than it can serve in time: see whether the LUN's disks are busy "
        "(then add spindles or spread the load) or idle (then the path is the pinch point: FC "
        "adapters, HBA queue depth; see `san.oversubscribed`); for a disk, see whether it may "
        "hold too many I/Os at once (`queue.hdd.too_deep`); move hot files to other volumes."
    ),
    judge=judge,
    doc=(
        "Microsoft PAL's *disk overwhelmed* analysis: a disk is overwhelmed when I/Os queue "
        "(queue length ≥ 1) and each still takes long — above 15 ms is a warning; above 25 ms for "
        "I/Os of 64 KB or less, above 35 ms for larger ones (a large transfer takes longer by "
        "itself) is critical. A long wait without a queue is a slow device; a queue without a "
        "long wait is a busy but healthy one: both together mean the device, or the path to it, "
        "cannot keep up (field case 2: seconds per I/O on three SAN LUNs). The rule judges the "
        "same devices as `latency.threshold` — SAN LUNs, SAS disks (their paths summed), disks "
        "on any other controller (AHCI/SATA, NVMe, virtio, SCSI) and stacked devices (md, LVM, "
        "dm-crypt; judged as in `latency.threshold`, naming the member that explains the wait "
        "or else the layer) from diskstats `aqu-sz`, `r_await`, `w_await` and request sizes; "
        "imported volumes from PerfMon's `Avg. Disk Queue Length` and `Avg. Disk sec/Read|Write` — "
        "interval by interval, and fires when the overwhelmed intervals make at least "
        "`min_time_share` of the measured time; the severity follows their I/O-weighted mean "
        "latency and size. Disks are reported by enclosure (others by controller), as in "
        "`latency.threshold`. A device holding a ZFS pool's write-back is judged on its reads "
        "(their time against the whole queue, write-back included): the write-back fills the "
        "queue by design. Disks that are all SSDs get the advice for flash (the drive cannot keep "
        "up: temperature, wear, write cache, PCIe link) instead of the HDDs' (too many I/Os "
        "allowed at once)."
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
        "member_share": Threshold(
            0.5,
            "A stacked device's member at least this share of its latency explains it (0.0–1.0).",
        ),
    },
    role=Role.SYMPTOM,
)
