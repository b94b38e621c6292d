"""Statistics series in the store answer exactly as the in-memory `HistogramSeries` does for
the same points: adding (combined per bucket), compacting, querying, listing entities."""

from __future__ import annotations

import math
import uuid
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service.store.storetest import T0, table_rows

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind, Metric
from pinchpoint.service.store import Store, StoreInputError
from pinchpoint.stats.series import (
    HistogramSeries,
    RetentionPolicy,
    RetentionTier,
    SeriesPoint,
    new_point,
)

DISK = "disk:naa.5000cca5488507cc"
JBOD = "enclosure:0x5000ccab1e97cfff"


def small_policy() -> RetentionPolicy:
    """10 s points kept 1 min, 1 min points kept 5 min, 5 min points kept 1 h."""
    return RetentionPolicy(
        tiers=[
            RetentionTier(resolution_s=10, keep_s=60),
            RetentionTier(resolution_s=60, keep_s=300),
            RetentionTier(resolution_s=300, keep_s=3600),
        ]
    )


def histogram_ms(*latencies_ms: float) -> LatencyHistogram:
    histogram = LatencyHistogram()
    for value in latencies_ms:
        histogram.record_seconds(value / 1000)
    return histogram


Sample = tuple[str, datetime, float, dict[Metric, float], dict[HistogramKind, LatencyHistogram]]


def _point(policy: RetentionPolicy, sample: Sample) -> tuple[str, SeriesPoint]:
    """The finest-tier point `HistogramSeries.add` makes of a sample."""
    entity, moment, duration_s, values, histograms = sample
    resolution = policy.tiers[0].resolution_s
    start = int(moment.timestamp()) // resolution * resolution
    return entity, new_point(start, resolution, duration_s, values, histograms)


def _add(store: Store, host: str, memory: HistogramSeries, samples: list[Sample]) -> None:
    for sample in samples:
        memory.add(*sample)
    store.add_series_points(host, [_point(memory.policy, s) for s in samples])


def _sample(entity: str, seconds: float, latency_ms: float, iops: float = 100.0) -> Sample:
    return (
        entity,
        T0 + timedelta(seconds=seconds),
        1.0,
        {Metric.READ_IOPS: iops, Metric.READ_LATENCY_MS: latency_ms, Metric.QUEUE: iops / 50},
        {HistogramKind.READ: histogram_ms(latency_ms, latency_ms * 3)},
    )


def test_points_in_one_bucket_combine_as_in_memory(store: Store) -> None:
    policy = small_policy()
    memory = HistogramSeries(policy=policy)
    samples = [_sample(DISK, s, 4.0 + s, iops=50.0 + s) for s in (0, 3, 7, 12)]
    _add(store, "store01", memory, samples[:2])
    _add(store, "store01", memory, samples[2:])  # the third lands in a stored bucket
    stored = store.query_series("store01", DISK, T0, T0 + timedelta(minutes=1), policy)
    assert stored == memory.query(DISK, T0, T0 + timedelta(minutes=1))
    assert [p.start_s for p in stored.points] == [int(T0.timestamp()), int(T0.timestamp()) + 10]
    first = stored.points[0]
    assert first.histograms[HistogramKind.READ].count == 6
    assert first.maxima[Metric.READ_LATENCY_MS] == 11.0


def test_compaction_rolls_up_and_drops_as_in_memory(store: Store) -> None:
    policy = small_policy()
    memory = HistogramSeries(policy=policy)
    samples = [_sample(e, s, 2.0 + (s % 17)) for s in range(0, 1800, 7) for e in (DISK, JBOD)]
    _add(store, "store01", memory, samples)
    for minutes in (2, 6, 20, 40, 75):
        now = T0 + timedelta(minutes=minutes)
        memory.compact(now)
        store.compact_series("store01", policy, now)
        for start, end in ((T0, T0 + timedelta(hours=2)), (now - timedelta(minutes=1), now)):
            for entity in (DISK, JBOD):
                assert store.query_series("store01", entity, start, end, policy) == memory.query(
                    entity, start, end
                ), (minutes, entity)
    assert store.series_entities("store01") == memory.entities() == sorted([DISK, JBOD])
    memory.compact(T0 + timedelta(hours=3))
    store.compact_series("store01", policy, T0 + timedelta(hours=3))
    assert store.series_entities("store01") == memory.entities() == []


def test_series_are_kept_per_host(store: Store) -> None:
    policy = small_policy()
    store.add_series_points("store01", [_point(policy, _sample(DISK, 0, 5.0))])
    store.add_series_points("store03", [_point(policy, _sample(JBOD, 0, 5.0))])
    assert store.series_hosts() == ["store01", "store03"]
    assert store.series_entities("store01") == [DISK]
    assert store.series_entities("store02") == []
    nothing = store.query_series("store02", DISK, T0, T0 + timedelta(hours=1), policy)
    assert (nothing.resolution_s, nothing.points) == (None, [])


LATENCIES = st.floats(0.05, 900.0, allow_nan=False)
SAMPLES = st.lists(
    st.tuples(
        st.sampled_from([DISK, JBOD]),
        st.integers(0, 3 * 3600),  # seconds after T0
        st.floats(0.5, 10.0),  # duration
        st.floats(0.0, 5000.0),  # read IOPS
        LATENCIES,
        st.lists(LATENCIES, max_size=4),  # latencies in the histogram
    ),
    max_size=25,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    raw=SAMPLES,
    compactions=st.lists(st.integers(0, 5 * 3600), max_size=4),
    query=st.tuples(st.integers(-600, 4 * 3600), st.integers(1, 6 * 3600)),
)
def test_the_store_answers_as_the_in_memory_series(
    store: Store,
    raw: list[tuple[str, int, float, float, float, list[float]]],
    compactions: list[int],
    query: tuple[int, int],
) -> None:
    """Points added in time order, compactions between them, any query range."""
    host = f"host-{uuid.uuid4().hex[:8]}"  # each example its own host: no leftovers
    policy = small_policy()
    memory = HistogramSeries(policy=policy)
    samples = sorted(
        (
            (
                entity,
                T0 + timedelta(seconds=offset),
                duration,
                {Metric.READ_IOPS: iops, Metric.READ_LATENCY_MS: latency},
                {HistogramKind.READ: histogram_ms(*histogram)},
            )
            for entity, offset, duration, iops, latency, histogram in raw
        ),
        key=lambda s: s[1],
    )
    cuts = sorted(compactions)
    for sample in samples:
        while cuts and T0 + timedelta(seconds=cuts[0]) <= sample[1]:
            now = T0 + timedelta(seconds=cuts.pop(0))
            memory.compact(now)
            store.compact_series(host, policy, now)
        _add(store, host, memory, [sample])
    for cut in cuts:
        memory.compact(T0 + timedelta(seconds=cut))
        store.compact_series(host, policy, T0 + timedelta(seconds=cut))
    start = T0 + timedelta(seconds=query[0])
    end = start + timedelta(seconds=query[1])
    for entity in (DISK, JBOD):
        assert store.query_series(host, entity, start, end, policy) == memory.query(
            entity, start, end
        )
    assert store.series_entities(host) == memory.entities()


@pytest.mark.parametrize(
    ("host", "entity", "point", "message"),
    [
        ("", DISK, SeriesPoint(start_s=0, resolution_s=10), "statistics need a host name"),
        ("h", " ", SeriesPoint(start_s=0, resolution_s=10), "has no entity"),
        (
            "h",
            DISK,
            SeriesPoint(start_s=5, resolution_s=10),
            "the start must be a multiple of the resolution",
        ),
        (
            "h",
            DISK,
            SeriesPoint(start_s=0, resolution_s=10, values={Metric.QUEUE: math.inf}),
            r"values\[queue\] is inf, not a finite number",
        ),
        (
            "h",
            DISK,
            SeriesPoint(start_s=0, resolution_s=10, covered_s=math.nan),
            "covered_s is nan, not a finite number",
        ),
    ],
)
def test_a_bad_point_is_refused_and_none_of_its_batch_is_stored(
    store: Store, store_url: str, host: str, entity: str, point: SeriesPoint, message: str
) -> None:
    good = _point(small_policy(), _sample(DISK, 0, 5.0))
    store.add_series_points("h", [good])
    before = table_rows(store_url)
    with pytest.raises(StoreInputError, match=message):
        store.add_series_points(host, [good, (entity, point)])
    assert table_rows(store_url) == before
