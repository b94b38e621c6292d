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


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/*.toml --------------------


def test_a_failing_sata_disk_among_the_hdds_of_its_ahci_controller(
    ahci_deep: RuleContext,
) -> None:
    """sdd on ata4 takes three times as long per I/O: compared with the HDDs of its
    controller only (the SSDs of the other AHCI controller are no peers)."""
    (found,) = findings(ahci_deep, "latency.disk.outlier")
    assert found.entity.name == "AHCI 0000:00:17.0 ata4 sdd"
    assert found.entity.kind.value == "disk"
    assert "AHCI 0000:00:17.0 (HDDs)" in found.evidence[0].summary
    peers = [p.name for p in found.evidence[0].peers]
    assert len(peers) == 5 and all(p.startswith("AHCI 0000:00:17.0 ata") for p in peers)


def test_one_slow_nvme_namespace_among_the_hosts_nvme_drives(nvme_healthy: RuleContext) -> None:
    """NVMe drives (one per controller) are compared with the host's others; the healthy
    host's even drives are quiet, one drive waiting 30 ms longer per I/O is named."""
    assert findings(nvme_healthy, "latency.disk.outlier") == []
    slow = [
        IntervalFigures(
            interval_s=i.interval_s,
            devices=[
                changed(d, r_await=d.r_await + 30, w_await=d.w_await + 30)
                if d.device == "nvme2n1"
                else d
                for d in i.devices
            ],
        )
        for i in nvme_healthy.intervals
    ]
    context = RuleContext(inventory=nvme_healthy.inventory, intervals=slow)
    (found,) = findings(context, "latency.disk.outlier")
    assert found.entity.name == "NVMe nvme2 (0000:5e:00.0) nvme2n1"
    assert "NVMe controllers on nvme-head (SSDs)" in found.evidence[0].summary
