"""The disks' points as columns (`MemberSeries`) are the points `HistogramSeries.add` makes of
the same values, to the last bit: means re-weighted by time or by I/Os, maxima, covered time,
histograms merged, NaN / infinite / negative / absent values left out; across buckets, with the
entities changing, in queries (the open bucket included) and once compacted."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

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


# Any value a column can carry: ordinary, zero of either sign, huge, NaN, infinite, negative.
VALUES = st.one_of(
    st.floats(0.0, 1e6),
    st.sampled_from([0.0, -0.0, 1e300, math.nan, math.inf, -math.inf, -1.0]),
)
METRICS = [Metric.READ_IOPS, Metric.WRITE_IOPS, Metric.QUEUE, Metric.LATENCY_MS]


@settings(max_examples=150, deadline=None)
@given(
    ticks=st.lists(
        st.tuples(
            st.one_of(st.floats(-1.0, 5.0), st.just(0.0)),  # the time covered, finite
            st.lists(st.lists(VALUES, min_size=4, max_size=4), min_size=3, max_size=3),
        ),
        min_size=1,
        max_size=12,
    ),
    absent=st.sets(st.sampled_from(METRICS)),
)
@example(ticks=[(1.0, [[-0.0, 1.0, -0.0, -0.0]] * 3)] * 2, absent=set())  # -0.0 + -0.0 is -0.0
def test_sums_divided_when_read_are_the_means_folded_point_by_point(
    ticks: list[tuple[float, list[list[float]]]], absent: set[Metric]
) -> None:
    """The columns' Σ value × weight and Σ weight, divided only when a point is read, give the
    means `fold_into` gives point by point into a bucket keeping its sums (`add_all`), to the
    last bit: NaN, infinite and negative values left out, weights of no I/O or no time, a
    first value kept as it is, latencies weighted by the I/Os of both directions (a direction
    absent from every tick counts none)."""
    columns, points = MemberSeries(POLICY), HistogramSeries(policy=POLICY)
    for tick, (seconds, rows) in enumerate(ticks):
        at = START + timedelta(seconds=tick % 7)  # one bucket
        metrics = [m for m in METRICS if m not in absent]
        entries = [
            (disk, {m: row[METRICS.index(m)] for m in metrics}, {})
            for disk, row in zip(DISKS, rows, strict=True)
        ]
        points.add_all(at, seconds, entries)
        columns.add_columns(
            at, seconds, DISKS, {m: [row[METRICS.index(m)] for row in rows] for m in metrics}
        )
    end = START + timedelta(seconds=10)
    for disk in DISKS:
        mine, theirs = columns.query(disk, START, end), points.query(disk, START, end)
        assert mine == theirs
        for got, wanted in zip(mine.points, theirs.points, strict=True):  # the zeros' signs too
            assert sorted(got.values.items()) == sorted(wanted.values.items())
            assert [repr(got.values[m]) for m in got.values] == [
                repr(wanted.values[m]) for m in got.values
            ]


def test_a_bucket_keeping_its_sums_divides_them_and_a_stored_one_its_means() -> None:
    """A bucket being filled holds Σ value × weight / Σ weight of what was folded in (added
    left to right); a bucket combined from its means re-weights the mean it holds."""
    kept = HistogramSeries(policy=POLICY)
    folded = HistogramSeries(policy=POLICY)
    steps = [(0.3, 1.1), (0.7, 2.9), (0.1, 0.7), (0.9, 1.3)]  # (value, seconds)
    for value, seconds in steps:
        kept.add_all(START, seconds, [("disk-a", {Metric.QUEUE: value}, {})])
        folded.add("disk-a", START, seconds, {Metric.QUEUE: value})
    total = weight = 0.0
    for value, seconds in steps:
        total += value * seconds
        weight += seconds
    start = int(START.timestamp()) // 10 * 10
    assert kept.tiers[0].points["disk-a"][start].values[Metric.QUEUE] == total / weight
    mean, behind = steps[0]
    for value, seconds in steps[1:]:
        mean = (mean * behind + value * seconds) / (behind + seconds)
        behind += seconds
    assert folded.tiers[0].points["disk-a"][start].values[Metric.QUEUE] == mean
    assert kept.tiers[0].points["disk-a"][start].weights == {Metric.QUEUE: weight}
