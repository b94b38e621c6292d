"""`latency.disk.outlier`: a disk made four times slower than its enclosure's on a balanced host."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import IntervalFigures
from pinchpoint.rules.base import RuleContext
from tests.rules.latency.conftest import changed, findings


def _slowed(context: RuleContext, device: str, factor: float) -> RuleContext:
    """The same host with one kernel device's waits and queue multiplied (a failing disk)."""
    intervals = [
        IntervalFigures(
            interval_s=i.interval_s,
            devices=[
                changed(
                    d,
                    r_await=d.r_await * factor,
                    w_await=d.w_await * factor,
                    aqu_sz=d.aqu_sz * factor,
                )
                if d.device == device
                else d
                for d in i.devices
            ],
        )
        for i in context.intervals
    ]
    return RuleContext(inventory=context.inventory, intervals=intervals)


def _first_disk_devices(inventory: Inventory) -> tuple[str, list[str]]:
    disk = inventory.sas.disks[0]
    return disk.id, [p.block_device for p in disk.paths if p.block_device]


def test_a_disk_four_times_slower_than_its_enclosure(balanced: RuleContext) -> None:
    disk_id, devices = _first_disk_devices(balanced.inventory)
    context = balanced
    for device in devices:
        context = _slowed(context, device, 4.0)
    found = findings(context, "latency.disk.outlier")
    assert [f.entity.id for f in found] == [disk_id]
    assert "JBOD-001" in found[0].title


def test_healthy_disks_are_not_outliers(balanced: RuleContext, demo: RuleContext) -> None:
    assert findings(balanced, "latency.disk.outlier") == []
    assert findings(demo, "latency.disk.outlier") == []
