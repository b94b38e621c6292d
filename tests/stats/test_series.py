"""The histogram time series: age-coarsening retention, exact roll-ups, queries (fake clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from pinchpoint.model.histogram import LatencyHistogram, merged
from pinchpoint.model.stats import HistogramKind, Metric
from pinchpoint.stats.series import (
    HistogramSeries,
    RetentionPolicy,
    RetentionTier,
    SeriesQuery,
)

T0 = datetime(2026, 11, 23, 10, 0, 0, tzinfo=UTC)
DISK = "disk:naa.5000cca5488507cc"


def histogram_ms(*latencies_ms: float) -> LatencyHistogram:
    histogram = LatencyHistogram()
    for value in latencies_ms:
        histogram.record_seconds(value / 1000)
    return histogram


def small_policy() -> RetentionPolicy:
    """10 s points kept 1 min, 1 min points kept 5 min, 5 min points kept 1 h."""
    return RetentionPolicy(
        tiers=[
            RetentionTier(resolution_s=10, keep_s=60),
            RetentionTier(resolution_s=60, keep_s=300),
            RetentionTier(resolution_s=300, keep_s=3600),
        ]
    )


def test_the_default_policy_is_one_second_an_hour_one_minute_a_week_one_hour_a_year() -> None:
    tiers = RetentionPolicy().tiers
    assert [(t.resolution_s, t.keep_s) for t in tiers] == [
        (1, 3600),
        (60, 7 * 86400),
        (3600, 365 * 86400),
    ]


@pytest.mark.parametrize(
    ("tiers", "message"),
    [
        ([(60, 600), (10, 6000)], "resolutions must increase"),
        ([(10, 600), (10, 6000)], "resolutions must increase"),
        ([(10, 600), (25, 6000)], "each resolution must divide the next"),
        ([(10, 600), (60, 600)], "must keep its points longer"),
        ([(60, 30)], "must keep them at least"),
        ([(0, 30)], "greater than 0"),
        ([], "at least 1"),
    ],
)
def test_a_bad_policy_is_refused_with_a_clear_message(
    tiers: list[tuple[int, int]], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        RetentionPolicy(tiers=[RetentionTier(resolution_s=r, keep_s=k) for r, k in tiers])


def test_a_new_point_lands_in_the_finest_tier() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(DISK, T0 + timedelta(seconds=3), 1.0, {Metric.QUEUE: 2.0})
    assert list(series.tiers[0].points[DISK]) == [int(T0.timestamp())]
    assert series.tiers[1].points == {} and series.tiers[2].points == {}
    assert series.entities() == [DISK]


def test_compaction_rolls_old_points_into_coarser_buckets_exactly() -> None:
    series = HistogramSeries(policy=small_policy())
    histograms = []
    for second in range(0, 120, 10):  # twelve 10 s points over two minutes
        histogram = histogram_ms(second + 1.0, 250.0)
        histograms.append(histogram)
        series.add(
            DISK,
            T0 + timedelta(seconds=second),
            10.0,
            {Metric.READ_IOPS: 100.0 + second, Metric.QUEUE: float(second)},
            {HistogramKind.READ: histogram},
        )
    series.compact(T0 + timedelta(seconds=180))  # both minutes ended ≥ 60 s ago
    assert series.tiers[0].points == {}
    minutes = series.tiers[1].points[DISK]
    assert sorted(minutes) == [int(T0.timestamp()), int(T0.timestamp()) + 60]
    first = minutes[int(T0.timestamp())]
    assert first.resolution_s == 60 and first.covered_s == 60.0
    assert first.histograms[HistogramKind.READ] == merged(histograms[:6])
    assert first.values[Metric.QUEUE] == pytest.approx(sum(range(0, 60, 10)) / 6)
    assert first.maxima[Metric.QUEUE] == 50.0
    assert first.values[Metric.READ_IOPS] == pytest.approx(100.0 + 25.0)


def test_latency_means_are_weighted_by_the_ios_they_timed() -> None:
    series = HistogramSeries(policy=small_policy())
    busy = {Metric.READ_IOPS: 900.0, Metric.READ_LATENCY_MS: 10.0, Metric.QUEUE: 9.0}
    quiet = {Metric.READ_IOPS: 100.0, Metric.READ_LATENCY_MS: 50.0, Metric.QUEUE: 1.0}
    series.add(DISK, T0, 10.0, busy)
    series.add(DISK, T0 + timedelta(seconds=10), 10.0, quiet)
    series.compact(T0 + timedelta(seconds=200))
    minute = series.tiers[1].points[DISK][int(T0.timestamp())]
    assert minute.values[Metric.READ_LATENCY_MS] == pytest.approx(14.0)  # (900·10+100·50)/1000
    assert minute.values[Metric.QUEUE] == pytest.approx(5.0)  # time-weighted
    assert minute.values[Metric.READ_IOPS] == pytest.approx(500.0)
    assert minute.maxima[Metric.READ_LATENCY_MS] == 50.0


def test_roll_ups_cascade_and_the_oldest_points_are_dropped() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(DISK, T0, 10.0, {Metric.QUEUE: 1.0}, {HistogramKind.READ: histogram_ms(5.0)})
    series.compact(T0 + timedelta(seconds=400))  # past 10 s and 1 min tiers at once
    assert series.tiers[0].points == {} and series.tiers[1].points == {}
    five_minutes = series.tiers[2].points[DISK][int(T0.timestamp())]
    assert five_minutes.histograms[HistogramKind.READ].count == 1
    series.compact(T0 + timedelta(seconds=300 + 3600))
    assert series.entities() == []


def test_compaction_keeps_points_that_are_still_young() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(DISK, T0, 10.0, {Metric.QUEUE: 1.0})
    series.compact(T0 + timedelta(seconds=69))  # the bucket ended 59 s ago: keep it
    assert DISK in series.tiers[0].points
    series.compact(T0 + timedelta(seconds=70))
    assert DISK not in series.tiers[0].points and DISK in series.tiers[1].points


def test_compacting_in_steps_equals_compacting_once() -> None:
    def filled() -> HistogramSeries:
        series = HistogramSeries(policy=small_policy())
        for second in range(0, 600, 10):
            series.add(
                DISK,
                T0 + timedelta(seconds=second),
                10.0,
                {Metric.WRITE_IOPS: float(second % 70), Metric.WRITE_LATENCY_MS: 3.0},
                {HistogramKind.WRITE: histogram_ms(float(second % 90) + 0.5)},
            )
        return series

    once = filled()
    once.compact(T0 + timedelta(seconds=1200))
    stepwise = filled()
    for second in range(0, 1201, 37):
        stepwise.compact(T0 + timedelta(seconds=second))
    stepwise.compact(T0 + timedelta(seconds=1200))
    for a, b in zip(once.tiers, stepwise.tiers, strict=True):
        assert a.points.keys() == b.points.keys()
        for entity, points in a.points.items():
            assert points.keys() == b.points[entity].keys()
            for start, point in points.items():
                other = b.points[entity][start]
                assert point.histograms == other.histograms
                assert point.covered_s == other.covered_s
                for metric, value in point.values.items():
                    assert other.values[metric] == pytest.approx(value)


def test_a_query_answers_at_the_finest_resolution_covering_the_range() -> None:
    series = HistogramSeries(policy=small_policy())
    for second in range(0, 240, 10):
        series.add(DISK, T0 + timedelta(seconds=second), 10.0, {Metric.QUEUE: 1.0})
    now = T0 + timedelta(seconds=240)
    series.compact(now)  # the first three minutes are rolled up, the last stays fine
    recent = series.query(DISK, now - timedelta(seconds=50), now)
    assert recent.resolution_s == 10
    assert len(recent.points) == 5
    everything = series.query(DISK, T0, now)
    assert everything.resolution_s == 60
    assert [p.start_s - int(T0.timestamp()) for p in everything.points] == [0, 60, 120, 180]
    assert sum(p.covered_s for p in everything.points) == 240.0
    # querying re-buckets copies: the stored points stay as they were
    assert len(series.tiers[0].points[DISK]) == 6


def test_a_query_with_nothing_kept_says_so() -> None:
    series = HistogramSeries(policy=small_policy())
    assert series.query("disk:nothing", T0, T0 + timedelta(hours=1)) == SeriesQuery(
        entity="disk:nothing", resolution_s=None
    )


def test_bad_values_are_left_out_never_negative() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(
        DISK,
        T0,
        -5.0,  # a zero-length or backwards interval
        {Metric.READ_IOPS: -3.0, Metric.QUEUE: float("nan"), Metric.UTIL_PCT: float("inf")},
    )
    series.add(DISK, T0 + timedelta(seconds=1), 10.0, {Metric.QUEUE: 4.0})
    point = series.tiers[0].points[DISK][int(T0.timestamp())]
    assert point.values == {Metric.QUEUE: 4.0}
    assert point.covered_s == 10.0


def test_naive_times_are_taken_as_utc() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(DISK, T0.replace(tzinfo=None), 1.0, {Metric.QUEUE: 1.0})
    assert list(series.tiers[0].points[DISK]) == [int(T0.timestamp())]


def test_the_series_survives_a_json_round_trip() -> None:
    series = HistogramSeries(policy=small_policy())
    series.add(DISK, T0, 10.0, {Metric.QUEUE: 1.0}, {HistogramKind.READ: histogram_ms(1.0, 300)})
    series.compact(T0 + timedelta(seconds=100))
    again = HistogramSeries.model_validate_json(series.model_dump_json())
    assert again == series
    assert again.query(DISK, T0, T0 + timedelta(minutes=1)).points[0].start == T0


def test_stored_tiers_must_match_the_policy() -> None:
    stored = HistogramSeries(policy=small_policy()).model_dump()
    stored["policy"] = RetentionPolicy().model_dump()
    with pytest.raises(ValidationError, match="do not match the retention policy"):
        HistogramSeries.model_validate(stored)
