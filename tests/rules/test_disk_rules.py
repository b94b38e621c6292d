"""The disk rules on the real smartctl captures (`tests/fixtures/smartctl`, see SOURCES.md),
the real block devices of the procfs capture (`tests/fixtures/block`) and a simulated host
with partitions of its own (`tests/fixtures/specs/misaligned_partition.toml`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.block import collect_block
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.block import BlockInventory
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.health import DiskHealth, DiskHealthInventory
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.rules import disk
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, RuleSettings
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

SMARTCTL = FIXTURES / "smartctl"
BLOCK = FIXTURES / "block" / "procfs"

FAILED_SATA = "smart-prom-next__sata_wd3200bevt_usbjmicron_-a_when_failed_now_exit216.json"
FAILED_NVME = "smartctl_exporter__nvme_SAMSUNG_MZWLL3T2HAJQ_FAILED_critical_warning16.json"
LINK_3_OF_6 = "smartctl_exporter__sata_hdd_HGST_HUS724020ALE640_28_link_3of6Gbps.json"
LINK_AND_REALLOC = "smartctl_exporter__sata_hdd_ST3000NM0033_link_3of6Gbps_realloc1.json"
REALLOC_304 = "smartctl_exporter__sata_hdd_ST3500418AS_12_realloc304.json"
GROWN_260 = "smartctl_exporter__spi_scsi_hdd_SEAGATE_ST373453LC_26_grown_defects_260.json"
NVME_MEDIA_7 = "scrutiny__nvme_Samsung970EVO_-x-j_media_errors7.json"
HEALTHY = (
    "smartctl_exporter__sata_hdd_Exos_X16_ST16000NM001G_healthy.json",
    "smartctl_exporter__sata_ssd_SAMSUNG_MZ7LH1T9HMLT_healthy.json",
    "smartctl_exporter__nvme_Micron_7300_healthy.json",
    "smartctl_exporter__sas_hdd_HITACHI_H109060SESUN600G_9.json",
    "scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json",
)
UNREADABLE = (
    "local__smartctl73_-x-j_no_such_device_exit2.json",
    "smart-prom-next__nvme_-x_open_permission_denied.json",
    "derived__megaraid_logical_drive_open_failed_exit2.json",
)


def health(name: str, device: str = "sda") -> DiskHealth:
    return parse_smartctl_json((SMARTCTL / name).read_text(), device)


def run(
    disks: list[DiskHealth] | None = None,
    block: BlockInventory | None = None,
    config: Config | None = None,
) -> tuple[list[Finding], list[SkippedRule]]:
    inventory = Inventory(
        host=HostInfo(source=SourceKind.SNAPSHOT),
        health=DiskHealthInventory(disks=disks or []),
        block=block or BlockInventory(),
    )
    findings, skipped, _ = evaluate(RuleContext(inventory=inventory), disk.RULES, config)
    return findings, skipped


def rules_of(findings: list[Finding]) -> list[str]:
    return [f.rule for f in findings]


@pytest.mark.parametrize("name", [FAILED_SATA, FAILED_NVME])
def test_a_failed_smartctl_output_gives_smart_failed(name: str) -> None:
    findings, _ = run([health(name)])
    assert rules_of(findings) == ["disk.smart.failed"]  # not also "degrading": one finding
    facts = {f.name: f.value for f in findings[0].evidence[0].facts}
    assert facts["SMART overall health"] == "FAILED"
    assert findings[0].severity.value == "critical"


def test_the_failing_attribute_and_the_wear_are_the_evidence() -> None:
    findings, _ = run([health(FAILED_SATA)])
    evidence = findings[0].evidence[0]
    assert "attribute 5 Reallocated_Sector_Ct is at 133, at or below its threshold 140" in (
        evidence.summary
    )
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["reallocated sectors"] == 535
    assert facts["pending sectors"] == 1


@pytest.mark.parametrize(
    ("name", "first_sign"),
    [
        (REALLOC_304, ("reallocated sectors", 304)),
        (GROWN_260, ("grown defects", 260)),
        (NVME_MEDIA_7, ("media errors", 7)),
    ],
)
def test_wear_on_a_disk_that_passes_smart_is_degrading(
    name: str, first_sign: tuple[str, int]
) -> None:
    findings, _ = run([health(name)])
    assert rules_of(findings) == ["disk.smart.degrading"]
    facts = [(f.name, f.value) for f in findings[0].evidence[0].facts]
    assert facts[0] == first_sign


def test_degrading_thresholds_are_configurable() -> None:
    config = Config(
        rules={"disk.smart.degrading": RuleSettings(thresholds={"max_reallocated": 500})}
    )
    findings, _ = run([health(REALLOC_304)], config=config)
    assert findings == []


@pytest.mark.parametrize("name", [LINK_3_OF_6, LINK_AND_REALLOC])
def test_a_sata_link_at_3_of_6_gbps_is_downgraded(name: str) -> None:
    findings, _ = run([health(name)])
    link = [f for f in findings if f.rule == "disk.sata_link.downgraded"]
    assert len(link) == 1
    facts = {f.name: f.value for f in link[0].evidence[0].facts}
    assert facts == {"link speed": 3.0, "drive's maximum": 6.0}
    assert "the host end's maximum is not known" in link[0].evidence[0].summary


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
