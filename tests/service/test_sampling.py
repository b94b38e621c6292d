"""The statistics sampler: live intervals from this machine, replayed ones from a snapshot."""

from __future__ import annotations

import time

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource
from pinchpoint.service.sampling import IntervalSource
from pinchpoint.service.settings import TargetKind
from pinchpoint.service.target import HostTarget


def test_a_live_tick_measures_this_machine_between_two_reads() -> None:
    inventory = collect_inventory(LiveSource(), parallel=False)
    source = IntervalSource(HostTarget(TargetKind.LIVE))
    assert source.next(inventory) is None  # the first read only sets the baseline
    time.sleep(0.2)
    interval = source.next(inventory)
    assert interval is not None and 0.1 < interval.interval_s < 5
    assert interval.devices, "this machine has block devices"
    partitions = {p.name for d in inventory.block.devices for p in d.partitions}
    assert not partitions.intersection(f.device for f in interval.devices)
