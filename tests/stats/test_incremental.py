"""The live sampler's incremental breakdown gives, tick by tick, what the full breakdown of the
same interval gives: the same groups in the same order, the same values (summed in the same
order, so equal to the last bit on CPython 3.11; compared to 1e-12 for later versions' `sum`)
and the same merged histograms — on the demo host (SAS fabric, FC LUNs, zpool histograms) and
with the plan kept across ticks and rebuilt when the devices change."""

from __future__ import annotations

import math

import pytest
from demo_host import shared_demo_root

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import ImportedStats, IntervalFigures
from pinchpoint.service.sampling import SAMPLED_LEVELS
from pinchpoint.stats.gather import gather_statistics
from pinchpoint.stats.incremental import GroupTick, TickAggregator, full_tick

SLOWER_S = 0.22


@pytest.fixture(scope="module")
def snapshot() -> SnapshotSource:
    return SnapshotSource(shared_demo_root())


@pytest.fixture(scope="module")
def demo(
    snapshot: SnapshotSource,
) -> tuple[Inventory, list[IntervalFigures], list[ImportedStats]]:
    inventory = collect_inventory(snapshot)
    gathered = gather_statistics(snapshot, inventory, live=False, network=False)
    return inventory, gathered.intervals, gathered.imported


def same(incremental: list[GroupTick], full: list[GroupTick]) -> None:
    assert [(g.level, g.id, g.name) for g in incremental] == [(g.level, g.id, g.name) for g in full]
    for mine, theirs in zip(incremental, full, strict=True):
        assert mine.values.keys() == theirs.values.keys(), mine.id
        assert mine.values == pytest.approx(theirs.values, rel=1e-12, abs=1e-12), mine.id
        assert mine.iops == pytest.approx(theirs.iops, rel=1e-12, abs=1e-12)
        assert mine.histogram == theirs.histogram, mine.id


def test_every_tick_equals_the_full_breakdown(
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    inventory, intervals, _ = demo
    aggregator = TickAggregator(inventory, SAMPLED_LEVELS)
    assert len(intervals) >= 6
    for interval in [*intervals, *intervals]:  # twice: the plan is kept across ticks
        found = aggregator.tick(interval)
        assert found is not None
        assert len(found) > 100  # disks, LUNs, enclosures, chains, ports, HBAs
        same(found, full_tick(inventory, interval, [], SAMPLED_LEVELS, SLOWER_S))
    assert aggregator.plans_built == 1


def test_histograms_of_a_tick_are_merged_as_the_breakdown_merges_them(
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    inventory, intervals, imported = demo
    with_histograms = [i for i in imported if any(e.histograms for e in i.entities)]
    assert with_histograms, "the demo carries zpool histograms"
    histograms_only = [
        i.model_copy(update={"entities": [e for e in i.entities if not e.points]})
        for i in with_histograms
    ]
    found = TickAggregator(inventory, SAMPLED_LEVELS).tick(intervals[0], histograms_only)
    assert found is not None and any(g.histogram is not None for g in found)
    same(found, full_tick(inventory, intervals[0], histograms_only, SAMPLED_LEVELS, SLOWER_S))


def test_other_devices_make_a_new_plan_and_resets_go_to_the_full_breakdown(
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    inventory, intervals, _ = demo
    aggregator = TickAggregator(inventory, SAMPLED_LEVELS)
    fewer = intervals[1].model_copy(update={"devices": intervals[1].devices[5:]})
    for interval in (intervals[0], fewer, intervals[2]):
        found = aggregator.tick(interval)
        assert found is not None
        same(found, full_tick(inventory, interval, [], SAMPLED_LEVELS, SLOWER_S))
    assert aggregator.plans_built == 3
    first = intervals[0].devices[0]
    reset = type(first).model_construct(**{**first.__dict__, "reset": True})
    broken = intervals[0].model_copy(update={"devices": [reset, *intervals[0].devices[1:]]})
    assert aggregator.tick(broken) is None


def test_a_point_folded_in_is_the_point_made_and_combined() -> None:
    from pinchpoint.model.histogram import LatencyHistogram
    from pinchpoint.model.stats import HistogramKind, Metric
    from pinchpoint.stats.series import SeriesPoint, combine_into, fold_into, new_point

    made, folded = SeriesPoint(start_s=0, resolution_s=10), SeriesPoint(start_s=0, resolution_s=10)
    histogram = LatencyHistogram.from_counts({5: 3, 9: 1}, 4000, 30, 900)
    for step in range(4):
        values = {
            Metric.READ_IOPS: 10.0 + step,
            Metric.WRITE_IOPS: 0.0 if step == 2 else 3.5,
            Metric.LATENCY_MS: 1.25 * step,
            Metric.QUEUE: float("nan") if step == 1 else 0.5,
            Metric.UTIL_PCT: -1.0 if step == 3 else 40.0,
        }
        kinds = {HistogramKind.READ: histogram}
        combine_into(made, new_point(0, 10, 0.97, values, kinds))
        fold_into(folded, 0.97, values, kinds)
    assert folded == made
    assert folded.model_dump_json() == made.model_dump_json()


def test_compacting_only_when_a_point_is_due_keeps_what_compacting_every_tick_keeps() -> None:
    from datetime import UTC, datetime, timedelta

    from pinchpoint.model.stats import Metric
    from pinchpoint.service.sampling import member_policy
    from pinchpoint.stats.series import HistogramSeries

    policy = member_policy()
    series, every_time = HistogramSeries(policy=policy), HistogramSeries(policy=policy)
    start = datetime(2026, 11, 26, 12, tzinfo=UTC)
    due = float("inf")
    for second in range(0, 1500, 7):  # as `StatsSampler._keep` does
        now = start + timedelta(seconds=second)
        for kept in (series, every_time):
            kept.add("disk:a", now, 1.0, {Metric.READ_IOPS: float(second)})
        due = min(due, now.timestamp() + policy.tiers[0].keep_s)
        if now.timestamp() >= due:
            series.compact(now)
            due = series.next_expiry_s()
        every_time.compact(now)
        assert series.query("disk:a", start, now) == every_time.query("disk:a", start, now)
    series.compact(now)
    assert series == every_time
    assert series.tiers[1].points  # older points went to the minute tier


def test_a_live_tick_from_raw_counters_equals_the_tick_of_their_figures(
    snapshot: SnapshotSource,
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    from itertools import pairwise

    from pinchpoint.checks.collect.diskstats import read_table_series
    from pinchpoint.stats.iostat import counter_load, table_series_figures

    inventory, _, _ = demo
    partitions = frozenset(p.name for d in inventory.block.devices for p in d.partitions)
    tables = read_table_series(snapshot)
    aggregator = TickAggregator(inventory, SAMPLED_LEVELS)
    for before, after in pairwise(tables):
        interval = table_series_figures([before, after], leave_out=partitions)[0]
        for figures in interval.devices:  # the same formulas, without the model
            load = counter_load(
                before.counters(before.index[figures.device]),
                after.counters(after.index[figures.device]),
                interval.interval_s * 100,
            )
            wanted = (figures.r_s, figures.w_s, figures.rkb_s, figures.wkb_s)
            wanted += (figures.r_await, figures.w_await, figures.aqu_sz, figures.util)
            assert load == wanted
        quick = aggregator.tick_tables(before, after, partitions)
        assert quick is not None and quick[1] == interval.interval_s
        same(quick[0], full_tick(inventory, interval, [], SAMPLED_LEVELS, SLOWER_S))


def test_a_counter_gone_back_in_a_live_tick_is_summed_device_by_device(
    snapshot: SnapshotSource,
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    """The column-by-column sums of a live tick stop at a counter that went back (a 32-bit
    time wrapping) and the tick is summed device by device, as the figures are."""
    from dataclasses import replace

    from pinchpoint.checks.collect.diskstats import read_table_series
    from pinchpoint.checks.parse.diskstats import ROW
    from pinchpoint.stats.iostat import counter_load_columns, table_series_figures

    inventory, _, _ = demo
    partitions = frozenset(p.name for d in inventory.block.devices for p in d.partitions)
    before, after = read_table_series(snapshot)[:2]
    busy = next(at for at, name in enumerate(after.names) if name not in partitions)
    numbers = after.numbers[:]
    numbers[busy * ROW + 2 + 3] = 5  # read milliseconds: below the earlier count, a wrap
    wrapped = replace(after, numbers=numbers)
    assert counter_load_columns(before, wrapped, [busy], 100.0) is None
    interval = table_series_figures([before, wrapped], leave_out=partitions)[0]
    quick = TickAggregator(inventory, SAMPLED_LEVELS).tick_tables(before, wrapped, partitions)
    assert quick is not None and quick[1] == interval.interval_s
    same(quick[0], full_tick(inventory, interval, [], SAMPLED_LEVELS, SLOWER_S))


def test_a_live_tick_with_the_disks_as_columns_gives_the_same_values(
    snapshot: SnapshotSource,
    demo: tuple[Inventory, list[IntervalFigures], list[ImportedStats]],
) -> None:
    """The disks and LUNs as columns (what the live sampler keeps) hold, to the last bit, the
    values of their groups in a tick of groups (NaN where a group has no value), and the other
    groups are that tick's others."""
    from itertools import pairwise

    from pinchpoint.checks.collect.diskstats import read_table_series
    from pinchpoint.service.sampling import MEMBER_LEVELS

    inventory, _, _ = demo
    partitions = frozenset(p.name for d in inventory.block.devices for p in d.partitions)
    aggregator = TickAggregator(inventory, SAMPLED_LEVELS)
    for before, after in pairwise(read_table_series(snapshot)):
        whole = aggregator.tick_tables(before, after, partitions)
        split = aggregator.tick_tables_columns(before, after, partitions, [], MEMBER_LEVELS)
        assert whole is not None and split is not None
        groups, members, seconds = split
        assert members is not None and seconds == whole[1]
        assert groups == [g for g in whole[0] if g.level not in MEMBER_LEVELS]
        ticks = {g.id: g for g in whole[0] if g.level in MEMBER_LEVELS}
        assert sorted(members.ids) == sorted(ticks) and len(ticks) > 300
        assert GroupLevel.DISK in members.levels
        for at, entity in enumerate(members.ids):
            tick = ticks[entity]
            assert (members.levels[at], members.names[at]) == (tick.level, tick.name)
            for metric, column in members.values.items():
                value = tick.values.get(metric)
                if value is None:
                    assert math.isnan(column[at]), (entity, metric)
                else:
                    assert column[at] == value, (entity, metric)
            assert set(tick.values) <= set(members.values)
