"""`latency.threshold`: a LUN, volume, disk or stacked device (md, LVM, dm-crypt) whose mean read
or write latency is above Microsoft PAL's limits (field case 2); a pool's write-back writes are
not judged."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.naming import stacked_device_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.block_disks import (
    controller_disk_latencies,
    controller_disks,
    stacked,
    stacked_latencies,
)
from pinchpoint.rules.derived.disk_latency import disk_latencies
from pinchpoint.rules.derived.luns import san_luns
from pinchpoint.rules.derived.write_back import pool_write_back
from pinchpoint.rules.latency.judged import DiskGroup, JudgedDisk, disk_groups, judged_volumes
from pinchpoint.rules.latency.stacked import explain, explanation_evidence, stacked_remediation
from pinchpoint.stats.latency import DeviceLatency, add_series, device_latencies
from pinchpoint.stats.write_back import judged_directions
from pinchpoint.units import latency_ms_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs, volumes and disks whose mean read or write latency is above the warning or
    critical line (a pool's write-back writes are not judged); disks reported by enclosure."""
    inventory = context.inventory
    write_back = context.derived(pool_write_back)
    for ref, mean in _lun_and_volume_latencies(context):
        directions = judged_directions(ref.id, write_back)
        found = verdicts(mean, limits, ref.id, directions)
        if found:
            yield _volume_hit(ref, mean, found)
    loads = context.derived(disk_latencies) | context.derived(controller_disk_latencies)
    others = context.derived(controller_disks)
    for group in disk_groups(inventory, loads, others):
        by_direction: dict[str, list[tuple[JudgedDisk, Verdict]]] = {}
        for disk in group.disks:
            directions = judged_directions(disk.id, write_back)
            for verdict in verdicts(loads[disk.id], limits, group.ref.id, directions):
                by_direction.setdefault(verdict.direction, []).append((disk, verdict))
        if by_direction:
            pool_disks = all(d.id in write_back for d in group.disks)
            yield _disks_hit(group, len(group.disks), by_direction, pool_disks)
    yield from _stacked_hits(context, limits, write_back)


def _stacked_hits(
    context: RuleContext, limits: Limits, write_back: frozenset[str]
) -> Iterator[Hit]:
    """md arrays, LVM and dm-crypt volumes above the limits, each saying whether a member
    explains it (then pointing at it) or the layer does."""
    latencies = context.derived(stacked_latencies)
    for stack in context.derived(stacked):
        mean = latencies.get(stack.device.name)
        if mean is None:
            continue
        ref = stacked_device_ref(stack.device)
        found = verdicts(mean, limits, ref.id, judged_directions(ref.id, write_back))
        if not found:
            continue
        hit = _volume_hit(ref, mean, found)
        worst = _worst(found)
        share = limits.number("member_share", ref.id)
        why = explain(stack, worst.latency_ms, latencies, [worst.direction], share)
        hit.evidence.append(
            explanation_evidence(ref, stack, worst.latency_ms, why, f"{worst.direction}s")
        )
        hit.remediation = stacked_remediation(stack, why)
        yield hit


def _lun_and_volume_latencies(context: RuleContext) -> list[tuple[EntityRef, DeviceLatency]]:
    """Mean latencies of SAN LUNs from diskstats and of imported volumes (PerfMon)."""
    luns = context.derived(san_luns)
    refs = {ref.id: ref for ref in luns.values()}
    by_kernel_name = {name: ref.id for name, ref in luns.items()}
    found = {
        entity_id: (refs[entity_id], mean)
        for entity_id, mean in device_latencies(by_kernel_name, context.intervals).items()
    }
    for ref, entity in judged_volumes(context.imported):
        _, mean = found.setdefault(ref.id, (ref, DeviceLatency()))
        add_series(mean, entity.points)
    return list(found.values())


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


def _volume_hit(ref: EntityRef, mean: DeviceLatency, found: Sequence[Verdict]) -> Hit:
    """A LUN's or volume's reads and writes above the limits."""
    evidence = [
        Evidence(
            summary=(
                f"{ref.name}: {v.direction}s took {latency_ms_text(v.latency_ms)} on average at "
                f"{v.iops:.1f} IOPS over {mean.seconds:.0f} s; warning above "
                f"{latency_ms_text(v.warning_ms)}, critical above {latency_ms_text(v.critical_ms)}"
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
        f"{ref.name}: {worst.direction}s average {latency_ms_text(worst.latency_ms)} "
        f"(limit {latency_ms_text(worst.line_ms)})"
    )
    return Hit(entity=ref, title=title, evidence=evidence, severity=worst.severity)


def _disks_hit(
    group: DiskGroup,
    measured: int,
    found: dict[str, list[tuple[JudgedDisk, Verdict]]],
    write_back: bool,
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
        slowest_ref = disk.ref
        note = (
            "; its writes are the ZFS pool's write-back, not judged"
            if write_back and direction == "read"
            else ""
        )
        evidence.append(
            Evidence(
                summary=(
                    f"{ref.name}: {direction}s of {len(hits)} of {measured} measured disks "
                    f"took {latency_ms_text(latency)} on average at {ios / len(hits):.1f} IOPS "
                    "per disk "
                    f"(slowest {slowest_ref.name}: {latency_ms_text(slowest.latency_ms)}); "
                    f"warning above {latency_ms_text(worst.warning_ms)}, critical above "
                    f"{latency_ms_text(worst.critical_ms)}{note}"
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
                peers=[d.ref for d, _ in hits][:24],
            )
        )
    worst = _worst(everything)
    hits = found[worst.direction]
    ios = sum(v.iops for _, v in hits)
    latency = sum(v.latency_ms * v.iops for _, v in hits) / ios if ios > 0 else 0.0
    title = (
        f"{ref.name}: {worst.direction}s of {plural(len(hits), 'disk')} average "
        f"{latency_ms_text(latency)} (limit {latency_ms_text(worst.line_ms)})"
    )
    return Hit(entity=ref, title=title, evidence=evidence, severity=worst.severity)


RULE = Rule(
    id="latency.threshold",
    title="Average read or write latency above the limits",
    severity=Severity.WARNING,
    needs=(Input.LATENCY_SERIES,),
    uses=(Input.DISK_STATS, Input.MULTIPATH, Input.FC, Input.SAS, Input.BLOCK, Input.ZFS),
    derived=(
        pool_write_back,
        san_luns,
        disk_latencies,
        controller_disks,
        controller_disk_latencies,
        stacked,
        stacked_latencies,
    ),
    remediation=(
        "Find where the time goes: compare the device's wait with its busy time and queue (a slow "
        "but idle LUN points at the path: see `san.oversubscribed`; a disk holding many I/Os at "
        "once: see `queue.hdd.too_deep`), check the HBA queue depth and partition alignment, and "
        "spread hot files over more volumes."
    ),
    judge=judge,
    doc=(
        "Microsoft PAL's disk thresholds: average sec/read or sec/write above 15 ms is a warning, "
        "above 25 ms critical. Field case 2 expects data files at 5–10 ms and log files at 0–2 "
        "ms: set lower limits for a log volume per entity in `pinchpoint.toml` "
        '(`[[rules."latency.threshold".override]]`, `entity = "volume:LogicalDisk(L:)"`). The '
        "rule judges every device with a latency series: SAN LUNs (their multipath map) SAS disks "
        "(their paths summed), disks on any other controller (AHCI/SATA, NVMe, virtio, SCSI) and "
        "stacked devices (md arrays, LVM volumes and thin pools, dm-crypt and other dm devices) "
        "from diskstats, and imported volumes such as PerfMon logical disks, which stand alone "
        "without an inventory. A stacked device is judged as what it is: its own latency, with "
        "each member's (its `slaves/`) beside it — a member at least `member_share` as slow "
        "explains it and the finding points at that member (whose own finding names its bay or "
        "controller); members all faster mean the time is spent in the layer (md resync or "
        "bitmap, RAID 5/6 read-modify-write, encryption, thin-pool allocation) and the fix says "
        "where to look. An md array on kernels that account no time for md I/O (its diskstats "
        "times stay 0) is never above the line: its members are judged. Disks are reported by "
        "enclosure — one finding per JBOD naming how many of its disks are above the line and the "
        "slowest — so the finding joins a cause found on that JBOD (a missing path, a queue too "
        "deep); disks on another controller by controller (`AHCI 0000:00:1f.2`), an NVMe "
        "namespace or virtio disk (one per controller) and a disk outside any enclosure alone, "
        "and an override for a JBOD's disks names the enclosure.\n\n"
        "The writes of a ZFS pool's data, special, dedup and cache devices are its write-back: "
        "gathered in memory and issued in bursts at each transaction group sync with the disks' "
        "queues filled on purpose, so their time on the disk is not what an application waits for "
        "(a synchronous write waits for the intent log; log devices are judged in full). Those "
        "devices are judged on their reads; their writes are compared among peers instead "
        "(`latency.group.outlier`, `latency.disk.outlier`). Idle devices (below `min_iops`) are "
        "not judged. Without diskstats samples or an imported latency series the rule is skipped."
    ),
    thresholds={
        "read_warning_ms": Threshold(15.0, "Mean read latency above which to warn.", "ms"),
        "read_critical_ms": Threshold(25.0, "Mean read latency above which it is critical.", "ms"),
        "write_warning_ms": Threshold(15.0, "Mean write latency above which to warn.", "ms"),
        "write_critical_ms": Threshold(
            25.0, "Mean write latency above which it is critical.", "ms"
        ),
        "min_iops": Threshold(1.0, "Reads or writes per second below which not to judge."),
        "member_share": Threshold(
            0.5,
            "A stacked device's member at least this share of its latency explains it (0.0–1.0).",
        ),
    },
    role=Role.SYMPTOM,
)
