"""Properties of the one latency histogram every source converts to (pinchpoint.model.histogram).

Merging must be exact (a JBOD from its disks, an hour from its seconds), percentiles must
behave, and bucket widths must stay within the promised 12.5%.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pinchpoint.model.histogram import (
    BUCKET_COUNT,
    HIGHEST_NS,
    LOWEST_NS,
    OVERFLOW_BUCKET,
    UNDERFLOW_BUCKET,
    LatencyHistogram,
    bucket_bounds_ns,
    bucket_index,
    merged,
    range_midpoint_ns,
    seconds_to_ns,
)

# Latencies from 0 ns to beyond the last octave (300 s), dense in the µs–s range that matters.
latencies_ns = st.one_of(
    st.integers(min_value=0, max_value=HIGHEST_NS * 2),
    st.integers(min_value=LOWEST_NS, max_value=10 * 1_000_000_000),
)
value_lists = st.lists(latencies_ns, max_size=60)
percents = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)


def histogram_of(values: list[int]) -> LatencyHistogram:
    histogram = LatencyHistogram()
    for value in values:
        histogram.record_ns(value)
    return histogram


@given(value_lists, value_lists)
def test_merge_is_commutative(a: list[int], b: list[int]) -> None:
    assert merged([histogram_of(a), histogram_of(b)]) == merged([histogram_of(b), histogram_of(a)])


@given(value_lists, value_lists, value_lists)
def test_merge_is_associative(a: list[int], b: list[int], c: list[int]) -> None:
    left = merged([merged([histogram_of(a), histogram_of(b)]), histogram_of(c)])
    right = merged([histogram_of(a), merged([histogram_of(b), histogram_of(c)])])
    assert left == right


@given(st.lists(value_lists, max_size=6))
def test_merge_equals_recording_everything_into_one(parts: list[list[int]]) -> None:
    everything = [value for part in parts for value in part]
    assert merged(histogram_of(part) for part in parts) == histogram_of(everything)


@given(value_lists)
def test_merging_leaves_the_inputs_alone(values: list[int]) -> None:
    part = histogram_of(values)
    before = part.model_copy(deep=True)
    total = merged([part, part])
    assert part == before
    assert total.count == 2 * part.count


@given(st.lists(latencies_ns, min_size=1, max_size=60), percents, percents)
def test_percentiles_are_monotone_and_within_min_and_max(
    values: list[int], p: float, q: float
) -> None:
    histogram = histogram_of(values)
    low_q, high_q = sorted((p, q))
    low = histogram.percentile_s(low_q)
    high = histogram.percentile_s(high_q)
    assert low is not None and high is not None
    assert low <= high
    smallest, largest = min(values) / 1e9, max(values) / 1e9
    assert smallest - 1e-12 <= low <= largest + 1e-12
    assert smallest - 1e-12 <= high <= largest + 1e-12


@given(st.lists(latencies_ns, min_size=1, max_size=60))
def test_the_hundredth_percentile_is_the_maximum(values: list[int]) -> None:
    histogram = histogram_of(values)
    assert histogram.percentile_s(100.0) == max(values) / 1e9


@given(latencies_ns)
def test_bucket_bounds_contain_their_values(value: int) -> None:
    index = bucket_index(value)
    assert 0 <= index < BUCKET_COUNT
    low, high = bucket_bounds_ns(index)
    assert low <= value
    assert high is None or value < high


def test_every_bucket_is_at_most_an_eighth_wide_and_they_tile_the_range() -> None:
    previous_high = 0
    for index in range(BUCKET_COUNT):
        low, high = bucket_bounds_ns(index)
        assert low == previous_high  # no gaps, no overlaps
        if index not in (UNDERFLOW_BUCKET, OVERFLOW_BUCKET):
            assert high is not None
            assert (high - low) / low <= 0.125
            assert bucket_index(low) == index and bucket_index(high - 1) == index
        previous_high = high if high is not None else previous_high
    assert bucket_bounds_ns(OVERFLOW_BUCKET) == (HIGHEST_NS, None)


@given(st.lists(latencies_ns, min_size=1, max_size=60), st.floats(0, 400), st.floats(0, 400))
def test_share_above_falls_as_the_threshold_rises(values: list[int], a: float, b: float) -> None:
    histogram = histogram_of(values)
    lower, higher = sorted((a, b))
    share_low = histogram.share_above(lower)
    share_high = histogram.share_above(higher)
    assert share_low is not None and share_high is not None
    assert 0.0 <= share_high <= share_low <= 1.0


@given(st.lists(latencies_ns, min_size=1, max_size=60), st.floats(0, 400))
def test_share_above_is_exact_outside_the_thresholds_bucket(values: list[int], t: float) -> None:
    """Values in buckets wholly above (below) the threshold count fully (not at all)."""
    histogram = histogram_of(values)
    threshold = seconds_to_ns(t)
    low, high = bucket_bounds_ns(bucket_index(threshold))
    surely_slower = sum(1 for v in values if bucket_index(v) > bucket_index(threshold))
    possibly_slower = surely_slower + sum(
        1 for v in values if low <= v and (high is None or v < high)
    )
    share = histogram.share_above(t)
    assert share is not None
    count = share * len(values)
    assert surely_slower - 1e-9 <= count <= possibly_slower + 1e-9


@given(value_lists)
def test_json_round_trip(values: list[int]) -> None:
    histogram = histogram_of(values)
    text = histogram.model_dump_json()
    assert LatencyHistogram.model_validate_json(text) == histogram
    assert LatencyHistogram.model_validate(json.loads(text)) == histogram


def test_an_empty_histogram_answers_none() -> None:
    empty = LatencyHistogram()
    assert empty.empty
    assert empty.mean_s() is None
    assert empty.min_s() is None and empty.max_s() is None
    assert empty.percentile_s(99.0) is None
    assert empty.share_above(0.22) is None
    assert empty.count_above(0.22) == 0.0
    assert empty.buckets() == []
    assert merged([]) == empty
    assert merged([empty, empty]) == empty


@given(value_lists)
def test_merging_an_empty_histogram_changes_nothing(values: list[int]) -> None:
    histogram = histogram_of(values)
    assert merged([histogram, LatencyHistogram()]) == histogram


def test_zero_and_negative_counts_are_ignored() -> None:
    histogram = LatencyHistogram()
    histogram.record_ns(5_000_000, count=0)
    histogram.record_ns(5_000_000, count=-3)
    assert histogram.empty


@settings(max_examples=50)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_in_seconds_records_without_crashing(value: float) -> None:
    histogram = LatencyHistogram()
    histogram.record_seconds(value)
    assert histogram.count == 1
    recorded = histogram.max_ns
    assert recorded is not None and recorded >= 0
    if math.isnan(value) or value <= 0:
        assert recorded == 0


def test_the_mean_is_exact_when_recorded_from_values() -> None:
    histogram = histogram_of([1_000_000, 3_000_000])
    assert histogram.mean_s() == 0.002
    assert histogram.percentile_s(50.0) is not None


@given(st.integers(min_value=2, max_value=10_000), st.integers(LOWEST_NS, 10**10))
def test_a_bucket_recorded_many_times_keeps_percentiles_inside_it(count: int, value: int) -> None:
    histogram = LatencyHistogram()
    histogram.record_ns(value, count)
    for percent in (0.0, 50.0, 99.0, 100.0):
        result = histogram.percentile_s(percent)
        assert result == value / 1e9


@pytest.mark.parametrize(
    ("counts", "message"),
    [({999: 1}, "bucket 999 is outside"), ({-1: 1}, "bucket -1 is outside"), ({5: -2}, "negative")],
)
def test_a_stored_histogram_with_foreign_buckets_is_refused(
    counts: dict[int, int], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        LatencyHistogram.model_validate({"counts": counts, "count": 1})


def test_empty_buckets_of_a_stored_histogram_are_dropped() -> None:
    assert LatencyHistogram.model_validate({"counts": {5: 0, 6: 2}, "count": 2}).counts == {6: 2}


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 10_000)), max_size=40))
def test_from_counts_equals_recording_the_ranges_one_by_one(rows: list[tuple[int, int]]) -> None:
    """What the zpool importer does in bulk must give what `record_range_ns` gives per row."""
    one_by_one = LatencyHistogram()
    counts: dict[int, int] = {}
    sum_ns = 0
    values = []
    for power, count in rows:
        one_by_one.record_range_ns(1 << power, 1 << (power + 1), count)
        if count:
            value = range_midpoint_ns(1 << power, 1 << (power + 1))
            counts[bucket_index(value)] = counts.get(bucket_index(value), 0) + count
            sum_ns += value * count
            values.append(value)
    bulk = LatencyHistogram.from_counts(
        counts, sum_ns, min(values, default=None), max(values, default=None)
    )
    assert bulk.model_dump() == one_by_one.model_dump()
    assert bulk.count == sum(count for _, count in rows)


def test_from_counts_refuses_foreign_buckets_and_drops_empty_ones() -> None:
    with pytest.raises(ValueError, match="bucket 999 is outside"):
        LatencyHistogram.from_counts({999: 1}, 0, None, None)
    with pytest.raises(ValueError, match="negative"):
        LatencyHistogram.from_counts({5: -2}, 0, None, None)
    kept = LatencyHistogram.from_counts({5: 0, 6: 2}, 4000, 2000, 2000)
    assert kept.counts == {6: 2} and kept.count == 2


def test_range_midpoint_is_geometric_and_survives_empty_ranges() -> None:
    assert range_midpoint_ns(1024, 4096) == 2048
    assert range_midpoint_ns(0, 0) == 1  # [1, 2): never zero, never below the range
