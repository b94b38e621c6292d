"""Each disk's iostat figures over the newest interval: its paths' devices summed, waits
weighted by the I/Os they timed, the busiest path's %util; LUNs and unknown devices left out."""

from __future__ import annotations

import pytest
from stats.test_attach import DUAL, SINGLE, small_inventory

from pinchpoint.model.stats import DeviceFigures, IntervalFigures
from pinchpoint.stats.disk_summaries import disk_latency_summaries


def interval(*devices: DeviceFigures) -> IntervalFigures:
    return IntervalFigures(interval_s=10.0, devices=list(devices))


def test_a_dual_pathed_disk_is_one_disk_with_both_paths_summed() -> None:
    older = interval(DeviceFigures(device="sda", r_s=1.0, r_await=99.0))
    newest = interval(
        DeviceFigures(device="sda", r_s=100.0, r_await=2.0, aqu_sz=1.0, util=40.0),
        DeviceFigures(device="sdc", r_s=300.0, r_await=6.0, aqu_sz=2.0, util=70.0),
        DeviceFigures(device="sdb", w_s=50.0, w_await=4.0, util=10.0),
        DeviceFigures(device="sdk", r_s=500.0, r_await=1.0),  # an FC LUN, not a disk
        DeviceFigures(device="sdz", r_s=7.0, r_await=1.0),  # not in the inventory
    )
    summaries = {s.entity.id: s for s in disk_latency_summaries(small_inventory(), [older, newest])}
    assert set(summaries) == {DUAL, SINGLE}
    dual = summaries[DUAL]
    assert dual.iops == 400.0
    assert dual.read_await_ms == pytest.approx((2.0 * 100 + 6.0 * 300) / 400)
    assert dual.write_await_ms is None  # no write was timed
    assert dual.queue == 3.0 and dual.util_percent == 70.0
    single = summaries[SINGLE]
    assert single.read_await_ms is None and single.write_await_ms == 4.0
    assert single.iops == 50.0 and single.util_percent == 10.0


def test_without_an_interval_there_is_nothing_to_say() -> None:
    assert disk_latency_summaries(small_inventory(), []) == []
