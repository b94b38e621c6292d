"""The breakdown of one interval at a time, for the live sampler: which devices carry each
group's load is worked out once per inventory (and per list of devices the counters show),
and each tick is then sums over plain lists, not a rebuild of the hierarchy.

The groups, their members and their devices are those `aggregate.breakdown` finds — the plan
is made by its own level builders, recording instead of summing — and the figures are summed
as `aggregate._group` sums them, device by device in the same order, so a tick gives what the
full breakdown of the same interval gives (`tests/stats/test_incremental.py`). Latency
histograms (recorded or replayed per tick) are merged per group as the breakdown merges them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from operator import add, itemgetter, truediv
from typing import NamedTuple

from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.histogram import LatencyHistogram, merged
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import HistogramKind, ImportedStats, IntervalFigures, Metric
from pinchpoint.stats.aggregate import (
    DeviceLoad,
    _is_interior,
    _Levels,
    _Measured,
    breakdown,
    histogram_family,
)
from pinchpoint.stats.attach import Attachment
from pinchpoint.stats.column_picks import Values, in_order, values_at
from pinchpoint.stats.iostat import counter_load, counter_load_columns, interval_centiseconds
from pinchpoint.stats.links import LINK_LEVELS
from pinchpoint.units import KIB_PER_MB


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """One group: its devices (positions in the plan's device list, in the order the
    breakdown sums them), its member ids, and how many members have a device."""

    level: GroupLevel
    id: str
    name: str
    member_ids: tuple[str, ...]
    devices: tuple[int, ...]
    measured: int


# The metrics of a tick's values, looked up once (an enum member's look-up is not free).
_READ_IOPS, _WRITE_IOPS, _READ_KBPS, _WRITE_KBPS = (
    Metric.READ_IOPS,
    Metric.WRITE_IOPS,
    Metric.READ_KBPS,
    Metric.WRITE_KBPS,
)
_QUEUE, _LATENCY_MS, _UTIL_PCT = Metric.QUEUE, Metric.LATENCY_MS, Metric.UTIL_PCT
_NAN = math.nan


class GroupTick(NamedTuple):
    """One group's figures for one interval: the values a series point holds, and the merged
    histogram of its members when histograms came with the interval, whole and kind by kind
    (read apart from write: a heat map says which it draws). A named tuple: a thousand of them
    every tick, made in a tenth of a frozen dataclass's time."""

    level: GroupLevel
    id: str
    name: str
    values: dict[Metric, float]
    histogram: LatencyHistogram | None
    iops: float
    histograms: dict[HistogramKind, LatencyHistogram]


class MemberColumns(NamedTuple):
    """The figures of one tick's member groups (disks, LUNs) as columns: their ids, levels and
    names, and a list per metric of the values a `GroupTick` would hold (NaN where it holds
    none: a latency without I/O). What the live sampler keeps in memory every tick, without a
    dict per disk."""

    ids: list[str]
    levels: list[GroupLevel]
    names: list[str]
    values: dict[Metric, list[float]]


class _MemberPlan:
    """How a plan's member groups are summed as columns: ordered by how many devices they
    have (one, two, more), each run picked from a device column at once."""

    def __init__(self, groups: list[GroupPlan], levels: Container[GroupLevel]) -> None:
        members = [g for g in groups if g.level in levels]
        ones = [g for g in members if len(g.devices) == 1]
        twos = [g for g in members if len(g.devices) == 2]
        more = [g for g in members if len(g.devices) > 2]
        self.groups = [*ones, *twos, *more]
        self.ids = [g.id for g in self.groups]
        self.levels = [g.level for g in self.groups]
        self.names = [g.name for g in self.groups]
        self.measured = [g.measured for g in self.groups]
        self.devices = [len(g.devices) for g in self.groups]
        self.ones = values_at([g.devices[0] for g in ones])
        self.twos = (
            values_at([g.devices[0] for g in twos]),
            values_at([g.devices[1] for g in twos]),
        )
        self.more = [values_at(g.devices) for g in more]

    def sums(self, column: list[float]) -> list[float]:
        """Each member group's sum of `column`, added from 0 in its devices' order as `_sums`
        adds them."""
        first, second = self.twos
        return [
            *[0.0 + v for v in self.ones(column)],
            *[0.0 + a + b for a, b in zip(first(column), second(column), strict=True)],
            *[sum(pick(column), 0.0) for pick in self.more],
        ]

    def columns(self, columns: list[list[float]]) -> MemberColumns:
        """The member groups' values from the devices' summed figures (`_columns`), with
        `_sums`'s expressions."""
        read_iops, write_iops, read_mb_s, write_mb_s, queue, ios, waited, util = (
            self.sums(column) for column in columns
        )
        return MemberColumns(
            self.ids,
            self.levels,
            self.names,
            {
                _READ_IOPS: read_iops,
                _WRITE_IOPS: write_iops,
                _READ_KBPS: [v * KIB_PER_MB for v in read_mb_s],
                _WRITE_KBPS: [v * KIB_PER_MB for v in write_mb_s],
                # two lists' values divided: `map` over `operator` (faster than a zip here)
                _QUEUE: list(map(truediv, queue, self.measured)),
                _LATENCY_MS: [w / n if n > 0 else _NAN for w, n in zip(waited, ios, strict=True)],
                _UTIL_PCT: list(map(truediv, util, self.devices)),
            },
        )


def _picker(positions: list[int]) -> Callable[[Sequence[float]], Sequence[float]]:
    """What picks `positions` out of a list, always as a sequence (an itemgetter of one or no
    position does not give one)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    return lambda values: [values[at] for at in positions]


class _Recorder(_Levels):
    """The breakdown's level builders, recording each group's devices instead of summing."""

    def __init__(self, inventory: Inventory, measured: _Measured, position: dict[str, int]):
        super().__init__(inventory, measured, 0.0)
        self.position = position
        self.plans: list[GroupPlan] = []

    def group(
        self,
        level: GroupLevel,
        group_id: str,
        name: str,
        detail: str | None,
        member_ids: list[str],
        devices: Iterable[tuple[Attachment, DeviceLoad]],
    ) -> GroupFigures:
        chosen = list(devices)
        self.plans.append(
            GroupPlan(
                level=level,
                id=group_id,
                name=name,
                member_ids=tuple(member_ids),
                devices=tuple(self.position[a.name] for a, _ in chosen),
                measured=len({a.entity_id for a, _ in chosen}),
            )
        )
        return GroupFigures.model_construct(
            level=level, id=group_id, name=name, members=len(member_ids), measured=0
        )


class _Split:
    """A plan's groups summed one by one (`groups`, with `shapes`) and those of the member
    levels summed as columns (`members`, None when there are no such levels)."""

    def __init__(self, groups: list[GroupPlan], members: frozenset[GroupLevel]) -> None:
        self.groups = [g for g in groups if g.level not in members]
        self.members = _MemberPlan(groups, members) if members else None
        # how `_sums` adds each group's devices: (first, second or -1, what gives more)
        self.shapes: list[tuple[int, int, Values | None]] = [
            (
                g.devices[0],
                g.devices[1] if len(g.devices) == 2 else -1,
                in_order(g.devices) if len(g.devices) > 2 else None,
            )
            for g in self.groups
        ]


class TickPlan:
    """The groups of `levels` for an interval whose measured devices are `names` (in the
    interval's order): built once, used every tick that measures the same devices."""

    def __init__(self, inventory: Inventory, levels: Sequence[GroupLevel], names: Sequence[str]):
        self.names = tuple(names)
        measured = _Measured(inventory)
        placeholder = DeviceLoad(seconds=1.0)
        for name in self.names:
            measured.add_load(name, placeholder)
        recorder = _Recorder(inventory, measured, {n: i for i, n in enumerate(self.names)})
        for level in levels:
            if level not in LINK_LEVELS and level is not GroupLevel.STANDALONE:
                recorder.build(level)
        self.groups = [plan for plan in recorder.plans if plan.measured]
        self._splits: dict[frozenset[GroupLevel], _Split] = {}
        self._measured = measured  # its name → entity look-ups serve the histograms

    def split(self, members: frozenset[GroupLevel]) -> _Split:
        """The groups apart from those of the `members` levels, and how those are summed as
        columns (made once per set of levels)."""
        found = self._splits.get(members)
        if found is None:
            found = self._splits[members] = _Split(self.groups, members)
        return found

    def entity_histograms(
        self, imports: Sequence[ImportedStats]
    ) -> tuple[dict[str, LatencyHistogram], dict[str, dict[HistogramKind, LatencyHistogram]]]:
        """The imported histograms of the interval by entity id, as the breakdown attaches
        and merges them (the best family only): merged, and kind by kind."""
        family = histogram_family(imports)
        found: dict[str, LatencyHistogram] = {}
        kinds: dict[str, dict[HistogramKind, LatencyHistogram]] = {}
        for imported in imports:
            for entity in imported.entities:
                if _is_interior(entity):
                    continue
                for kind, histogram in entity.histograms.items():
                    if kind not in family:
                        continue
                    attached = self._measured.attach(entity.name)
                    if attached is None:
                        continue
                    mine = found.get(attached.entity_id)
                    if mine is None:
                        mine = found[attached.entity_id] = LatencyHistogram()
                    mine.merge_from(histogram)
                    own = kinds.setdefault(attached.entity_id, {})
                    before = own.get(kind)
                    own[kind] = histogram if before is None else merged((before, histogram))
        return found, kinds


def _add_device(
    columns: list[list[float]],
    s: float,
    r_s: float,
    w_s: float,
    rkb_s: float,
    wkb_s: float,
    r_await: float,
    w_await: float,
    aqu_sz: float,
    util: float,
) -> None:
    """One device's eight figures a group sums, as `_group` takes them from its totals
    (`figure_totals`, the same expressions): r/s, w/s, read and write MB/s, queue, I/Os,
    milliseconds waited, %util."""
    reads = max(0.0, r_s) * s
    writes = max(0.0, w_s) * s
    columns[0].append(reads / s)
    columns[1].append(writes / s)
    columns[2].append(max(0.0, rkb_s) * s / s / KIB_PER_MB)
    columns[3].append(max(0.0, wkb_s) * s / s / KIB_PER_MB)
    columns[4].append(max(0.0, aqu_sz) * s / s)
    columns[5].append(reads + writes)
    columns[6].append(max(0.0, r_await) * reads + max(0.0, w_await) * writes)
    columns[7].append(100.0 * (min(100.0, max(0.0, util)) / 100.0 * s / s))


def _load_columns(s: float, loads: list[list[float]]) -> list[list[float]]:
    """`_add_device` of every device at once, from the columns of `counter_load_columns`: the
    same expressions, a list operation per figure. Those figures are never negative (no counter
    went back), so `max(0.0, v)` is `v` and `min(100.0, v)` is written out."""
    r_s, w_s, rkb_s, wkb_s, r_await, w_await, aqu_sz, util = loads
    reads = [v * s for v in r_s]
    writes = [v * s for v in w_s]
    return [
        [v / s for v in reads],
        [v / s for v in writes],
        [v * s / s / KIB_PER_MB for v in rkb_s],
        [v * s / s / KIB_PER_MB for v in wkb_s],
        [v * s / s for v in aqu_sz],
        list(map(add, reads, writes)),  # two lists: `map` over `operator`, not a zip
        [ra * r + wa * w for ra, r, wa, w in zip(r_await, reads, w_await, writes, strict=True)],
        [100.0 * ((v if v < 100.0 else 100.0) / 100.0 * s / s) for v in util],
    ]


def _columns(interval: IntervalFigures) -> list[list[float]]:
    """The summed figures of every device of `interval` (`_add_device`), in its order."""
    s = interval.interval_s
    columns: list[list[float]] = [[] for _ in range(8)]
    for f in interval.devices:
        _add_device(
            columns, s, f.r_s, f.w_s, f.rkb_s, f.wkb_s, f.r_await, f.w_await, f.aqu_sz, f.util
        )
    return columns


class TickAggregator:
    """Groups each interval along the hierarchy of one inventory, incrementally."""

    def __init__(self, inventory: Inventory, levels: Sequence[GroupLevel]) -> None:
        self.inventory = inventory
        self.levels = tuple(levels)
        self._plan: TickPlan | None = None
        self.plans_built = 0
        self._kept_for: tuple[list[str], Container[str], list[int], list[str]] | None = None

    def plan_for(self, names: Sequence[str]) -> TickPlan:
        """The plan for an interval measuring `names`: the last one while they stay the same."""
        if self._plan is None or self._plan.names != tuple(names):
            self._plan = TickPlan(self.inventory, self.levels, names)
            self.plans_built += 1
        return self._plan

    def tick(
        self, interval: IntervalFigures, imports: Sequence[ImportedStats] = ()
    ) -> list[GroupTick] | None:
        """Every measured group's figures for `interval`; None when the interval cannot be
        summed this way (a device reset, an unusable length): the caller then takes the full
        breakdown, which says why."""
        seconds = interval.interval_s
        if not (math.isfinite(seconds) and seconds > 0):
            return None
        if any(f.reset for f in interval.devices):
            return None
        if any(entity.points for imported in imports for entity in imported.entities):
            return None  # imported figures join the devices: the breakdown sums those
        names = [f.device for f in interval.devices]
        found = self._sums(names, _columns(interval), imports, frozenset())
        return None if found is None else found[0]

    def tick_tables(
        self,
        before: DiskstatsTable,
        after: DiskstatsTable,
        leave_out: Container[str],
        imports: Sequence[ImportedStats] = (),
    ) -> tuple[list[GroupTick], float] | None:
        """`tick` of the interval between two raw tables of counters, without the figures of
        every device as models (what a live tick reads): the groups and the interval's
        seconds; None where `tick` would give None (then take `table_series_figures`)."""
        found = self.tick_tables_columns(before, after, leave_out, imports, frozenset())
        return None if found is None else (found[0], found[2])

    def tick_tables_columns(
        self,
        before: DiskstatsTable,
        after: DiskstatsTable,
        leave_out: Container[str],
        imports: Sequence[ImportedStats],
        members: frozenset[GroupLevel],
        loads: list[list[float]] | None = None,
    ) -> tuple[list[GroupTick], MemberColumns | None, float] | None:
        """`tick_tables` with the groups of the `members` levels as columns (the live
        sampler's disks and LUNs), when no histogram came with the interval (else they are
        among the groups, with theirs): the other groups, the members' columns, the seconds.
        `loads` is `counter_load_columns` of every device of `after`, where the caller has it."""
        if any(entity.points for imported in imports for entity in imported.entities):
            return None
        itv, _ = interval_centiseconds(before, after)
        if itv is None or not (math.isfinite(itv) and itv > 0):
            return None
        s = itv / 100
        as_columns = members if not imports else frozenset()
        if before.names == after.names:  # the usual tick: the same devices, column by column
            kept, names = self._kept(after.names, leave_out)
            if loads is None or len(after.names) != len(loads[0]):
                loads = counter_load_columns(before, after, kept, itv)
            elif len(kept) != len(after.names):
                pick = _picker(kept)
                loads = [list(pick(column)) for column in loads]
            if loads is not None:
                found = self._sums(names, _load_columns(s, loads), imports, as_columns)
                return None if found is None else (*found, s)
        names = []
        columns: list[list[float]] = [[] for _ in range(8)]
        old_index, counters, new_counters = before.index, before.counters, after.counters
        for position, name in enumerate(after.names):
            old = old_index.get(name)
            if old is None or name in leave_out:
                continue
            load = counter_load(counters(old), new_counters(position), itv)
            if load is None:
                return None  # a reset: the full breakdown notes it
            names.append(name)
            _add_device(columns, s, *load)
        found = self._sums(names, columns, imports, as_columns)
        return None if found is None else (*found, s)

    def _kept(self, names: list[str], leave_out: Container[str]) -> tuple[list[int], list[str]]:
        """The positions and names of `names` not left out, kept while the names and
        `leave_out` stay."""
        if (
            self._kept_for is None
            or self._kept_for[1] is not leave_out
            or self._kept_for[0] != names
        ):
            kept = [at for at, name in enumerate(names) if name not in leave_out]
            self._kept_for = (names, leave_out, kept, [names[at] for at in kept])
        return self._kept_for[2], self._kept_for[3]

    def _sums(
        self,
        names: list[str],
        columns: list[list[float]],
        imports: Sequence[ImportedStats],
        members: frozenset[GroupLevel],
    ) -> tuple[list[GroupTick], MemberColumns | None] | None:
        """Every group's figures of one tick from its devices' summed figures: the groups of
        the `members` levels as columns, the others (all when `members` is empty) as ticks."""
        if len(set(names)) != len(names):
            return None  # a name twice: the breakdown sums its figures first
        plan = self.plan_for(names)
        histograms, kinds = plan.entity_histograms(imports) if imports else ({}, {})
        found = []
        split = plan.split(members)
        member_columns = split.members.columns(columns) if split.members is not None else None
        # each figure of every other group, added in order from 0 as `_group` adds them: one or
        # two devices (a disk's paths) written out, more through `sum`
        shapes = split.shapes
        totals = [
            [
                sum(pick(column), 0.0)
                if pick is not None
                else 0.0 + column[a]
                if b < 0
                else 0.0 + column[a] + column[b]
                for a, b, pick in shapes
            ]
            for column in columns
        ]
        for group, sums in zip(split.groups, zip(*totals, strict=True), strict=True):
            read_iops, write_iops, read_mb_s, write_mb_s, queue, ios, waited, util = sums
            values = {
                _READ_IOPS: read_iops,
                _WRITE_IOPS: write_iops,
                _READ_KBPS: read_mb_s * KIB_PER_MB,
                _WRITE_KBPS: write_mb_s * KIB_PER_MB,
                _QUEUE: queue / group.measured,
            }
            if ios > 0:
                values[_LATENCY_MS] = waited / ios
            values[_UTIL_PCT] = util / len(group.devices)
            histogram = None
            by_kind: dict[HistogramKind, LatencyHistogram] = {}
            if histograms:
                together = merged(histograms[m] for m in group.member_ids if m in histograms)
                histogram = None if together.empty else together
                own = [kinds[m] for m in group.member_ids if m in kinds]
                for kind in {kind for h in own for kind in h}:
                    each = merged(h[kind] for h in own if kind in h)
                    if not each.empty:
                        by_kind[kind] = each
            found.append(
                GroupTick(
                    group.level,
                    group.id,
                    group.name,
                    values,
                    histogram,
                    read_iops + write_iops,
                    by_kind,
                )
            )
        return found, member_columns


def group_values(group: GroupFigures) -> dict[Metric, float]:
    """The values a series point of `group` holds."""
    values = {
        Metric.READ_IOPS: group.read_iops,
        Metric.WRITE_IOPS: group.write_iops,
        Metric.READ_KBPS: group.read_mb_s * KIB_PER_MB,
        Metric.WRITE_KBPS: group.write_mb_s * KIB_PER_MB,
    }
    if group.queue_per_member is not None:
        values[Metric.QUEUE] = group.queue_per_member
    if group.await_ms is not None:
        values[Metric.LATENCY_MS] = group.await_ms
    if group.util_pct is not None:
        values[Metric.UTIL_PCT] = group.util_pct
    return values


def full_tick(
    inventory: Inventory,
    interval: IntervalFigures,
    imports: Sequence[ImportedStats],
    levels: Sequence[GroupLevel],
    slower_than_s: float,
) -> list[GroupTick]:
    """Every measured group of `interval` from the full breakdown (what a tick gives)."""
    grouped = breakdown(
        inventory,
        levels=levels,
        intervals=[interval],
        imports=imports,
        slower_than_s=slower_than_s,
        by_kind=True,
    )
    return [
        GroupTick(
            level.level, g.id, g.name, group_values(g), g.histogram, g.iops, dict(g.histograms)
        )
        for level in grouped.levels
        for g in level.groups
        if g.measured
    ]
