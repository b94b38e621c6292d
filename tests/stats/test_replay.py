"""Replaying a snapshot's statistics: each interval's share of a cumulative histogram."""

from __future__ import annotations

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.stats.replay import scaled


def test_a_histogram_scaled_to_an_interval_keeps_its_shape() -> None:
    whole = LatencyHistogram()
    whole.record_seconds(0.004, 300)
    whole.record_seconds(0.2, 100)
    part = scaled(whole, 40)
    assert part is not None and part.count == 40
    assert part.share_above(0.1) == whole.share_above(0.1)
    assert scaled(whole, 0) is None and scaled(LatencyHistogram(), 10) is None
