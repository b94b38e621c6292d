"""Latency accounting: each device's reads and writes over the measured intervals, as counts,
waits summed over the I/Os (mean wait × I/Os) and kB, so that means weight every I/O alike.

A SAS disk is the sum of its paths' kernel devices (I/O sent down either path is the disk's);
a SAN LUN is its multipath map or its own device; an imported volume (PerfMon) is its series.
A direction whose figures are not numbers is left out of that interval."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pinchpoint.model.sas import Disk
from pinchpoint.model.stats import IntervalFigures, Metric, StatPoint


@dataclass
class DeviceLatency:
    """Reads and writes of one device over the measured time."""

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
        if finite(read_iops, r_ms):
            reads = max(0.0, read_iops) * seconds
            self.reads += reads
            self.read_wait_ms += max(0.0, r_ms) * reads
        if finite(write_iops, w_ms):
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


def finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


def usable(seconds: float) -> bool:
    """An interval length that can divide: a number above zero."""
    return math.isfinite(seconds) and seconds > 0


def disk_latencies(
    disks: Sequence[Disk], intervals: Sequence[IntervalFigures]
) -> dict[str, DeviceLatency]:
    """Each disk's reads and writes over the measured intervals, by disk id: the figures of
    the kernel devices of all its paths summed.

    Sums in plain lists and builds one `DeviceLatency` per disk at the end: on a 1,920-path
    host a method call per path and interval cost more than the arithmetic."""
    owner = {p.block_device: d.id for d in disks for p in d.paths if p.block_device}
    return owned_latencies(owner, intervals)


def owned_latencies(
    owner: Mapping[str, str], intervals: Sequence[IntervalFigures]
) -> dict[str, DeviceLatency]:
    """The reads, writes and kB of the kernel devices `owner` names (kernel name -> entity
    id), summed by entity id: `disk_latencies` for any device (a disk off the SAS fabric is
    its one device)."""
    sums: dict[str, list[float]] = {}  # seconds, reads, writes, waits, kB
    isfinite = math.isfinite
    for interval in intervals if owner else ():
        seconds = interval.interval_s
        if not usable(seconds):
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


def device_latencies(
    devices: Mapping[str, str], intervals: Sequence[IntervalFigures]
) -> dict[str, DeviceLatency]:
    """The reads and writes of the kernel devices `devices` names (kernel name -> entity id),
    by entity id, in the order the devices first appear in the intervals."""
    found: dict[str, DeviceLatency] = {}
    for interval in intervals if devices else ():
        seconds = interval.interval_s
        if not usable(seconds):
            continue
        for figures in interval.devices:
            entity_id = devices.get(figures.device)
            if entity_id is None or figures.reset:
                continue
            values = (figures.r_s, figures.w_s, figures.r_await, figures.w_await)
            found.setdefault(entity_id, DeviceLatency()).add(seconds, *values)
    return found


def add_series(mean: DeviceLatency, points: Iterable[StatPoint]) -> None:
    """Add an imported series (PerfMon: IOPS and latency per direction) to `mean`."""
    for point in points:
        v = point.values
        seconds = point.interval_s or 1.0
        values = (
            v.get(Metric.READ_IOPS, 0.0),
            v.get(Metric.WRITE_IOPS, 0.0),
            v.get(Metric.READ_LATENCY_MS, 0.0),
            v.get(Metric.WRITE_LATENCY_MS, 0.0),
        )
        if usable(seconds):
            mean.add(seconds, *values)
