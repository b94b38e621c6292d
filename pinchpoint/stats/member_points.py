"""Every disk's (and LUN's) points in memory, for the live sampler: the bucket it is adding to
now is kept as columns — a slot per entity and per metric a list of the sums of value × weight,
the sums of the weights, the first values and the maxima — and each tick adds to it a list at
a time, with `add_to_means`'s arithmetic, instead of a point object per disk; the means are
divided out only when a point is read. A bucket becomes `SeriesPoint`s in a
`HistogramSeries` (which rolls them up into coarser tiers) once the next bucket starts or the
entities change; a query sees the open bucket too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind, Metric
from pinchpoint.stats.series import (
    _WEIGHED_BY,
    HistogramSeries,
    RetentionPolicy,
    SeriesPoint,
    SeriesQuery,
    _epoch_s,
    combine_into,
)

_INF = math.inf
_POINT_FIELDS = frozenset(SeriesPoint.model_fields)
Histograms = dict[HistogramKind, LatencyHistogram]


def _all_clean(values: list[float]) -> bool:
    """Whether every value of a (non-empty) column is finite and not negative, in two passes
    in C: a NaN or an infinity makes the sum NaN or infinite (so does a sum past the largest
    float: that column then takes the value-by-value way, to the same result)."""
    total = sum(values)
    return total - total == 0.0 and min(values) >= 0.0


def _clean_or_zero(counts: list[float]) -> list[float]:
    """A column of counts with 0 for each NaN, infinite or negative one (`_weight` leaves
    them out)."""
    return counts if _all_clean(counts) else [n if 0.0 <= n < _INF else 0.0 for n in counts]


class _MetricSums:
    """One metric's columns in an open bucket: per slot the first clean value (None: none
    yet), Σ value × weight, Σ weight, the largest value, and how many clean values were
    folded in (`every`: the folds where every slot had one; `some`: per slot, the others).
    `add_to_means`'s arithmetic with the division left to the read (`mean`)."""

    __slots__ = ("every", "firsts", "maxima", "some", "sums", "weights")

    def __init__(self, slots: int) -> None:
        self.firsts: list[float | None] = [None] * slots
        self.sums = [-0.0] * slots  # -0.0 + x is x, to the sign of a zero: `add_to_means`'s
        self.weights = [0.0] * slots
        self.maxima: list[float | None] = [None] * slots
        self.every = 0
        self.some: list[int] | None = None

    def fold(self, values: list[float], weight: float | list[float]) -> None:
        """Add each slot's value standing for its weight (`weight`: one for every slot, or
        a list of one per slot): a value that is NaN, infinite or negative leaves its slot as
        it was. (List comprehensions: on Python 3.11 faster than `map` over `operator`.)"""
        clean: list[bool] | None = None
        if not _all_clean(values):
            clean = [0.0 <= v < _INF for v in values]
        if clean is None:  # every slot, a list at a time
            if isinstance(weight, list):
                self.sums = [s + v * w for s, v, w in zip(self.sums, values, weight, strict=True)]
                self.weights = [b + w for b, w in zip(self.weights, weight, strict=True)]
            else:
                self.sums = [s + v * weight for s, v in zip(self.sums, values, strict=True)]
                self.weights = [b + weight for b in self.weights]
        else:
            weights = weight if isinstance(weight, list) else [weight] * len(values)
            self.sums = [
                s + v * w if c else s
                for s, v, w, c in zip(self.sums, values, weights, clean, strict=True)
            ]
            self.weights = [
                b + w if c else b for b, w, c in zip(self.weights, weights, clean, strict=True)
            ]
        if clean is None and self.every:  # every slot has a value already: max(value, peak)
            self.maxima = [
                v if not p > v else p  # type: ignore[operator]
                for v, p in zip(values, self.maxima, strict=True)
            ]
        elif clean is None:
            self.firsts = [v if f is None else f for v, f in zip(values, self.firsts, strict=True)]
            self.maxima = [
                v if p is None or not p > v else p for v, p in zip(values, self.maxima, strict=True)
            ]
        else:
            self.firsts = [
                v if f is None and c else f
                for v, f, c in zip(values, self.firsts, clean, strict=True)
            ]
            self.maxima = [
                (v if p is None or not p > v else p) if c else p
                for v, p, c in zip(values, self.maxima, clean, strict=True)
            ]
        if clean is None:
            self.every += 1
        else:
            self.some = [n + c for n, c in zip(self.some or [0] * len(clean), clean, strict=True)]

    def mean(self, slot: int) -> float | None:
        """The slot's mean as `add_to_means` leaves it (for a finite covered time): Σ value ×
        weight / Σ weight once two values or more were folded in with weight behind them,
        else the first value (None: none)."""
        first = self.firsts[slot]
        folded = self.every + (self.some[slot] if self.some is not None else 0)
        weight = self.weights[slot]
        if first is None or folded < 2 or not weight > 0:
            return first
        return self.sums[slot] / weight

    def means(self) -> list[float | None]:
        """`mean` of every slot, in one pass where every fold had a value for every slot."""
        if self.some is None and self.every >= 2:  # every slot: two values or more, a first
            return [
                s / w if w > 0 else f
                for s, w, f in zip(self.sums, self.weights, self.firsts, strict=True)
            ]
        return [self.mean(slot) for slot in range(len(self.sums))]


class _OpenBucket:
    """One finest-tier bucket of `entities`, as columns (`_MetricSums`); every slot has
    covered the same time."""

    def __init__(self, start_s: int, resolution_s: int, entities: tuple[str, ...]) -> None:
        self.start_s = start_s
        self.resolution_s = resolution_s
        self.entities = entities
        self.index = {entity: slot for slot, entity in enumerate(entities)}
        self.covered_s = 0.0
        self.metrics: dict[Metric, _MetricSums] = {}
        self.histograms: list[Histograms | None] = [None] * len(entities)

    def fold(
        self,
        covered_s: float,
        columns: dict[Metric, list[float]],
        histograms: Sequence[Histograms] | None,
    ) -> None:
        """`fold_into` of every slot at once: a value that is NaN, infinite or negative (or
        absent: NaN) leaves its metric as it was."""
        covered_s = max(0.0, covered_s)
        self.covered_s += covered_s
        slots = len(self.entities)
        for metric, values in columns.items():
            if not slots:
                break
            sums = self.metrics.get(metric)
            if sums is None:
                sums = self.metrics[metric] = _MetricSums(slots)
            counted_by = _WEIGHED_BY.get(metric)
            if counted_by is None:  # every slot weighs the time covered
                sums.fold(values, covered_s)
                continue
            # `_weight`: the counts of the clean values, summed (from 0), times the time
            counts = [columns.get(m) or [0.0] * slots for m in counted_by]
            summed = _clean_or_zero(counts[0])
            for more in counts[1:]:
                summed = [n + m for n, m in zip(summed, _clean_or_zero(more), strict=True)]
            sums.fold(values, [n * covered_s for n in summed])
        if histograms is not None:
            for slot, own in enumerate(histograms):
                if own:
                    kept = self.histograms[slot]
                    if kept is None:
                        kept = self.histograms[slot] = {}
                    for kind, histogram in own.items():
                        kept.setdefault(kind, LatencyHistogram()).merge_from(histogram)

    def point(self, slot: int) -> SeriesPoint:
        """The point of the entity in `slot`, as `fold_into` would have made it."""
        values: dict[Metric, float] = {}
        weights: dict[Metric, float] = {}
        maxima: dict[Metric, float] = {}
        for metric, sums in self.metrics.items():
            mean = sums.mean(slot)
            if mean is not None:
                values[metric] = mean
                weights[metric] = sums.weights[slot]
                maxima[metric] = sums.maxima[slot]  # type: ignore[assignment]
        return self._made(slot, values, weights, maxima)

    def points(self) -> list[SeriesPoint]:
        """`point` of every slot, in slot order (the means divided a column at a time)."""
        columns = [
            (metric, sums.means(), sums.weights, sums.maxima)
            for metric, sums in self.metrics.items()
        ]
        made = []
        for slot in range(len(self.entities)):
            values: dict[Metric, float] = {}
            weights: dict[Metric, float] = {}
            maxima: dict[Metric, float] = {}
            for metric, means, weight_column, maxima_column in columns:
                mean = means[slot]
                if mean is not None:
                    values[metric] = mean
                    weights[metric] = weight_column[slot]
                    maxima[metric] = maxima_column[slot]  # type: ignore[assignment]
            made.append(self._made(slot, values, weights, maxima))
        return made

    def _made(
        self,
        slot: int,
        values: dict[Metric, float],
        weights: dict[Metric, float],
        maxima: dict[Metric, float],
    ) -> SeriesPoint:
        """The point of `slot` holding `values`, `weights` and `maxima`."""
        own = self.histograms[slot]
        # `model_construct` without its walk over the fields (a thousand points at a time)
        point = object.__new__(SeriesPoint)
        _set = object.__setattr__
        _set(
            point,
            "__dict__",
            {
                "start_s": self.start_s,
                "resolution_s": self.resolution_s,
                "covered_s": self.covered_s,
                "values": values,
                "weights": weights,
                "maxima": maxima,
                "histograms": {k: h.model_copy(deep=True) for k, h in own.items()} if own else {},
            },
        )
        _set(point, "__pydantic_fields_set__", _POINT_FIELDS)
        _set(point, "__pydantic_extra__", None)
        _set(point, "__pydantic_private__", None)
        return point


class MemberSeries:
    """The disks' and LUNs' points of `policy`, the newest bucket as columns."""

    def __init__(self, policy: RetentionPolicy) -> None:
        self.policy = policy
        self.series = HistogramSeries(policy=policy)
        self._open: _OpenBucket | None = None

    def add_columns(
        self,
        at: datetime,
        duration_s: float,
        entities: Sequence[str],
        columns: dict[Metric, list[float]],
        histograms: Sequence[Histograms] | None = None,
    ) -> None:
        """What each of `entities` did for `duration_s` seconds from `at`: `columns` holds a
        value per entity for each metric (NaN where it has none), `histograms` a dict per
        entity; the same as `HistogramSeries.add` of each."""
        resolution = self.policy.tiers[0].resolution_s
        start = int(_epoch_s(at)) // resolution * resolution
        bucket = self._open
        if (
            bucket is not None
            and bucket.start_s == start
            and bucket.entities != tuple(entities)
            and len(entities) == len(bucket.entities)
            and set(entities) == set(bucket.index)
        ):  # the same entities in another order (a tick summed another way): the bucket's
            slot_of = {entity: slot for slot, entity in enumerate(entities)}
            order = [slot_of[entity] for entity in bucket.entities]
            columns = {m: [values[i] for i in order] for m, values in columns.items()}
            histograms = [histograms[i] for i in order] if histograms else None
            entities = bucket.entities
        if bucket is None or bucket.start_s != start or bucket.entities != tuple(entities):
            self._seal()
            bucket = self._open = _OpenBucket(start, resolution, tuple(entities))
        bucket.fold(duration_s, columns, histograms)

    def _seal(self) -> None:
        """The open bucket into the series, a point per entity."""
        bucket, self._open = self._open, None
        if bucket is None:
            return
        finest = self.series.tiers[0].points
        for entity, point in zip(bucket.entities, bucket.points(), strict=True):
            buckets = finest.setdefault(entity, {})
            kept = buckets.get(bucket.start_s)
            if kept is None:
                buckets[bucket.start_s] = point
            else:  # the entities changed within the bucket: both parts in one point
                combine_into(kept, point)

    def compact(self, now: datetime) -> None:
        """`HistogramSeries.compact` (the open bucket is the newest: never old enough)."""
        self.series.compact(now)

    def next_expiry_s(self) -> float:
        """The first moment a point kept now outlives its tier (`HistogramSeries`)."""
        bucket = self._open
        first = self.policy.tiers[0]
        opened = bucket.start_s + first.resolution_s + first.keep_s if bucket else _INF
        return min(self.series.next_expiry_s(), opened)

    def entities(self) -> list[str]:
        """Every entity with at least one point kept."""
        opened = self._open.entities if self._open is not None else ()
        return sorted({*self.series.entities(), *opened})

    def query(self, entity: str, start: datetime, end: datetime) -> SeriesQuery:
        """`HistogramSeries.query`, the open bucket's point of `entity` included."""
        bucket = self._open
        slot = bucket.index.get(entity) if bucket is not None else None
        pending = bucket.point(slot) if bucket is not None and slot is not None else None
        return self.series.query(entity, start, end, pending)
