"""Every disk's (and LUN's) points in memory, for the live sampler: the bucket it is adding to
now is kept as columns — a slot per entity, a list per metric of the means, weights and maxima —
and each tick adds to it a list at a time, with `fold_into`'s arithmetic in its order, instead
of a point object per disk. A bucket becomes `SeriesPoint`s in a `HistogramSeries` (which
rolls them up into coarser tiers) once the next bucket starts or the entities change; a query
sees the open bucket too.
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


class _OpenBucket:
    """One finest-tier bucket of `entities`, as columns (a mean or maximum of None: no clean
    value yet)."""

    def __init__(self, start_s: int, resolution_s: int, entities: tuple[str, ...]) -> None:
        self.start_s = start_s
        self.resolution_s = resolution_s
        self.entities = entities
        self.index = {entity: slot for slot, entity in enumerate(entities)}
        self.covered = [0.0] * len(entities)
        self.means: dict[Metric, list[float | None]] = {}
        self.weights: dict[Metric, list[float]] = {}
        self.maxima: dict[Metric, list[float | None]] = {}
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
        self.covered = [c + covered_s for c in self.covered]
        for metric, values in columns.items():
            if metric not in self.means:
                self.means[metric] = [None] * len(values)
                self.weights[metric] = [0.0] * len(values)
                self.maxima[metric] = [None] * len(values)
            means, before, peaks = self.means[metric], self.weights[metric], self.maxima[metric]
            counted_by = _WEIGHED_BY.get(metric)
            if counted_by is None:  # every slot weighs the time covered: one number
                w = covered_s
                self.means[metric] = [
                    (v if m is None else (m * b + v * w) / (b + w) if b + w > 0 else m)
                    if 0.0 <= v < _INF
                    else m
                    for v, m, b in zip(values, means, before, strict=True)
                ]
                self.weights[metric] = [
                    b + w if 0.0 <= v < _INF else b for v, b in zip(values, before, strict=True)
                ]
            else:  # `_weight`: the counts of the clean values, summed (from 0), times the time
                counts = [columns.get(m) or [0.0] * len(values) for m in counted_by]
                summed = [n if 0.0 <= n < _INF else 0.0 for n in counts[0]]
                for more in counts[1:]:
                    summed = [
                        total + (n if 0.0 <= n < _INF else 0.0)
                        for total, n in zip(summed, more, strict=True)
                    ]
                weights = [total * covered_s for total in summed]
                self.means[metric] = [
                    (v if m is None else (m * b + v * w) / (b + w) if b + w > 0 else m)
                    if 0.0 <= v < _INF
                    else m
                    for v, m, b, w in zip(values, means, before, weights, strict=True)
                ]
                self.weights[metric] = [
                    b + w if 0.0 <= v < _INF else b
                    for v, b, w in zip(values, before, weights, strict=True)
                ]
            self.maxima[metric] = [
                (v if p is None or not p > v else p) if 0.0 <= v < _INF else p
                for v, p in zip(values, peaks, strict=True)
            ]
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
        for metric, means in self.means.items():
            mean = means[slot]
            if mean is not None:
                values[metric] = mean
                weights[metric] = self.weights[metric][slot]
                maxima[metric] = self.maxima[metric][slot]  # type: ignore[assignment]
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
                "covered_s": self.covered[slot],
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
        for slot, entity in enumerate(bucket.entities):
            point = bucket.point(slot)
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
