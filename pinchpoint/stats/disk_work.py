"""Each disk's work since the service started, as Prometheus counters want it: I/Os completed,
bytes moved, time spent by reads and writes, busy and queued time — sums that only grow, from
which `rate()` derives the mean latency of any window and of any group of disks, where an
average over the last interval exported as a gauge would alias.

The sampler adds every interval it takes (`add_tables` from the live host's raw diskstats
counters, `add_interval` from a replayed snapshot's figures) to the disk the device belongs to:
a disk's paths summed (its multipath map instead, where it has one), partitions left out (their
disk's line counts them). Totals are kept per disk, not per kernel device, so a path that goes
away or a device whose counters were reset never makes a disk's count go down; a device reset
in an interval adds nothing for that interval. A disk's busy time is that of its busiest path
in each interval (a dual-pathed disk is busy for a second, not two, when both paths are).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import IntervalFigures
from pinchpoint.stats.attach import AttachedKind, DeviceRole, attach_names
from pinchpoint.stats.iostat import counter_load, interval_centiseconds

KIB = 1024  # iostat's kB are sectors ÷ 2
COUNTED_KINDS = (AttachedKind.DISK, AttachedKind.LUN)  # a disk of the fabric, a LUN
_BUSY = 6  # position of the busy time in a disk's totals (the one taken as a maximum)


class DiskWork(BaseModel):
    """One disk's (or LUN's) work since the service started; times and sizes in base units."""

    disk: str  # the entity id (`Disk.id`, a LUN's id)
    reads: float = 0.0
    writes: float = 0.0
    read_bytes: float = 0.0
    written_bytes: float = 0.0
    read_seconds: float = 0.0  # summed over the reads: ÷ reads is the mean read latency
    write_seconds: float = 0.0
    busy_seconds: float = 0.0  # time with I/O in flight: its rate is the utilisation
    queued_seconds: float = 0.0  # I/Os in flight × time: its rate is the mean queue length


def counted_devices(inventory: Inventory, names: Iterable[str]) -> dict[str, str]:
    """Which of the kernel devices `names` count toward which disk or LUN: its multipath map
    where it has one, else its paths; never a partition, never a device outside the fabric."""
    attached = attach_names(inventory, list(names)).attached
    usable = {
        name: found
        for name, found in attached.items()
        if found.kind in COUNTED_KINDS and found.role is not DeviceRole.PARTITION
    }
    with_whole = {f.entity_id for f in usable.values() if f.role is DeviceRole.WHOLE}
    return {
        name: found.entity_id
        for name, found in usable.items()
        if found.role is DeviceRole.WHOLE or found.entity_id not in with_whole
    }


def _interval_work(load: Sequence[float], seconds: float) -> list[float]:
    """The work of one interval of `seconds` from its iostat-style rates (r/s, w/s, rkB/s,
    wkB/s, r_await, w_await, aqu-sz, %util), in the order of `DiskWork`'s counters."""
    r_s, w_s, rkb_s, wkb_s, r_await, w_await, aqu_sz, util = load
    reads, writes = r_s * seconds, w_s * seconds
    return [
        reads,
        writes,
        rkb_s * KIB * seconds,
        wkb_s * KIB * seconds,
        r_await / 1000 * reads,
        w_await / 1000 * writes,
        util / 100 * seconds,
        aqu_sz * seconds,
    ]


class DiskWorkTotals:
    """Every disk's totals, grown by each interval the sampler takes (thread-safe: the
    sampler adds, scrapes read)."""

    def __init__(self) -> None:
        self._totals: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._plan: tuple[Inventory, list[str], dict[str, str]] | None = None
        self.intervals = 0  # intervals added: what a render of the totals depends on

    def _devices(self, inventory: Inventory, names: list[str]) -> dict[str, str]:
        """`counted_devices`, worked out again only when the inventory or the names change."""
        plan = self._plan
        if plan is None or plan[0] is not inventory or plan[1] != names:
            plan = self._plan = (inventory, list(names), counted_devices(inventory, names))
        return plan[2]

    def _add(self, work: dict[str, list[float]]) -> None:
        with self._lock:
            for disk, grown in work.items():
                total = self._totals.setdefault(disk, [0.0] * len(grown))
                for i, value in enumerate(grown):
                    total[i] += value
            self.intervals += 1

    @staticmethod
    def _merge(work: dict[str, list[float]], disk: str, grown: list[float]) -> None:
        """Add one device's interval to its disk's: summed, the busy time as the maximum."""
        found = work.get(disk)
        if found is None:
            work[disk] = grown
            return
        for i, value in enumerate(grown):
            found[i] = max(found[i], value) if i == _BUSY else found[i] + value

    def add_tables(
        self, inventory: Inventory, before: DiskstatsTable, after: DiskstatsTable
    ) -> None:
        """Add the interval between two reads of the live host's counters."""
        itv, _clock = interval_centiseconds(before, after)
        if itv is None or itv <= 0:
            return
        work: dict[str, list[float]] = {}
        for name, disk in self._devices(inventory, after.names).items():
            old, new = before.index.get(name), after.index.get(name)
            if old is None or new is None:
                continue
            load = counter_load(before.counters(old), after.counters(new), itv)
            if load is not None:  # a reset device adds nothing for this interval
                self._merge(work, disk, _interval_work(load, itv / 100))
        self._add(work)

    def add_interval(self, inventory: Inventory, interval: IntervalFigures) -> None:
        """Add one interval of figures (a replayed snapshot's)."""
        if interval.interval_s <= 0:
            return
        devices = self._devices(inventory, [f.device for f in interval.devices])
        work: dict[str, list[float]] = {}
        for figures in interval.devices:
            disk = devices.get(figures.device)
            if disk is None or figures.reset:
                continue
            load = (
                figures.r_s,
                figures.w_s,
                figures.rkb_s,
                figures.wkb_s,
                figures.r_await,
                figures.w_await,
                figures.aqu_sz,
                figures.util,
            )
            self._merge(work, disk, _interval_work(load, interval.interval_s))
        self._add(work)

    def totals(self) -> list[DiskWork]:
        """Every disk's totals as of now, in the order of their ids."""
        with self._lock:
            found = sorted((disk, tuple(values)) for disk, values in self._totals.items())
        return [
            DiskWork(
                disk=disk,
                reads=reads,
                writes=writes,
                read_bytes=read_bytes,
                written_bytes=written_bytes,
                read_seconds=read_s,
                write_seconds=write_s,
                busy_seconds=busy_s,
                queued_seconds=queued_s,
            )
            for disk, (
                reads,
                writes,
                read_bytes,
                written_bytes,
                read_s,
                write_s,
                busy_s,
                queued_s,
            ) in found
        ]
