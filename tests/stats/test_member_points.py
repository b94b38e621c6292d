"""The disks' points as columns (`MemberSeries`) are the points `HistogramSeries.add` makes of
the same values, to the last bit: means re-weighted by time or by I/Os, maxima, covered time,
histograms merged, NaN / infinite / negative / absent values left out; across buckets, with the
entities changing, in queries (the open bucket included) and once compacted."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind, Metric
from pinchpoint.stats.member_points import Histograms, MemberSeries
from pinchpoint.stats.series import HistogramSeries, RetentionPolicy, RetentionTier

POLICY = RetentionPolicy(
    tiers=[RetentionTier(resolution_s=10, keep_s=60), RetentionTier(resolution_s=60, keep_s=600)]
)
START = datetime(2026, 11, 26, 12, 0, 3, tzinfo=UTC)
DISKS = ["disk-a", "disk-b", "disk-c"]
HISTOGRAM = LatencyHistogram()
HISTOGRAM.record_ns(5_000, 3)
HISTOGRAM.record_ns(17_000)


def values(tick: int, slot: int) -> dict[Metric, float]:
    """A disk's values at a tick: varied, with a latency only when it did I/O, now and then a
    value that must be left out."""
    reads, writes = float((tick * 7 + slot * 3) % 5), float((tick + slot) % 3) * 1.5
    found = {
        Metric.READ_IOPS: reads,
        Metric.WRITE_IOPS: writes,
        Metric.READ_KBPS: reads * 4.1,
        Metric.QUEUE: 0.1 * tick + slot / 3,
        Metric.UTIL_PCT: math.nan if (tick, slot) == (4, 1) else 9.7 * slot + tick / 7,
    }
    if reads + writes:
        found[Metric.LATENCY_MS] = (tick + 1) / (slot + 3)
    if (tick, slot) == (5, 2):
        found[Metric.READ_KBPS] = -1.0  # a counter reset
        found[Metric.QUEUE] = math.inf
    return found


def histograms(tick: int, slot: int) -> Histograms:
    return {HistogramKind.READ: HISTOGRAM} if (tick + slot) % 4 == 0 else {}


def add_both(
    columns: MemberSeries, points: HistogramSeries, tick: int, disks: list[str], seconds: float
) -> None:
    at = START + timedelta(seconds=tick)
    entries = [(d, values(tick, DISKS.index(d)), histograms(tick, DISKS.index(d))) for d in disks]
    points.add_all(at, seconds, entries)
    metrics = dict.fromkeys(m for _, v, _ in entries for m in v)
    columns.add_columns(
        at,
        seconds,
        disks,
        {m: [v.get(m, math.nan) for _, v, _ in entries] for m in metrics},
        [h for _, _, h in entries],
    )


def test_columns_make_the_points_add_makes() -> None:
    columns, points = MemberSeries(POLICY), HistogramSeries(policy=POLICY)
    for tick in range(25):  # three buckets of 10 s
        add_both(columns, points, tick, DISKS, 1.0 if tick % 6 else 0.9)
    end = START + timedelta(seconds=30)
    for disk in DISKS:
        mine, theirs = columns.query(disk, START, end), points.query(disk, START, end)
        assert mine == theirs
        assert len(mine.points) == 3 and mine.resolution_s == 10
    assert columns.entities() == points.entities() == DISKS
    assert columns.query("disk-b", START, end).points[0].values[Metric.UTIL_PCT] > 0
    assert HistogramKind.READ in columns.query("disk-a", START, end).points[0].histograms
    assert columns.next_expiry_s() == points.next_expiry_s()
    later = START + timedelta(seconds=95)  # the first two buckets rolled up into a minute
    columns.add_columns(later, 1.0, [], {})  # the open bucket kept as points
    columns.compact(later)
    points.compact(later)
    for disk in DISKS:
        assert columns.query(disk, START, later) == points.query(disk, START, later)


def test_entities_changing_within_a_bucket() -> None:
    columns, points = MemberSeries(POLICY), HistogramSeries(policy=POLICY)
    for tick in range(4):
        add_both(columns, points, tick, DISKS, 1.0)
    for tick in range(4, 7):  # a disk gone: a new plan, in the same bucket
        add_both(columns, points, tick, ["disk-c", "disk-a"], 1.0)
    end = START + timedelta(seconds=10)
    for disk in DISKS:
        mine, theirs = columns.query(disk, START, end), points.query(disk, START, end)
        assert mine.resolution_s == theirs.resolution_s == 10
        (one,), (other,) = mine.points, theirs.points
        assert one.covered_s == other.covered_s
        assert one.maxima == other.maxima and one.weights.keys() == other.weights.keys()
        for metric, mean in one.values.items():  # combined rather than folded: to rounding
            assert math.isclose(mean, other.values[metric], rel_tol=1e-12, abs_tol=1e-12)
            assert math.isclose(one.weights[metric], other.weights[metric], rel_tol=1e-12)


def test_a_query_leaves_the_open_bucket_as_it_is() -> None:
    columns = MemberSeries(POLICY)
    seen = HistogramSeries(policy=POLICY)
    add_both(columns, seen, 0, DISKS, 1.0)
    first = columns.query("disk-a", START, START + timedelta(seconds=10))
    first.points[0].values[Metric.QUEUE] = 99.0  # the caller's copy
    add_both(columns, seen, 1, DISKS, 1.0)
    end = START + timedelta(seconds=10)
    assert columns.query("disk-a", START, end) == seen.query("disk-a", START, end)
    assert columns.query("disk-z", START, end).resolution_s is None
