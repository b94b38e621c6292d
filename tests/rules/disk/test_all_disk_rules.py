"""The disk rules together (`pinchpoint.rules.disk.RULES`): nothing on healthy disks or on disks
smartctl could not open, every rule skipped with the reason without its input."""

from __future__ import annotations

import pytest

from pinchpoint.checks.collect.block import kind_of_name
from pinchpoint.model.block import BlockDevice, BlockInventory
from tests.rules.disk.conftest import (
    FAILED_SATA,
    HEALTHY,
    UNREADABLE,
    health,
    rules_of,
    run,
)


@pytest.mark.parametrize("name", HEALTHY)
def test_a_healthy_disk_gives_no_finding(name: str) -> None:
    findings, _ = run([health(name)])
    assert findings == []


@pytest.mark.parametrize("name", UNREADABLE)
def test_a_disk_smartctl_could_not_open_gives_no_finding(name: str) -> None:
    unread = health(name)
    assert not unread.collected
    findings, _ = run([unread, health(FAILED_SATA, "sdb")])
    assert rules_of(findings) == ["disk.smart.failed"]  # the other disk is still judged
    assert findings[0].entity.name.startswith("sdb ")


def test_disk_rules_without_inputs_are_skipped_with_the_reason() -> None:
    findings, skipped = run()
    assert findings == []
    reasons = {s.rule: s.reason for s in skipped}
    assert reasons["disk.smart.failed"] == "no SMART data (smartctl not run or not installed)"
    assert reasons["disk.partition.misaligned"] == "no block devices found"


def _block(*names: str) -> BlockInventory:
    return BlockInventory(
        devices=[BlockDevice(id=f"block:name:{n}", name=n, kind=kind_of_name(n)) for n in names]
    )


def test_a_host_of_virtual_disks_is_said_to_have_no_disk_to_ask() -> None:
    """A VM's `vda` (or device-mapper, md) is no disk smartctl can ask: the skip says so rather
    than blaming smartctl, which may well be installed."""
    _, skipped = run(block=_block("dm-0", "md0", "vda", "vdb", "vdc"))
    reason = {s.rule: s.reason for s in skipped}["disk.smart.failed"]
    assert reason.startswith("no SMART data: no SCSI, SATA, SAS or NVMe disk on this host")
    assert "(its block devices, dm-0, md0, vda, vdb, …, are virtual" in reason


@pytest.mark.parametrize("disk", ["sda", "nvme0n1"])
def test_a_host_with_a_disk_smartctl_could_ask_keeps_the_general_reason(disk: str) -> None:
    _, skipped = run(block=_block("vda", disk))
    reason = {s.rule: s.reason for s in skipped}["disk.smart.failed"]
    assert reason == "no SMART data (smartctl not run or not installed)"
