"""Replaying a snapshot's statistics one interval at a time, as the service's sampler does for
the demo host and a snapshot: each interval gets its share of the snapshot's cumulative latency
histograms, shaped as the whole."""

from __future__ import annotations

from pinchpoint.model.histogram import LatencyHistogram


def scaled(histogram: LatencyHistogram, ios: float) -> LatencyHistogram | None:
    """`histogram`'s shape holding `ios` I/Os (a replayed interval's share of the snapshot's
    cumulative histogram); None when there is nothing to scale."""
    if histogram.count <= 0 or ios <= 0:
        return None
    factor = ios / histogram.count
    counts = {b: round(c * factor) for b, c in histogram.counts.items()}
    counts = {b: c for b, c in counts.items() if c > 0}
    if not counts:
        return None
    return LatencyHistogram.from_counts(
        counts, round(histogram.sum_ns * factor), histogram.min_ns, histogram.max_ns
    )
