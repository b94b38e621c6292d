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
from operator import add

from pydantic import BaseModel

from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import IntervalFigures
from pinchpoint.stats.attach import AttachedKind, DeviceRole, attach_names
from pinchpoint.stats.column_picks import Values, values_at
from pinchpoint.stats.iostat import counter_load, counter_load_columns, interval_centiseconds

KIB = 1024  # iostat's kB are sectors ÷ 2
COUNTED_KINDS = (AttachedKind.DISK, AttachedKind.LUN)  # a disk of the fabric, a LUN
_BUSY = 6  # position of the busy time in a disk's totals (the one taken as a maximum)
_NONE = (0.0,) * 8  # the totals of a disk not counted yet


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


class _LivePlan:
    """How one list of kernel devices adds up per disk, worked out once per inventory and list:
    the disks, ordered by how many devices they have so that each count is one run of disks,
    and per run `runs[n]` what picks the n-th device of every disk of the run out of a column
    of every device of the table (its order), in the order `_merge` adds them."""

    def __init__(self, inventory: Inventory, names: list[str]) -> None:
        self.inventory = inventory
        self.names = names
        index = {name: at for at, name in enumerate(names)}
        slots: dict[str, list[int]] = {}  # each disk's devices' positions in the table
        for name, disk in counted_devices(inventory, names).items():
            slots.setdefault(disk, []).append(index[name])
        by_count = sorted(slots.items(), key=lambda item: len(item[1]))  # stable: first seen
        self.disks = [disk for disk, _ in by_count]
        self.runs: list[list[Values]] = []  # per run of disks with n devices: a pick per device
        for count in sorted({len(s) for s in slots.values()}):
            run = [s for _, s in by_count if len(s) == count]
            self.runs.append([values_at([s[n] for s in run]) for n in range(count)])

    def merged(self, columns: list[list[float]]) -> list[list[float]]:
        """Each disk's work (in `disks` order) from its devices' work columns: summed, the busy
        time as the maximum (`_merge`'s arithmetic, in its order)."""
        found = []
        for counter, column in enumerate(columns):
            together = max if counter == _BUSY else add
            disks: list[float] = []
            for picks in self.runs:
                run = list(picks[0](column))
                for pick in picks[1:]:
                    run = list(map(together, run, pick(column)))
                disks.extend(run)
            found.append(disks)
        return found


def _work_columns(loads: list[list[float]], seconds: float) -> list[list[float]]:
    """`_interval_work` of every device at once, from the columns of `counter_load_columns`:
    the same expressions, a list operation per counter."""
    r_s, w_s, rkb_s, wkb_s, r_await, w_await, aqu_sz, util = loads
    reads = [v * seconds for v in r_s]
    writes = [v * seconds for v in w_s]
    return [
        reads,
        writes,
        [v * KIB * seconds for v in rkb_s],
        [v * KIB * seconds for v in wkb_s],
        [a / 1000 * n for a, n in zip(r_await, reads, strict=True)],
        [a / 1000 * n for a, n in zip(w_await, writes, strict=True)],
        [u / 100 * seconds for u in util],
        [q * seconds for q in aqu_sz],
    ]


class DiskWorkTotals:
    """Every disk's totals, grown by each interval the sampler takes (thread-safe: the
    sampler adds, scrapes read). The live host's disks are kept as columns (a list per counter,
    in its plan's order of disks), added to a column at a time every tick; the others, and all
    of them once the plan changes, by disk."""

    def __init__(self) -> None:
        self._totals: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._plan: tuple[Inventory, list[str], dict[str, str]] | None = None
        self._live: _LivePlan | None = None  # the plan whose disks' totals are the columns
        self._planned: _LivePlan | None = None  # the last plan made
        self._columns: list[list[float]] = []  # the live plan's disks' totals, by counter
        self.intervals = 0  # intervals added: what a render of the totals depends on

    def _devices(self, inventory: Inventory, names: list[str]) -> dict[str, str]:
        """`counted_devices`, worked out again only when the inventory or the names change."""
        plan = self._plan
        if plan is None or plan[0] is not inventory or plan[1] != names:
            plan = self._plan = (inventory, list(names), counted_devices(inventory, names))
        return plan[2]

    def _live_plan(self, inventory: Inventory, names: list[str]) -> _LivePlan:
        """The live plan for `names`, made again when the inventory or the names change; the
        columns are folded back by disk and made anew from the plan's disks' totals when it is
        not the plan in use."""
        live = self._live
        if live is not None and live.inventory is inventory and live.names == names:
            return live
        live = self._planned  # kept while a device-by-device interval has the totals by disk
        if live is None or live.inventory is not inventory or live.names != names:
            live = self._planned = _LivePlan(inventory, list(names))
        with self._lock:
            self._fold()
            kept = [self._totals.pop(disk, _NONE) for disk in live.disks]
            self._columns = [list(column) for column in zip(*kept, strict=True)] or [
                [] for _ in _NONE
            ]
            self._live = live
        return live

    def _fold(self) -> None:
        """The live columns back into the totals by disk (under the lock)."""
        if self._live is not None:
            for at, disk in enumerate(self._live.disks):
                self._totals[disk] = [column[at] for column in self._columns]
            self._live, self._columns = None, []

    def _add(self, work: dict[str, list[float]]) -> None:
        with self._lock:
            self._fold()
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
        self,
        inventory: Inventory,
        before: DiskstatsTable,
        after: DiskstatsTable,
        loads: list[list[float]] | None = None,
    ) -> None:
        """Add the interval between two reads of the live host's counters: column by column
        when both list the same devices and no counter went back, else device by device.
        `loads` is `counter_load_columns` of every device of `after`, where the caller has it."""
        itv, _clock = interval_centiseconds(before, after)
        if itv is None or itv <= 0:
            return
        if before.names == after.names:
            live = self._live_plan(inventory, after.names)
            if loads is None or len(loads[0]) != len(after.names):
                loads = counter_load_columns(before, after, range(len(after.names)), itv)
            if loads is not None:
                grown = live.merged(_work_columns(loads, itv / 100))
                with self._lock:
                    if self._live is live:
                        self._columns = [
                            list(map(add, total, more))
                            for total, more in zip(self._columns, grown, strict=True)
                        ]
                        self.intervals += 1
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
            kept = {disk: tuple(values) for disk, values in self._totals.items()}
            if self._live is not None:
                kept.update(zip(self._live.disks, zip(*self._columns, strict=True), strict=True))
            found = sorted(kept.items())
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
