"""What `iostat -x` (sysstat 12) prints, computed from two diskstats samples.

The formulas are sysstat's (iostat.c `write_ext_stat`, rd_stats.c `compute_ext_disk_stats`),
in the same order of operations so the figures agree to the printed two decimals:

- the interval `itv` is in hundredths of a second, from `/proc/uptime` read as sysstat reads it
  (`123.45` -> 12345); a rate is `delta / itv * 100`;
- `rkB/s` is sectors per second / 2; `rareq-sz` is sectors per read / 2;
- `r_await` is read milliseconds per read; `f_await` uses the flush counters alone (the kernel
  counts a flush that reached the device as a write too, so it is not in `await`);
- `aqu-sz` is weighted milliseconds per second / 1000; `%util` is busy milliseconds per second
  / 10.

Counters are unsigned in the kernel: times are 32-bit (they wrap after 49.7 days, or sooner for
`weighted_ms` on a deep queue), counts and sectors are 64-bit on 64-bit kernels and 32-bit on
32-bit ones. A counter that went down is taken as a wrap where that is possible (a time always;
a count below 2^32 or near 2^64). A device whose counts all went down, or one that cannot have
wrapped, was reset (driver reload, device replaced): sysstat then prints figures since the
reset; pinchpoint marks it `reset` with zero figures, as the numbers of that interval are unknown.
Where only the busy counter went back, sysstat 12.6 wraps it into a %util in the millions;
pinchpoint gives 0 (busy time cannot exceed the interval). Elsewhere the figures are sysstat's,
checked against the real iostat in tests/stats/test_iostat_exact.py.
"""

from __future__ import annotations

import operator
import re
from array import array
from collections.abc import Callable, Container, Iterable, Sequence
from datetime import datetime
from itertools import compress, islice, pairwise
from typing import Protocol

from pinchpoint.checks.parse.diskstats import COUNTERS, ROW, DiskstatsTable
from pinchpoint.model.stats import (
    DISKSTATS_COUNTER_FIELDS,
    DeviceFigures,
    DiskstatsCounters,
    DiskstatsSample,
    IntervalFigures,
)
from pinchpoint.stats.counters import COUNT_WRAP_64, count_delta

__all__ = [
    "DEVICE_FIGURES_FIELDS",
    "busiest_devices",
    "counter_figures",
    "had_io",
    "interval_centiseconds",
    "interval_figures",
    "is_partition",
    "series_figures",
    "table_interval_figures",
    "table_series_figures",
    "whole_devices",
]

TIME_WRAP = 1 << 32  # the kernel prints times as unsigned 32-bit milliseconds
FULL_LAYOUT = 20  # fields of a line that has every counter
BUSY_SLACK = 2  # busy ms may exceed elapsed ms a little (clock skew), never twice over

_NUMBERED = re.compile(r"^\d+$")  # "1" of "sda1"
_P_NUMBERED = re.compile(r"^p\d+$")  # "p1" of "nvme0n1p1", "mmcblk0p1", "md0p1"

DEVICE_FIGURES_FIELDS = tuple(DeviceFigures.model_fields)
_FIGURE_NAMES = frozenset(DEVICE_FIGURES_FIELDS)
_FIGURE_DEFAULTS: dict[str, float | bool | str] = {
    name: field.default for name, field in DeviceFigures.model_fields.items() if name != "device"
}


class Clocked(Protocol):
    """A sample's clocks: a `DiskstatsSample` or a raw `DiskstatsTable`."""

    @property
    def uptime_s(self) -> float | None: ...
    @property
    def monotonic_s(self) -> float | None: ...
    @property
    def taken_at(self) -> datetime | None: ...


def interval_centiseconds(before: Clocked, after: Clocked) -> tuple[float | None, str]:
    """The interval in hundredths of a second and the clock it came from, or None and why not.

    `/proc/uptime` of both samples when both have it (whole hundredths, as sysstat reads it),
    else the monotonic clock of a live sampler, else the capture times of two snapshots.
    """
    if before.uptime_s is not None and after.uptime_s is not None:
        return float(round(after.uptime_s * 100) - round(before.uptime_s * 100)), "uptime"
    if before.monotonic_s is not None and after.monotonic_s is not None:
        return (after.monotonic_s - before.monotonic_s) * 100, "monotonic clock"
    if before.taken_at is not None and after.taken_at is not None:
        return (after.taken_at - before.taken_at).total_seconds() * 100, "capture times"
    missing = "first" if before.uptime_s is None else "second"
    return None, f"the {missing} sample has no clock (no proc/uptime, no capture time)"


# Positions in the counter tuple (DiskstatsCounters fields, in the kernel's order).
_COUNTER_FIELDS = DISKSTATS_COUNTER_FIELDS
_IN_FLIGHT = 8  # a gauge, not a counter
_IO_MS = 9
_COUNTS = (0, 1, 2, 4, 5, 6, 11, 12, 13, 15)  # numbers of I/Os, merges and sectors
_TIMES = (3, 7, 10, 14, 16)  # milliseconds, unsigned 32-bit (io_ms apart: see _busy_ms)
_IOS = (0, 4, 11, 15)  # reads, writes, discards, flushes
_SECTORS = (2, 6, 13)
_counter_values = operator.itemgetter(*_COUNTER_FIELDS)


def _values(counters: DiskstatsCounters) -> tuple[int, ...]:
    """The 17 counters as a tuple; those the kernel did not print (14 or 18 fields) are 0."""
    values: tuple[int | None, ...] = _counter_values(counters.__dict__)
    if counters.field_count == FULL_LAYOUT:
        return values  # type: ignore[return-value]
    return tuple(0 if v is None else v for v in values)


def _was_reset(before: Sequence[int], after: Sequence[int]) -> bool:
    """sysstat's test for a device removed and inserted again: fewer I/Os in total (summed as
    its unsigned 64-bit longs), and every sector count that was not zero went down."""
    total_before = sum(before[i] for i in _IOS) % COUNT_WRAP_64
    total_after = sum(after[i] for i in _IOS) % COUNT_WRAP_64
    if total_after >= total_before:
        return False
    return all(not before[i] or after[i] < before[i] for i in _SECTORS)


def _deltas(before: Sequence[int], after: Sequence[int]) -> list[int] | None:
    """How much each counter grew, across wraps; None for a device that was reset. The busy
    time (`io_ms`) is left as the plain difference, possibly negative, for the caller."""
    deltas = list(map(operator.sub, after, before))  # both hold the 17 counters
    deltas[_IN_FLIGHT] = 0
    if min(deltas) >= 0:
        return deltas  # the usual case: nothing went back
    if _was_reset(before, after):
        return None
    for i in _COUNTS:
        if deltas[i] < 0:
            grown = count_delta(before[i], after[i])
            if grown is None:
                return None
            deltas[i] = grown
    for i in _TIMES:
        deltas[i] %= TIME_WRAP
    return deltas


def _busy_ms(delta: int, itv: float) -> int:
    """Busy milliseconds from the plain difference of `io_ms`: across a 32-bit wrap, or 0 where
    the "wrap" is more than the interval could hold (the counter went back; sysstat 12.6 would
    print a %util in the millions)."""
    if delta >= 0:
        return delta
    delta %= TIME_WRAP
    return 0 if delta > itv * 10 * BUSY_SLACK else delta


def _new_figures(values: dict[str, float | bool | str]) -> DeviceFigures:
    """A `DeviceFigures` from every field's computed value, without per-field validation: the
    live sampler builds thousands a second (this is `model_construct` without its field loop)."""
    figures = object.__new__(DeviceFigures)
    object.__setattr__(figures, "__dict__", values)
    object.__setattr__(figures, "__pydantic_fields_set__", _FIGURE_NAMES)
    object.__setattr__(figures, "__pydantic_extra__", None)
    object.__setattr__(figures, "__pydantic_private__", None)
    return figures


def _quiet(device: str, *, reset: bool = False) -> DeviceFigures:
    """The figures of a device that did nothing (or was reset): zero rates, 100% idle."""
    return _new_figures({"device": device, **_FIGURE_DEFAULTS, "reset": reset})


def counter_figures(
    device: str, before: Sequence[int], after: Sequence[int], itv: float
) -> DeviceFigures:
    """One device's `iostat -x` figures from its 17 counters (kernel order, absent ones 0) in
    two samples `itv` hundredths of a second apart (itv > 0): the one implementation of
    sysstat's formulas, for samples of models and for the live sampler's raw tables."""
    deltas = _deltas(before, after)
    if deltas is None:
        return _quiet(device, reset=True)
    if not any(deltas):
        return _quiet(device)
    (rd, rd_merged, rd_sect, rd_ms, wr, wr_merged, wr_sect, wr_ms, _in_flight, busy_ms, queue_ms,
     dc, dc_merged, dc_sect, dc_ms, fl, fl_ms) = deltas  # fmt: skip
    util = _busy_ms(busy_ms, itv) / itv * 100 / 10.0
    return _new_figures(
        {
            "device": device,
            "r_s": rd / itv * 100,
            "w_s": wr / itv * 100,
            "d_s": dc / itv * 100,
            "f_s": fl / itv * 100,
            "rkb_s": rd_sect / itv * 100 / 2,
            "wkb_s": wr_sect / itv * 100 / 2,
            "dkb_s": dc_sect / itv * 100 / 2,
            "rrqm_s": rd_merged / itv * 100,
            "wrqm_s": wr_merged / itv * 100,
            "drqm_s": dc_merged / itv * 100,
            "rrqm_pct": rd_merged / (rd_merged + rd) * 100 if rd_merged + rd else 0.0,
            "wrqm_pct": wr_merged / (wr_merged + wr) * 100 if wr_merged + wr else 0.0,
            "drqm_pct": dc_merged / (dc_merged + dc) * 100 if dc_merged + dc else 0.0,
            "r_await": rd_ms / rd if rd else 0.0,
            "w_await": wr_ms / wr if wr else 0.0,
            "d_await": dc_ms / dc if dc else 0.0,
            "f_await": fl_ms / fl if fl else 0.0,
            "rareq_sz": rd_sect / rd / 2 if rd else 0.0,
            "wareq_sz": wr_sect / wr / 2 if wr else 0.0,
            "dareq_sz": dc_sect / dc / 2 if dc else 0.0,
            "aqu_sz": queue_ms / itv * 100 / 1000.0,
            "util": util,
            "idle": max(0.0, 100.0 - util),
            "reset": False,
        }
    )


def counter_load(
    before: Sequence[int], after: Sequence[int], itv: float
) -> tuple[float, float, float, float, float, float, float, float] | None:
    """What `counter_figures` gives for r/s, w/s, rkB/s, wkB/s, r_await, w_await, aqu-sz and
    %util (the same formulas), without the model: what the live sampler sums every second for
    every device. None for a device that was reset."""
    deltas = _deltas(before, after)
    if deltas is None:
        return None
    if not any(deltas):
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    rd, _, rd_sect, rd_ms, wr, _, wr_sect, wr_ms, _, busy_ms, queue_ms = deltas[:11]
    return (
        rd / itv * 100,
        wr / itv * 100,
        rd_sect / itv * 100 / 2,
        wr_sect / itv * 100 / 2,
        rd_ms / rd if rd else 0.0,
        wr_ms / wr if wr else 0.0,
        queue_ms / itv * 100 / 1000.0,
        _busy_ms(busy_ms, itv) / itv * 100 / 10.0,
    )


_LOAD_COUNTERS = tuple(c for c in range(COUNTERS) if c != _IN_FLIGHT)
_LOAD_FIGURES = (0, 2, 3, 4, 6, 7, _IO_MS, 10)  # the counters `counter_load` computes from


def _every(values: array[int]) -> array[int]:
    """Every value: the pick of all positions."""
    return values


def counter_load_columns(
    before: DiskstatsTable, after: DiskstatsTable, positions: Sequence[int], itv: float
) -> list[list[float]] | None:
    """`counter_load` of the devices at `positions` of two tables listing the same devices in
    the same order, column by column (r/s, w/s, rkB/s, wkB/s, r_await, w_await, aqu-sz, %util:
    each a list in the order of `positions`) — the same formulas, a list operation per
    counter instead of a call per device (the live sampler's 2,000 devices every second).
    None when a counter of any device went back (a wrap or a reset: `counter_load` then)."""
    if not positions:
        return [[] for _ in range(8)]
    old, new = before.numbers, after.numbers
    # itemgetter of one position would give the number, not a sequence: a slice then
    first = positions[0]
    pick: Callable[[array[int]], Sequence[int]]
    if positions == range(len(after.names)):  # every device, in order: nothing to pick
        pick = _every
    elif len(positions) > 1:
        pick = operator.itemgetter(*positions)
    else:
        pick = operator.itemgetter(slice(first, first + 1))
    deltas: dict[int, list[int]] = {}
    for counter in _LOAD_COUNTERS:
        start = 2 + counter
        now, then = new[start::ROW], old[start::ROW]
        if now == then:  # no device's count moved (an idle disk, an unused counter): a compare
            if counter in _LOAD_FIGURES:  # of two arrays, no number taken out of them
                deltas[counter] = [0] * len(positions)
            continue
        if counter not in _LOAD_FIGURES:  # only whether it went back, of any device
            if any(map(operator.lt, now, then)):
                return None
            continue
        grown = list(map(operator.sub, pick(now), pick(then)))
        if min(grown) < 0:
            return None
        deltas[counter] = grown
    rd, rd_sect, rd_ms, wr, wr_sect, wr_ms, busy_ms, queue_ms = (deltas[c] for c in _LOAD_FIGURES)
    # counter_load's expressions, each over the devices (a device that did nothing: zeros)
    return [
        [n / itv * 100 for n in rd],
        [n / itv * 100 for n in wr],
        [n / itv * 100 / 2 for n in rd_sect],
        [n / itv * 100 / 2 for n in wr_sect],
        [ms / n if n else 0.0 for ms, n in zip(rd_ms, rd, strict=True)],
        [ms / n if n else 0.0 for ms, n in zip(wr_ms, wr, strict=True)],
        [ms / itv * 100 / 1000.0 for ms in queue_ms],
        [ms / itv * 100 / 10.0 for ms in busy_ms],
    ]


def interval_figures(before: DiskstatsSample, after: DiskstatsSample) -> IntervalFigures:
    """Every device's `iostat -x` figures between two samples, partitions and dm maps included,
    in the order of the second sample; devices in one sample only are listed as appeared or
    vanished. A missing, zero or negative interval gives no figures and says why."""
    return _interval_figures(before, after, _sample_values(before), _sample_values(after))


def _sample_values(sample: DiskstatsSample) -> dict[str, tuple[int, ...]]:
    """Every device's 17 counters of one sample (see `_values`), by device name."""
    return {c.device: _values(c) for c in sample.devices}


def _interval_figures(
    before: DiskstatsSample,
    after: DiskstatsSample,
    previous: dict[str, tuple[int, ...]],
    current: dict[str, tuple[int, ...]],
) -> IntervalFigures:
    """`interval_figures` with each sample's counters already taken out (`_sample_values`), so
    a series takes them out once per sample rather than twice."""
    problems = [f"{p.line()}" for p in (*before.problems, *after.problems)]
    itv, clock = interval_centiseconds(before, after)
    appeared = [device for device in current if device not in previous]
    vanished = [device for device in previous if device not in current]
    if itv is None or itv <= 0:
        problems.append(_not_later(itv, clock) if itv is not None else f"no interval: {clock}")
        return IntervalFigures(
            interval_s=0.0, appeared=appeared, vanished=vanished, problems=problems
        )
    devices = [
        counter_figures(device, previous[device], values, itv)
        for device, values in current.items()
        if device in previous
    ]
    problems.extend(_resets(devices))
    return IntervalFigures.model_construct(
        interval_s=itv / 100,
        devices=devices,
        appeared=appeared,
        vanished=vanished,
        problems=problems,
    )


def _not_later(itv: float, clock: str) -> str:
    return (
        f"interval of {itv / 100:.2f} s by the {clock}: the second sample is not later "
        "than the first, so no rates can be computed"
    )


def _resets(devices: list[DeviceFigures]) -> list[str]:
    """The problem naming the devices whose counters went backwards, if any did."""
    resets = [f.device for f in devices if f.reset]
    if not resets:
        return []
    return [
        f"counters went backwards (device reset or replaced), figures left at zero: "
        f"{', '.join(resets)}"
    ]


def series_figures(samples: Sequence[DiskstatsSample]) -> list[IntervalFigures]:
    """The figures of each interval between consecutive samples of a series."""
    values = [_sample_values(sample) for sample in samples]
    return [
        _interval_figures(before, after, previous, current)
        for (before, previous), (after, current) in pairwise(zip(samples, values, strict=True))
    ]


def had_io(figures: DeviceFigures) -> bool:
    """Whether the device completed any I/O in the interval (what `iostat -z` keeps)."""
    return bool(figures.r_s or figures.w_s or figures.d_s or figures.f_s)


def is_partition(name: str, names: Iterable[str] | set[str]) -> bool:
    """Whether `name` is a partition of another device in `names`, by the kernel's naming:
    `sda1` of `sda`; `nvme0n1p1`, `mmcblk0p2`, `md0p1` of a disk whose name ends in a digit."""
    known = names if isinstance(names, set) else set(names)
    for end in range(len(name) - 1, 0, -1):
        parent, suffix = name[:end], name[end:]
        if parent not in known:
            continue
        if parent[-1].isdigit():
            if _P_NUMBERED.match(suffix):
                return True
        elif _NUMBERED.match(suffix):
            return True
    return False


def whole_devices(figures: IntervalFigures) -> list[DeviceFigures]:
    """The figures of whole devices only (what `iostat -x` shows without `-p`)."""
    names = {f.device for f in figures.devices}
    return [f for f in figures.devices if not is_partition(f.device, names)]


# -- the live sampler's raw tables (pinchpoint.checks.parse.diskstats) ---------------


def _appeared_and_vanished(
    before: DiskstatsTable, after: DiskstatsTable
) -> tuple[list[str], list[str]]:
    if before.names == after.names:
        return [], []
    appeared = [name for name in after.names if name not in before.index]
    vanished = [name for name in before.names if name not in after.index]
    return appeared, vanished


def table_interval_figures(
    before: DiskstatsTable, after: DiskstatsTable, names: Iterable[str] | None = None
) -> IntervalFigures:
    """What `interval_figures` gives for the same two samples, from raw tables: for the
    devices `names` (in that order; those missing from either table left out), or for every
    device in both (in the order of the second). Interval by the same clocks."""
    problems = [p.line() for p in (*before.problems, *after.problems)]
    appeared, vanished = _appeared_and_vanished(before, after)
    itv, clock = interval_centiseconds(before, after)
    if itv is None or itv <= 0:
        problems.append(_not_later(itv, clock) if itv is not None else f"no interval: {clock}")
        return IntervalFigures(
            interval_s=0.0, appeared=appeared, vanished=vanished, problems=problems
        )
    devices = []
    for name in after.names if names is None else names:
        old, new = before.index.get(name), after.index.get(name)
        if old is not None and new is not None:
            devices.append(counter_figures(name, before.counters(old), after.counters(new), itv))
    problems.extend(_resets(devices))
    return IntervalFigures.model_construct(
        interval_s=itv / 100,
        devices=devices,
        appeared=appeared,
        vanished=vanished,
        problems=problems,
    )


def table_series_figures(
    tables: Sequence[DiskstatsTable], leave_out: Container[str] = frozenset()
) -> list[IntervalFigures]:
    """The figures of each interval between consecutive tables of a series, as
    `series_figures` gives them for the same samples, without the devices in `leave_out`
    (partitions, which the caller already counts in their disk's line)."""
    found = []
    names: list[str] = []
    kept: list[str] = []
    for before, after in pairwise(tables):
        if after.names != names:  # a series usually lists the same devices throughout
            names = after.names
            kept = [name for name in names if name not in leave_out]
        found.append(table_interval_figures(before, after, kept))
    return found


def _column_deltas(
    before: DiskstatsTable,
    after: DiskstatsTable,
    counter: int,
    pairs: tuple[list[int], list[int]] | None,
) -> list[int]:
    """How much one counter changed for every device in both tables (plain differences)."""
    new, old = after.column(counter), before.column(counter)
    if pairs is None:
        return list(map(operator.sub, new, old))
    positions, rows = pairs
    return [new[i] - old[j] for i, j in zip(positions, rows, strict=True)]


def busiest_devices(
    before: DiskstatsTable,
    after: DiskstatsTable,
    top: int | None = None,
    *,
    partitions: bool = False,
) -> list[str]:
    """The devices of both tables that completed I/O in the interval (or were reset), busiest
    first, at most `top`: whole devices unless `partitions`. The order of `busiest` figures
    (by %util, then by r/s + w/s + d/s + f/s), found from whole counter columns without
    computing any figures: what the live sampler can afford every second.

    A device whose busy time or I/O counts went down is ranked by its exact deltas (wraps
    taken, a reset counting as no activity); only those five counters are looked at, so a
    device where another counter went back ranks by its activity and its figures say `reset`.
    """
    itv, _clock = interval_centiseconds(before, after)
    if itv is None or itv <= 0:
        return []
    if before.names == after.names:
        positions: Sequence[int] = range(len(after.names))
        pairs = None
    else:
        common = [i for i, name in enumerate(after.names) if name in before.index]
        rows = [before.index[after.names[i]] for i in common]
        positions, pairs = common, (common, rows)
    busy = _column_deltas(before, after, _IO_MS, pairs)
    ios = [_column_deltas(before, after, counter, pairs) for counter in _IOS]
    total = list(map(sum, zip(*ios, strict=True)))
    resets: list[int] = []
    if busy and (min(busy) < 0 or min(map(min, ios)) < 0):
        for k in [k for k in range(len(busy)) if busy[k] < 0 or min(d[k] for d in ios) < 0]:
            old = k if pairs is None else pairs[1][k]
            deltas = _deltas(before.counters(old), after.counters(positions[k]))
            if deltas is None:
                busy[k], total[k] = 0, 0
                resets.append(k)
            else:
                busy[k] = _busy_ms(deltas[_IO_MS], itv)
                total[k] = sum(deltas[i] for i in _IOS)
    candidates = sorted([*compress(range(len(total)), total), *resets])
    candidates.sort(key=total.__getitem__, reverse=True)  # two stable sorts: by busy time,
    candidates.sort(key=busy.__getitem__, reverse=True)  # then I/Os, then table order
    ranked = (after.names[positions[k]] for k in candidates)
    if not partitions:
        known = set(after.names)
        ranked = (name for name in ranked if not is_partition(name, known))
    return list(islice(ranked, top))
