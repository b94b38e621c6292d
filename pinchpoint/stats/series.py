"""Histograms and load figures per entity over time, kept finer when recent, coarser when old.

Like the analytics of a storage appliance: 1-second points for the last hour, 1-minute points for
a week, 1-hour points for a year (every limit configurable in a `RetentionPolicy`). A new point
goes into the finest tier; `compact(now)` rolls points older than their tier's age into the next
tier's buckets and drops what has outlived the last tier. Rolling up is exact for histograms
(counts added bucket by bucket) and for totals; means are weighted by what they are a mean of:
rates, queue and utilisation by time, latencies by the I/Os they timed, request sizes by the
requests. The largest value seen of each metric is kept beside the mean, so an hour-long point
still shows its worst second.

Pure and in memory, made of pydantic models so that a store can persist it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime

from pydantic import BaseModel, Field, model_validator

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind, Metric

MINUTE_S = 60
HOUR_S = 3600
DAY_S = 86400

# The metric whose count of events weighs each mean; a metric not listed is weighted by time.
_WEIGHED_BY: dict[Metric, tuple[Metric, ...]] = {
    Metric.READ_LATENCY_MS: (Metric.READ_IOPS,),
    Metric.READ_SIZE_KB: (Metric.READ_IOPS,),
    Metric.WRITE_LATENCY_MS: (Metric.WRITE_IOPS,),
    Metric.WRITE_SIZE_KB: (Metric.WRITE_IOPS,),
    Metric.LATENCY_MS: (Metric.READ_IOPS, Metric.WRITE_IOPS),
}


class RetentionTier(BaseModel):
    """Points of `resolution_s` seconds, kept until they are `keep_s` seconds old."""

    resolution_s: int = Field(gt=0)
    keep_s: int = Field(gt=0)

    @model_validator(mode="after")
    def _keeps_at_least_one_point(self) -> RetentionTier:
        if self.keep_s < self.resolution_s:
            raise ValueError(
                f"a tier of {self.resolution_s} s points must keep them at least "
                f"{self.resolution_s} s, not {self.keep_s} s"
            )
        return self


class RetentionPolicy(BaseModel):
    """The tiers from finest to coarsest; each resolution divides the next one exactly, so a
    coarse bucket is made of whole fine buckets."""

    tiers: list[RetentionTier] = Field(
        default_factory=lambda: [
            RetentionTier(resolution_s=1, keep_s=HOUR_S),
            RetentionTier(resolution_s=MINUTE_S, keep_s=7 * DAY_S),
            RetentionTier(resolution_s=HOUR_S, keep_s=365 * DAY_S),
        ],
        min_length=1,
    )

    @model_validator(mode="after")
    def _tiers_coarsen(self) -> RetentionPolicy:
        for finer, coarser in zip(self.tiers, self.tiers[1:], strict=False):
            if coarser.resolution_s <= finer.resolution_s:
                raise ValueError(
                    f"resolutions must increase: {coarser.resolution_s} s follows "
                    f"{finer.resolution_s} s"
                )
            if coarser.resolution_s % finer.resolution_s:
                raise ValueError(
                    f"each resolution must divide the next: {finer.resolution_s} s does not "
                    f"divide {coarser.resolution_s} s"
                )
            if coarser.keep_s <= finer.keep_s:
                raise ValueError(
                    f"a coarser tier must keep its points longer: {coarser.keep_s} s after "
                    f"{finer.keep_s} s"
                )
        return self


class SeriesPoint(BaseModel):
    """What one entity did during one bucket: `start_s` is the bucket's start in seconds since
    the epoch (UTC), a multiple of `resolution_s`.

    `values` are means over the data the point holds; `weights` say how much stands behind each
    (seconds, or I/Os for latencies and sizes) so that two points combine exactly; `maxima`
    keep the largest value any finer point had; `covered_s` is the time actually measured.
    """

    start_s: int
    resolution_s: int
    covered_s: float = 0.0
    values: dict[Metric, float] = Field(default_factory=dict)
    weights: dict[Metric, float] = Field(default_factory=dict)
    maxima: dict[Metric, float] = Field(default_factory=dict)
    histograms: dict[HistogramKind, LatencyHistogram] = Field(default_factory=dict)

    @property
    def start(self) -> datetime:
        return datetime.fromtimestamp(self.start_s, UTC)

    @property
    def end_s(self) -> int:
        return self.start_s + self.resolution_s


class TierPoints(BaseModel):
    """One tier's points: entity id → bucket start (epoch seconds) → point."""

    resolution_s: int
    points: dict[str, dict[int, SeriesPoint]] = Field(default_factory=dict)


class SeriesQuery(BaseModel):
    """Points of one entity over a time range, all at one resolution: the finest at which the
    whole range is still kept (finer points re-bucketed to it where the range spans tiers)."""

    entity: str
    resolution_s: int | None  # None when nothing is kept for the range
    points: list[SeriesPoint] = Field(default_factory=list)


def _epoch_s(moment: datetime) -> float:
    """Seconds since the epoch; a naive datetime is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _weight(metric: Metric, values: dict[Metric, float], covered_s: float) -> float:
    """How much stands behind `metric` in a point measured over `covered_s` seconds."""
    counted_by = _WEIGHED_BY.get(metric)
    if counted_by is None:
        return covered_s
    return sum(max(0.0, values.get(m, 0.0)) for m in counted_by) * covered_s


def new_point(
    start_s: int,
    resolution_s: int,
    covered_s: float,
    values: dict[Metric, float],
    histograms: dict[HistogramKind, LatencyHistogram],
) -> SeriesPoint:
    """A point from one measurement; NaN, infinite or negative values (a counter reset) are
    left out."""
    clean = {m: v for m, v in values.items() if math.isfinite(v) and v >= 0.0}
    covered_s = max(0.0, covered_s)
    return SeriesPoint(
        start_s=start_s,
        resolution_s=resolution_s,
        covered_s=covered_s,
        values=clean,
        weights={m: _weight(m, clean, covered_s) for m in clean},
        maxima=dict(clean),
        histograms={k: h.model_copy(deep=True) for k, h in histograms.items()},
    )


SUMS = "sums"  # where a bucket being filled keeps its sums: a key of its `__dict__`


def open_point(start_s: int, resolution_s: int) -> SeriesPoint:
    """An empty point that keeps, while it is filled, the Σ value × weight behind each of its
    means (`add_to_means`): in its `__dict__` beside its fields, where pydantic keeps a cached
    property — not a field, so never validated, dumped, stored or compared."""
    point = SeriesPoint(start_s=start_s, resolution_s=resolution_s)
    point.__dict__[SUMS] = {}
    return point


def add_to_means(
    point: SeriesPoint, values: dict[Metric, float], weights_of: dict[Metric, float]
) -> None:
    """Each of `values`, standing for its weight in `weights_of` (0 when absent), into
    `point`'s mean of its metric — the one arithmetic of every mean: (Σ + value × weight) /
    (Σ weight + weight), where Σ is the point's kept sum of value × weight when it keeps sums
    (`open_point`), else its mean × its weight (a stored point, a roll-up: only its means are
    known). A first value is the mean as it is; a mean with no weight behind it yet stays as
    it was. `MemberSeries` folds its columns the same way and divides when a point is read."""
    means, weights = point.values, point.weights
    sums: dict[Metric, float] | None = point.__dict__.get(SUMS)
    for metric, value in values.items():
        weight = weights_of.get(metric, 0.0)
        before = means.get(metric)
        before_weight = weights.get(metric, 0.0)
        if before is None:
            means[metric] = value
            if sums is not None:
                sums[metric] = value * weight
        else:
            kept = None if sums is None else sums.get(metric)
            total = (before * before_weight if kept is None else kept) + value * weight
            if sums is not None:
                sums[metric] = total
            if before_weight + weight > 0:
                means[metric] = total / (before_weight + weight)
        weights[metric] = before_weight + weight


def combine_into(total: SeriesPoint, part: SeriesPoint) -> None:
    """Add `part` to `total` (in place): histograms merged, means re-weighted (`add_to_means`,
    the part's mean standing for its weight), maxima kept."""
    total.covered_s += part.covered_s
    add_to_means(total, part.values, part.weights)
    for metric, peak in part.maxima.items():
        total.maxima[metric] = max(peak, total.maxima.get(metric, peak))
    for kind, histogram in part.histograms.items():
        total.histograms.setdefault(kind, LatencyHistogram()).merge_from(histogram)


def fold_into(
    total: SeriesPoint,
    covered_s: float,
    values: dict[Metric, float],
    histograms: dict[HistogramKind, LatencyHistogram],
) -> None:
    """`combine_into(total, new_point(…, covered_s, values, histograms))` without making the
    point: the same arithmetic in the same order (the live sampler adds a point per disk
    every second, and the point's model cost more than the sums)."""
    clean = {m: v for m, v in values.items() if math.isfinite(v) and v >= 0.0}
    covered_s = max(0.0, covered_s)
    total.covered_s += covered_s
    # `_weight`, inline: most metrics are weighted by time
    add_to_means(
        total,
        clean,
        {m: covered_s if m not in _WEIGHED_BY else _weight(m, clean, covered_s) for m in clean},
    )
    maxima = total.maxima
    for metric, value in clean.items():
        peak = maxima.get(metric)
        maxima[metric] = value if peak is None or not peak > value else peak  # max(value, peak)
    for kind, histogram in histograms.items():
        total.histograms.setdefault(kind, LatencyHistogram()).merge_from(histogram)


def _rebucket(point: SeriesPoint, resolution_s: int, into: dict[int, SeriesPoint]) -> None:
    """Add `point` to the bucket of `resolution_s` that holds its start."""
    start = point.start_s - point.start_s % resolution_s
    bucket = into.get(start)
    if bucket is None:
        bucket = SeriesPoint(start_s=start, resolution_s=resolution_s)
        into[start] = bucket
    combine_into(bucket, point)


class HistogramSeries(BaseModel):
    """Every entity's points in every tier of `policy`."""

    policy: RetentionPolicy = Field(default_factory=RetentionPolicy)
    tiers: list[TierPoints] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_store_per_tier(self) -> HistogramSeries:
        if not self.tiers:
            self.tiers = [TierPoints(resolution_s=t.resolution_s) for t in self.policy.tiers]
        if [t.resolution_s for t in self.tiers] != [t.resolution_s for t in self.policy.tiers]:
            raise ValueError("the stored tiers do not match the retention policy")
        return self

    def add(
        self,
        entity: str,
        at: datetime,
        duration_s: float,
        values: dict[Metric, float] | None = None,
        histograms: dict[HistogramKind, LatencyHistogram] | None = None,
    ) -> None:
        """Record what `entity` did for `duration_s` seconds from `at`, in the finest tier (the
        bucket holding `at`; points landing in one bucket are combined)."""
        finest = self.tiers[0]
        start = int(_epoch_s(at)) // finest.resolution_s * finest.resolution_s
        buckets = finest.points.setdefault(entity, {})
        bucket = buckets.get(start)
        if bucket is None:
            bucket = buckets[start] = SeriesPoint(start_s=start, resolution_s=finest.resolution_s)
        fold_into(bucket, duration_s, values or {}, histograms or {})

    def add_all(
        self,
        at: datetime,
        duration_s: float,
        entries: Iterable[tuple[str, dict[Metric, float], dict[HistogramKind, LatencyHistogram]]],
    ) -> None:
        """`add` of each (entity, values, histograms) of `entries`, all at `at` for
        `duration_s`, as the live sampler folds its disks every tick: the bucket found once,
        and a new bucket keeps its sums while it is filled (`open_point`, as `MemberSeries`'s
        columns do; `add` combines into a bucket as the store does, from its means)."""
        finest = self.tiers[0]
        resolution = finest.resolution_s
        start = int(_epoch_s(at)) // resolution * resolution
        points = finest.points
        for entity, values, histograms in entries:
            buckets = points.get(entity)
            if buckets is None:
                buckets = points[entity] = {}
            bucket = buckets.get(start)
            if bucket is None:
                bucket = buckets[start] = open_point(start, resolution)
            fold_into(bucket, duration_s, values, histograms)

    def compact(self, now: datetime) -> None:
        """Roll every point that has outlived its tier into the next tier, and drop what has
        outlived the last one. A point counts as old once its bucket has ended that long ago."""
        now_s = _epoch_s(now)
        for index, (tier, limits) in enumerate(zip(self.tiers, self.policy.tiers, strict=True)):
            coarser = self.tiers[index + 1] if index + 1 < len(self.tiers) else None
            oldest_kept = now_s - limits.keep_s
            # a point's end from its key and its tier's resolution (the bucket it is kept in):
            # no attribute of every point read (a host's 960 disks keep 57,600 points a tier)
            resolution = tier.resolution_s
            for entity, points in tier.points.items():
                expired = [start for start in points if start + resolution <= oldest_kept]
                for start in expired:
                    point = points.pop(start)
                    if coarser is not None:
                        target = coarser.points.setdefault(entity, {})
                        _rebucket(point, coarser.resolution_s, target)
            tier.points = {entity: points for entity, points in tier.points.items() if points}

    def next_expiry_s(self) -> float:
        """The first moment (epoch seconds) a point kept now outlives its tier: `compact` before
        then has nothing to do (infinity when nothing is kept)."""
        return min(
            (
                min(points) + tier.resolution_s + limits.keep_s
                for tier, limits in zip(self.tiers, self.policy.tiers, strict=True)
                for points in tier.points.values()
                if points
            ),
            default=math.inf,
        )

    def entities(self) -> list[str]:
        """Every entity with at least one point kept."""
        return sorted({entity for tier in self.tiers for entity in tier.points})

    def query(
        self, entity: str, start: datetime, end: datetime, pending: SeriesPoint | None = None
    ) -> SeriesQuery:
        """`entity`'s points overlapping [start, end), at the coarsest resolution among the
        tiers that hold any of them (so the whole range is there, as fine as it is kept);
        `pending` is a point of the finest tier not kept in it yet (`MemberSeries`)."""
        start_s, end_s = _epoch_s(start), _epoch_s(end)
        found: list[SeriesPoint] = []
        resolution: int | None = None
        for index, tier in enumerate(self.tiers):
            kept = list(tier.points.get(entity, {}).values())
            if index == 0 and pending is not None:
                kept.append(pending)
            inside = [p for p in kept if p.start_s < end_s and p.end_s > start_s]
            if inside:
                found.extend(inside)
                resolution = tier.resolution_s
        if resolution is None:
            return SeriesQuery(entity=entity, resolution_s=None)
        buckets: dict[int, SeriesPoint] = {}
        for point in found:
            _rebucket(point, resolution, buckets)  # copies: the stored points stay as they are
        return SeriesQuery(
            entity=entity,
            resolution_s=resolution,
            points=[buckets[s] for s in sorted(buckets)],
        )
