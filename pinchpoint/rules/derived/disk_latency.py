"""Each SAS disk's reads and writes over the measured intervals (its paths summed)."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.latency import DeviceLatency
from pinchpoint.stats.latency import disk_latencies as summed


def disk_latencies(context: RuleContext) -> dict[str, DeviceLatency]:
    """Every SAS disk's latency figures by disk id (none without diskstats samples)."""
    return summed(context.inventory.sas.disks, context.intervals)
