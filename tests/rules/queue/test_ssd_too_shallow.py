"""`queue.ssd.too_shallow` on SSDs held to 2 I/Os
(`tests/fixtures/specs/ssd_queue_too_shallow.toml`), by their SCSI queue depth or by ZFS."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.queue import RULES
from tests.rules.queue.conftest import (
    changed,
    findings,
    shallow_findings,
    with_figures,
    with_queue_depth,
)


def test_ssds_held_to_two_ios_with_a_full_queue(flash: RuleContext) -> None:
    found = shallow_findings(flash)
    assert [f.entity.name for f in found] == ["JBOD-F"]
    evidence = found[0].evidence[0]
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["queue_depth"] == 2
    assert facts["I/Os allowed per disk"] == 2
    assert facts["SSDs affected"] == 12
    assert facts["recommended"] == 16
    queue = facts["mean queue per disk"]
    assert isinstance(queue, float) and 1.6 <= queue <= 2.0
    assert "queue_depth = 2" in evidence.summary
    assert "device/queue_depth` (now 2)" in found[0].remediation
    assert findings(flash) == []  # SSDs are not judged as HDDs


def test_ssds_allowed_32_keep_zfs_default_of_10_and_are_fine(flash: RuleContext) -> None:
    assert shallow_findings(with_queue_depth(flash, 32)) == []


def test_a_low_zfs_allowance_is_named_as_the_cap(flash: RuleContext) -> None:
    context = with_queue_depth(flash, 32)
    context.inventory.zfs.vdev_queue_parameters = {
        name: 1
        for name in (
            "zfs_vdev_sync_read_max_active",
            "zfs_vdev_sync_write_max_active",
            "zfs_vdev_async_read_max_active",
            "zfs_vdev_async_write_max_active",
        )
    }
    found = shallow_findings(context)
    assert [f.entity.name for f in found] == ["JBOD-F"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["I/Os allowed per disk"] == 1
    assert "zfs_vdev_*_max_active` parameters (now 1" in found[0].remediation


def test_an_idle_ssd_with_a_low_setting_is_not_held_back(flash: RuleContext) -> None:
    assert shallow_findings(with_figures(flash, aqu_sz=0.3)) == []


def test_the_ssd_minimum_is_configurable(flash: RuleContext) -> None:
    config = parse_config(
        {"rules": {"queue.ssd.too_shallow": {"min_ssd_queue": 2}}}, RULES, "test.toml"
    )
    assert shallow_findings(flash, config) == []


def test_hdds_with_a_shallow_queue_are_not_ssds(deep: RuleContext) -> None:
    assert shallow_findings(with_queue_depth(deep, 2)) == []


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/ahci_deep_queue.toml ----


def test_sata_ssds_with_ncq_off_on_an_ahci_card(ahci_deep: RuleContext) -> None:
    """Four SATA SSDs at queue_depth 1 (NCQ off) holding all they may: named by their AHCI
    controller, the fix names the disk's own file."""
    (found,) = shallow_findings(ahci_deep)
    assert found.entity.kind.value == "controller"
    assert found.entity.name == "AHCI 0000:05:00.0"
    facts = {f.name: f.value for f in found.evidence[0].facts}
    assert facts["queue_depth"] == 1
    assert facts["I/Os allowed per disk"] == 1
    assert facts["SSDs affected"] == 4
    queue = facts["mean queue per disk"]
    assert isinstance(queue, float) and queue >= 0.8
    assert "/sys/block/sdg/device/queue_depth" in found.remediation


def test_nvme_namespaces_held_by_a_lowered_nr_requests(nvme_healthy: RuleContext) -> None:
    """The healthy NVMe host is quiet at the driver's 1023; NVMe namespaces held by
    `nr_requests` to one I/O while they hold 0.7 on average (more than the half a lowered
    `fill_share` asks) are each named by themselves."""
    assert shallow_findings(nvme_healthy) == []
    inventory = nvme_healthy.inventory.model_copy(deep=True)
    for device in inventory.block.devices:
        if device.name.startswith("nvme"):
            device.nr_requests = 1
    config = parse_config(
        {"rules": {"queue.ssd.too_shallow": {"fill_share": 0.5}}}, RULES, "test.toml"
    )
    found = shallow_findings(changed(nvme_healthy, inventory), config)
    assert [f.entity.name for f in found] == [
        "NVMe nvme0 (0000:3b:00.0) nvme0n1",
        "NVMe nvme1 (0000:3c:00.0) nvme1n1",
        "NVMe nvme2 (0000:5e:00.0) nvme2n1",
        "NVMe nvme3 (0000:5f:00.0) nvme3n1",
    ]
    assert "/sys/block/nvme0n1/queue/nr_requests" in found[0].remediation
