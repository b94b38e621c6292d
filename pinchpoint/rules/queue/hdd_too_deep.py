"""`queue.hdd.too_deep`: HDDs allowed more than a few concurrent I/Os, holding them, while their
random I/O has a long tail (field case 4)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from pinchpoint.model.block import BlockDevice
from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.histogram import LatencyHistogram, merged
from pinchpoint.model.stats import HistogramKind
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.block_disks import (
    controller_disk_latencies,
    controller_disks,
    pool_disks,
)
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.derived.disk_latency import disk_latencies
from pinchpoint.rules.queue.settings import (
    Identified,
    allowed_in_flight,
    device_allowed_in_flight,
    device_knob,
    device_place_ref,
    devices_by_place,
    disks_by_place,
    place_ref,
    queue_settings,
)
from pinchpoint.stats.disk_names import DiskNames
from pinchpoint.stats.latency import DeviceLatency
from pinchpoint.units import BYTES_PER_KIB, capacity_text, latency_ms_text

# Histograms of the time an I/O spent below the block layer, best first: what a queue setting
# shapes. ZFS's disk_wait, else a tool's whole latency (fio), else ZFS's total wait (which
# adds ZFS's own queue).
DEVICE_TIME_KINDS: tuple[tuple[HistogramKind, HistogramKind], ...] = (
    (HistogramKind.DISK_WAIT_READ, HistogramKind.DISK_WAIT_WRITE),
    (HistogramKind.READ, HistogramKind.WRITE),
    (HistogramKind.TOTAL_WAIT_READ, HistogramKind.TOTAL_WAIT_WRITE),
)
DIRECTIONS = ("read", "write")
_PARTITION = re.compile(r"^(?P<disk>(?:sd|vd|xvd|hd)[a-z]+|nvme\d+n\d+)p?\d+$")


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures of HDDs (controllers of HDDs off the SAS fabric) allowed more than a few I/Os
    each, holding them, while their random I/O (reads, small writes) has a long tail."""
    inventory = context.inventory
    figures = {g.id: g for g in group_figures(context, GroupLevel.DISK)}
    host = queue_settings(inventory)
    enclosure_figures = {g.id: g for g in group_figures(context, GroupLevel.ENCLOSURE)}
    places: list[tuple[EntityRef, list[tuple[Identified, int]], dict[str, int], str | None]] = []
    for place, disks in disks_by_place(inventory, figures, rotational=True).items():
        ref = place_ref(place, disks, inventory)
        deep, settings = _deep(
            [(d, *allowed_in_flight(d, host)) for d in disks], figures, limits, ref.id
        )
        if not deep:
            continue
        standing_out = enclosure_figures.get(place)
        if standing_out is not None and (standing_out.queue_vs_peers or 0.0) >= limits.number(
            "peer_queue_ratio", ref.id
        ):
            continue  # its peers with the same setting queue less: the topology is the cause
        places.append((ref, deep, settings, None))
    others = context.derived(controller_disks)
    in_pools = context.derived(pool_disks)
    for place, devices in devices_by_place(others, figures, rotational=True).items():
        ref = device_place_ref(place, devices)
        allowed = [(d, *device_allowed_in_flight(d, host, in_pools)) for d in devices]
        deep, settings = _deep(allowed, figures, limits, ref.id)
        if deep:
            places.append((ref, deep, settings, device_knob(devices[0], settings)))
    if not places:
        return
    deep_disks = [d for _, deep, _, _ in places for d, _ in deep]
    every_disk = context.derived(disk_latencies) | context.derived(controller_disk_latencies)
    means = {d.id: every_disk[d.id] for d in deep_disks if d.id in every_disk}
    times = cache(lambda: device_times(context, {d.id for d in deep_disks}, others))
    for ref, deep, settings, knob in places:
        judged = [d for d, _ in deep]
        tail = seeking_tail(judged, means, times, limits, ref.id)
        if (
            tail is None
            or tail.tail_ms is None
            or tail.tail_ms < limits.number("tail_p90_ms", ref.id)
        ):
            continue
        groups = [figures[d.id] for d in judged]
        yield _too_deep_hit(ref, deep, settings, tail, groups, limits, knob)


def _deep(
    allowed: Sequence[tuple[Identified, int | None, dict[str, int]]],
    figures: Mapping[str, GroupFigures],
    limits: Limits,
    limits_id: str,
) -> tuple[list[tuple[Identified, int]], dict[str, int]]:
    """The disks allowed more than the maximum that held more than it and filled at least
    `fill_share` of their allowance, and the settings behind their allowance."""
    maximum = limits.number("max_hdd_queue", limits_id)
    fill_share = limits.number("fill_share", limits_id)
    deep: list[tuple[Identified, int]] = []
    settings: dict[str, int] = {}
    for disk, most, found in allowed:
        queue = figures[disk.id].queue_per_member or 0.0
        if most is not None and most > maximum and queue > maximum and queue >= fill_share * most:
            deep.append((disk, most))
            settings.update(found)
    return deep, settings


@dataclass
class DeviceTimes:
    """Each disk's latency histograms of reads and of writes, from one family of kinds."""

    kinds: tuple[HistogramKind, HistogramKind] | None = None
    by_disk: dict[str, dict[str, list[LatencyHistogram]]] = field(default_factory=dict)

    def of(self, disks: Sequence[Identified], directions: Sequence[str]) -> LatencyHistogram:
        """The I/Os of `directions` on `disks`, merged."""
        return merged(
            h
            for disk in disks
            for direction in directions
            for h in self.by_disk.get(disk.id, {}).get(direction, [])
        )


def device_times(
    context: RuleContext, disk_ids: set[str], others: Sequence[BlockDevice] = ()
) -> DeviceTimes:
    """The read and write histograms of the disks `disk_ids` (SAS disks, or disks off the
    fabric among `others`, by kernel or ZFS leaf name), from the best family of
    `DEVICE_TIME_KINDS` any import carries (none: empty)."""
    present = {kind for i in context.imported for e in i.entities for kind in e.histograms}
    family = next((f for f in DEVICE_TIME_KINDS if present.intersection(f)), None)
    found = DeviceTimes(family)
    if family is None:
        return found
    names = DiskNames(context.inventory)
    own = {d.name: d.id for d in others}
    for imported in context.imported:
        for entity in imported.entities:
            if not any(kind in entity.histograms for kind in family):
                continue
            disk_id = names.disk_id(entity.name) or _other_id(entity.name, names, own)
            if disk_id is None or disk_id not in disk_ids:
                continue
            mine = found.by_disk.setdefault(disk_id, {})
            for direction, kind in zip(DIRECTIONS, family, strict=True):
                histogram = entity.histograms.get(kind)
                if histogram is not None and not histogram.empty:
                    mine.setdefault(direction, []).append(histogram)
    return found


def _other_id(name: str, names: DiskNames, own: Mapping[str, str]) -> str | None:
    """A disk off the SAS fabric a statistic's name (`sdc`, `/dev/sdc1`, a ZFS leaf on
    `nvme0n1p1`) is about."""
    kernel = names.leaves.get(name) or posixpath.basename(name)
    whole = _PARTITION.match(kernel)
    return own.get(kernel) or (own.get(whole["disk"]) if whole else None)


@dataclass(frozen=True)
class SeekingTail:
    """The tail of the I/Os that seek, on the disks of one place that hold a deep queue."""

    directions: tuple[str, ...]  # "read", "write": those small enough to seek
    share: float  # their share of all the disks' I/Os
    sizes_kb: dict[str, float]  # mean size of each direction measured
    p90_ms: float | None  # from histograms of the time on the device
    p99_ms: float | None
    mean_wait_ms: float | None  # from diskstats: r_await, w_await
    basis: str  # what the tail is read from, in words

    @property
    def tail_ms(self) -> float | None:
        return self.p90_ms if self.p90_ms is not None else self.mean_wait_ms

    @property
    def words(self) -> str:
        """`read p90`, `read and write mean wait`."""
        what = " and ".join(self.directions)
        return f"{what} {'p90' if self.p90_ms is not None else 'mean wait'}"


def seeking_tail(
    disks: Sequence[Identified],
    means: Mapping[str, DeviceLatency],
    histograms: Callable[[], DeviceTimes],
    limits: Limits,
    limits_id: str,
) -> SeekingTail | None:
    """The tail of the reads and writes that are small on average (random I/O: each costs a
    seek, so each waits behind the others a deep queue lets in), or None when they are too
    few a share of the I/Os: a streaming transfer's tail is transfer time, not seeks.
    `histograms` is asked only then."""
    ios = dict.fromkeys(DIRECTIONS, 0.0)
    waited = dict.fromkeys(DIRECTIONS, 0.0)
    kb = dict.fromkeys(DIRECTIONS, 0.0)
    for disk in disks:
        load = means.get(disk.id)
        if load is None:
            continue
        for direction in DIRECTIONS:
            count, wait, size = load.totals(direction)
            ios[direction] += count
            waited[direction] += wait
            kb[direction] += size
    total = sum(ios.values())
    if total <= 0:
        return None
    sizes = {d: kb[d] / ios[d] for d in DIRECTIONS if ios[d] > 0}
    largest = limits.number("max_seek_io_kib", limits_id)
    seeking = tuple(d for d in DIRECTIONS if d in sizes and sizes[d] <= largest)
    share = sum(ios[d] for d in seeking) / total
    if not seeking or share < limits.number("min_seeking_share", limits_id):
        return None
    times = histograms()
    histogram = times.of(disks, seeking)
    p90 = p99 = None
    basis = "diskstats mean wait (r_await, w_await)"
    if not histogram.empty and times.kinds is not None:
        p90_s, p99_s = histogram.percentile_s(90.0), histogram.percentile_s(99.0)
        p90 = None if p90_s is None else p90_s * 1000
        p99 = None if p99_s is None else p99_s * 1000
        basis = (
            f"{' and '.join(times.kinds[DIRECTIONS.index(d)].value for d in seeking)} histograms"
        )
    counted = sum(ios[d] for d in seeking)
    mean_wait = sum(waited[d] for d in seeking) / counted if counted > 0 else None
    return SeekingTail(seeking, share, sizes, p90, p99, mean_wait, basis)


def _too_deep_hit(
    ref: EntityRef,
    deep: list[tuple[Identified, int]],
    settings: dict[str, int],
    tail: SeekingTail,
    groups: list[GroupFigures],
    limits: Limits,
    knob: str | None = None,
) -> Hit:
    queue = sum(g.queue_per_member or 0.0 for g in groups) / len(groups)
    allowed = max(a for _, a in deep)
    recommended = int(limits.number("recommended_queue", ref.id))
    shown = tail.words
    value = tail.tail_ms or 0.0
    sizes = ", ".join(
        f"{d}s {capacity_text(kb * BYTES_PER_KIB)}" for d, kb in tail.sizes_kb.items()
    )
    facts = [Fact(name=name, value=number, unit="I/Os") for name, number in settings.items()]
    facts += [
        Fact(name="I/Os allowed per disk", value=allowed, unit="I/Os"),
        Fact(name="mean queue per disk", value=round(queue, 1), unit="I/Os"),
        Fact(name="I/Os judged", value=" and ".join(tail.directions)),
        Fact(name="their share of the I/Os", value=round(100 * tail.share, 1), unit="%"),
        *(
            Fact(name=f"mean {d} size", value=round(kb, 1), unit="KiB")
            for d, kb in tail.sizes_kb.items()
        ),
        Fact(
            name="mean wait",
            value=None if tail.mean_wait_ms is None else round(tail.mean_wait_ms, 1),
            unit="ms",
        ),
        Fact(
            name="p90 latency",
            value=None if tail.p90_ms is None else round(tail.p90_ms, 1),
            unit="ms",
        ),
        Fact(
            name="p99 latency",
            value=None if tail.p99_ms is None else round(tail.p99_ms, 1),
            unit="ms",
        ),
        Fact(name="latency from", value=tail.basis),
        Fact(name="HDDs affected", value=len(deep)),
        Fact(name="recommended", value=recommended, unit="I/Os"),
    ]
    knobs = ", ".join(f"{name} = {number}" for name, number in settings.items())
    return Hit(
        entity=ref,
        title=(
            f"{len(deep)} HDDs in {ref.name} hold {queue:.0f} I/Os each; {shown} "
            f"{latency_ms_text(value)}"
        ),
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}: {plural(len(deep), 'rotational disk')} may hold {allowed} "
                    f"I/Os at once ({knobs}) and held {queue:.1f} on average; their random I/O "
                    f"({sizes} on average) waits behind the others inside the disk: "
                    f"{shown} {latency_ms_text(value)} where one or two at a time take one seek "
                    "(about 10 ms)"
                ),
                facts=facts,
            )
        ],
        remediation=_device_remediation(recommended, knob)
        if knob is not None
        else (
            f"Let each HDD hold {recommended} I/Os: with ZFS set the "
            f"`zfs_vdev_*_max_active` parameters (old ZFS: `zfs_vdev_max_pending`) to "
            f"{recommended} (`echo {recommended} > /sys/module/zfs/parameters/…`, and in "
            f"/etc/modprobe.d/zfs.conf to keep it); otherwise `echo {recommended} > "
            "/sys/block/sdX/device/queue_depth` (a udev rule keeps it). Measure p90 again: "
            "field case 4 went from 148 ms to 5–10 ms."
        ),
    )


def _device_remediation(recommended: int, knob: str) -> str:
    """The fix for disks off the SAS fabric: their own file (`queue_depth` of an AHCI disk,
    `nr_requests` where the device takes no queue depth), or ZFS's parameters."""
    return (
        f"Let each HDD hold {recommended} I/Os: `echo {recommended} > {knob}` on each of "
        'them (a udev rule matching `ATTR{queue/rotational}=="1"` keeps it); with ZFS set '
        f"the `zfs_vdev_*_max_active` parameters to {recommended} "
        "(`/sys/module/zfs/parameters/…`, and /etc/modprobe.d/zfs.conf to keep it). Measure "
        "p90 again: field case 4 went from 148 ms to 5–10 ms."
    )


RULE = Rule(
    id="queue.hdd.too_deep",
    title="HDD allowed more than a few concurrent I/Os while its random I/O has a long tail",
    severity=Severity.WARNING,
    needs=(Input.DISK_STATS,),
    uses=(Input.SAS, Input.BLOCK, Input.ZFS, Input.HISTOGRAMS),
    derived=(breakdown, disk_latencies, controller_disks, controller_disk_latencies, pool_disks),
    remediation=(
        "Lower the I/Os each HDD may hold to 2: the `zfs_vdev_*_max_active` parameters with "
        "ZFS, else `/sys/block/sdX/device/queue_depth`."
    ),
    judge=judge,
    doc=(
        "Field case 4: HDDs given 35 (later 10) concurrent I/Os had a read p90 of 148 ms and "
        "outliers beyond 300 ms, against 12.5 ms with one I/O at a time; a queue of 2 brought "
        "them to 5–10 ms. A disk that seeks serves one I/O at a time: a deeper queue buys a "
        "little reordering and makes every I/O wait behind the others. Rules of thumb: 1–4 "
        "for HDDs (2 is good), about 16 for flash SSDs, 30+ for RAID arrays. The rule fires "
        "for an enclosure's rotational disks whose allowance (the SCSI `queue_depth`, capped "
        "by ZFS's `zfs_vdev_*_max_active`) is above the maximum and half filled on average "
        "(a queue built by a missing path is not this rule's) while their random I/O has a "
        "long tail.\n\n"
        "Random I/O is what seeks: reads or writes of at most `max_seek_io_kib` on average. "
        "A streaming transfer (ZFS writes a stream in aggregated I/Os of up to 1 MiB) also "
        "fills a deep queue and waits long — that is the transfer time of the I/Os ahead, "
        "which a shallower queue does not shorten — so a host whose small I/Os are less "
        "than `min_seeking_share` of the disks' I/Os is not judged. The tail is the p90 of "
        "those I/Os' time on the device (ZFS `disk_wait` histograms; else a tool's "
        "latency histograms; else ZFS's total wait), or their mean wait (diskstats "
        "`r_await`, `w_await`) without histograms.\n\n"
        "Disks on any other controller are judged the same way, by controller (`AHCI "
        "0000:00:17.0`: its SATA disks; an NVMe namespace or a virtio disk by itself): their "
        "allowance is the SCSI `queue_depth` (an AHCI disk's NCQ depth), or `nr_requests` "
        "where the device takes no queue depth (NVMe, virtio), capped by ZFS's "
        "`zfs_vdev_*_max_active` when the disk belongs to a pool. A stacked device (an md "
        "array, an LVM or dm-crypt volume) has no queue of its own to set: a request-based dm "
        "map queues on its paths, a bio-based device passes each I/O to its members, so the "
        "members' settings are judged (as the disks they are) and the stacked device's own "
        "`nr_requests` never is; its latency is judged by `latency.threshold`."
    ),
    thresholds={
        "max_hdd_queue": Threshold(4, "Most I/Os an HDD should hold at once.", "I/Os"),
        "tail_p90_ms": Threshold(
            50.0, "p90 latency (or mean wait) of the random I/O that makes a long tail.", "ms"
        ),
        "max_seek_io_kib": Threshold(
            128, "Largest mean read or write size counted as random I/O (one seek each).", "KiB"
        ),
        "min_seeking_share": Threshold(
            0.1, "Share of the I/Os that must be random for the tail to be judged (0.0–1.0)."
        ),
        "fill_share": Threshold(
            0.5, "Share of the allowance the measured queue must fill (else another cause)."
        ),
        "peer_queue_ratio": Threshold(
            1.5,
            "An enclosure queuing this many times its peers' median is left to "
            "latency.group.outlier: the setting is the same for all, the topology differs.",
        ),
        "recommended_queue": Threshold(2, "The queue to recommend for HDDs.", "I/Os"),
    },
    role=Role.CAUSE,
)
