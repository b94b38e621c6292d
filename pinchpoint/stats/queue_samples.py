"""Each measured interval of a device as one queue sample: its load, mean time per I/O, I/O
size and queue — what "disk overwhelmed" (a queue while each I/O takes long) is judged on,
interval by interval. A device holding a ZFS pool's write-back counts its reads alone."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pinchpoint.model.sas import Disk
from pinchpoint.model.stats import DeviceFigures, IntervalFigures, Metric, StatPoint
from pinchpoint.stats.latency import finite, usable


@dataclass(frozen=True)
class QueueSample:
    """One interval of one LUN, volume or disk."""

    seconds: float
    iops: float
    latency_ms: float
    io_kb: float | None  # None: the source gave no sizes
    queue: float


def device_sample(seconds: float, figures: DeviceFigures) -> QueueSample | None:
    """An interval of diskstats figures; None when a figure is not a number."""
    iops = figures.r_s + figures.w_s
    values = (iops, figures.r_await, figures.w_await, figures.rkb_s, figures.wkb_s)
    if figures.reset or not finite(*values, figures.aqu_sz) or iops <= 0:
        return None
    latency = (figures.r_s * figures.r_await + figures.w_s * figures.w_await) / iops
    size = (figures.rkb_s + figures.wkb_s) / iops
    return QueueSample(seconds, iops, latency, size, figures.aqu_sz)


def paths_sample(
    seconds: float, paths: Sequence[DeviceFigures], reads_only: bool
) -> QueueSample | None:
    """An interval of a disk: its paths' figures summed (the queue is the disk's whole
    queue); with `reads_only`, the load, latency and size of its reads alone."""
    r_s = w_s = read_ms = write_ms = rkb = wkb = queue = 0.0
    for f in paths:
        values = (f.r_s, f.w_s, f.r_await, f.w_await, f.rkb_s, f.wkb_s, f.aqu_sz)
        if f.reset or not finite(*values):
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


def point_sample(point: StatPoint) -> QueueSample | None:
    """An interval of an imported volume (PerfMon); None without load, latency or queue."""
    v = {m: x for m, x in point.values.items() if math.isfinite(x)}
    seconds = point.interval_s or 1.0
    reads, writes = max(0.0, v.get(Metric.READ_IOPS, 0.0)), max(0.0, v.get(Metric.WRITE_IOPS, 0.0))
    iops = reads + writes
    queue = v.get(Metric.QUEUE, v.get(Metric.CURRENT_QUEUE))
    if iops <= 0 or queue is None or not usable(seconds):
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


def series_samples(points: Iterable[StatPoint]) -> list[QueueSample]:
    """Every usable interval of an imported series."""
    return [s for p in points if (s := point_sample(p)) is not None]


def device_queue_samples(
    devices: Mapping[str, str], intervals: Sequence[IntervalFigures], write_back: frozenset[str]
) -> dict[str, list[QueueSample]]:
    """Every measured interval of the kernel devices `devices` names (kernel name -> entity
    id), by entity id in the order they first appear; a device holding a pool's write-back,
    its reads alone."""
    found: dict[str, list[QueueSample]] = {}
    for interval in intervals if devices else ():
        seconds = interval.interval_s
        if not usable(seconds):
            continue
        for figures in interval.devices:
            entity_id = devices.get(figures.device)
            if entity_id is None:
                continue
            if entity_id in write_back:
                sample = paths_sample(seconds, [figures], reads_only=True)
            else:
                sample = device_sample(seconds, figures)
            if sample is not None:
                found.setdefault(entity_id, []).append(sample)
    return found


def disk_queue_samples(
    disks: Sequence[Disk], intervals: Sequence[IntervalFigures], write_back: frozenset[str]
) -> dict[str, list[QueueSample]]:
    """Every measured interval of each SAS disk, by disk id: its paths' figures summed (the
    queue is the disk's whole queue); a disk holding a pool's write-back, its reads alone.
    An interval with a figure that is not a number is left out for that disk.

    Sums in plain lists, as `disk_latencies` does (a 1,920-path host)."""
    owner = {p.block_device: d.id for d in disks for p in d.paths if p.block_device}
    found: dict[str, list[QueueSample]] = {}
    isfinite = math.isfinite
    for interval in intervals if owner else ():
        seconds = interval.interval_s
        if not usable(seconds):
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
