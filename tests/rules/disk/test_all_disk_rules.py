"""The disk rules together (`pinchpoint.rules.disk.RULES`): nothing on healthy disks or on disks
smartctl could not open, every rule skipped with the reason without its input."""

from __future__ import annotations

import pytest

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
