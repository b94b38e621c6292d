"""`disk.partition.misaligned` on the real block devices of the procfs capture and a simulated
host with partitions of its own (`tests/fixtures/specs/misaligned_partition.toml`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.block import collect_block
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.block import BlockInventory
from pinchpoint.rules import disk
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, RuleSettings
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot
from tests.rules.disk.conftest import (
    BLOCK,
    FAILED_SATA,
    health,
    rules_of,
    run,
)


@pytest.fixture(scope="module")
def real_block() -> BlockInventory:
    return collect_block(SnapshotSource(BLOCK), ProblemLog())


def test_the_real_partitions_are_aligned(real_block: BlockInventory) -> None:
    starts = [p.start_sectors for d in real_block.devices for p in d.partitions]
    assert starts == [2048, 2203648, 6397952]
    findings, _ = run(block=real_block)
    assert findings == []


def _moved_start(block: BlockInventory, start_sectors: int) -> BlockInventory:
    """The real capture with the NVMe namespace's first partition moved to `start_sectors`."""
    changed = block.model_copy(deep=True)
    nvme = next(d for d in changed.devices if d.name == "nvme0n1")
    nvme.partitions[0].start_sectors = start_sectors
    return changed


def test_a_partition_at_sector_63_is_misaligned(real_block: BlockInventory) -> None:
    findings, _ = run(block=_moved_start(real_block, 63))
    assert rules_of(findings) == ["disk.partition.misaligned"]
    assert findings[0].entity.name.startswith("nvme0n1p1 on nvme0n1")
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts["start"] == 63
    assert facts["offset past the boundary"] == 63 * 512


def test_a_64_kib_aligned_partition_passes_when_64_kib_is_configured(
    real_block: BlockInventory,
) -> None:
    block = _moved_start(real_block, 128)  # 64 KiB
    findings, _ = run(block=block)
    assert rules_of(findings) == ["disk.partition.misaligned"]
    config = Config(
        rules={"disk.partition.misaligned": RuleSettings(thresholds={"alignment_kib": 64})}
    )
    findings, _ = run(block=block, config=config)
    assert findings == []


def test_a_partition_with_no_start_is_not_judged(real_block: BlockInventory) -> None:
    changed = real_block.model_copy(deep=True)
    for device in changed.devices:
        for partition in device.partitions:
            partition.start_sectors = None
    findings, _ = run(block=changed)
    assert findings == []


def test_a_zero_alignment_is_a_clear_failure_of_that_rule_only(
    real_block: BlockInventory,
) -> None:
    config = Config(
        rules={"disk.partition.misaligned": RuleSettings(thresholds={"alignment_kib": 0})}
    )
    findings, skipped = run([health(FAILED_SATA)], block=real_block, config=config)
    assert rules_of(findings) == ["disk.smart.failed"]
    assert {s.rule: s.reason for s in skipped}["disk.partition.misaligned"] == (
        "rule failed: ValueError: alignment_kib must be positive, not 0"
    )


def test_misaligned_partitions_of_a_simulated_host(tmp_path: Path) -> None:
    """misaligned_partition.toml: bay 0's partition at sector 63 and bay 2's at sector 128
    (64 KiB) are off a 1 MiB boundary; bays 1 and 3 (2048, and 2048 + 1050624) are not. With
    64 KiB accepted, only the DOS start remains. Every disk's SCSI and block data are read
    from the simulated sysfs as from a live host."""
    write_snapshot(load_spec(SPECS / "misaligned_partition.toml"), tmp_path / "host")
    inventory = collect_inventory(SnapshotSource(tmp_path / "host"))
    context = RuleContext(inventory=inventory)
    findings, _, _ = evaluate(context, disk.RULES)
    misaligned = [f for f in findings if f.rule == "disk.partition.misaligned"]
    wwids = {d.slot: d.wwid for d in inventory.sas.disks}
    assert sorted(f.entity.name for f in misaligned) == [
        f"sda1 on sda ({wwids[0]})",
        f"sdc1 on sdc ({wwids[2]})",
    ]
    by_name = {f.entity.name.split()[0]: f for f in misaligned}
    facts = {f.name: f.value for f in by_name["sda1"].evidence[0].facts}
    assert (facts["start"], facts["offset past the boundary"]) == (63, 63 * 512)
    assert by_name["sdc1"].title == "sdc1 starts 65536 bytes past a 1024 KiB boundary"
    config = Config(
        rules={"disk.partition.misaligned": RuleSettings(thresholds={"alignment_kib": 64})}
    )
    findings, _, _ = evaluate(context, disk.RULES, config)
    assert [f.entity.name.split()[0] for f in findings if f.rule.endswith("misaligned")] == ["sda1"]
