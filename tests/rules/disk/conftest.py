"""What the disk rule tests share: the real smartctl captures (`tests/fixtures/smartctl`, see
SOURCES.md) and the real block devices of the procfs capture (`tests/fixtures/block`), and how
they run the disk rules on an inventory of just those; and the simulated host of SMART faults
(tests/fixtures/specs/smart_faults.toml) read back as a snapshot."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.block import BlockInventory
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.health import DiskHealth, DiskHealthInventory
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.rules import disk
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config
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
SCT_LIMITS = (
    "smart-prom-next__sata_hdd_SAMSUNG_HD204UI_-x_spin_up_time_failed_past_sct_temperature_limits"
    ".json"
)
MEDIA_WEAROUT_15 = "smartctl_exporter__sata_ssd_INTEL_SSDSC2BB016T4_Media_Wearout_Indicator_15.json"
NVME_USED_75 = "smartctl_exporter__nvme_INTEL_SSDPE2KX020T7_percentage_used_75.json"
MEGARAID_SATA = "scrutiny__sata_hdd_WD4000FYYX_behind_megaraid_-d_megaraid0.json"
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


def of_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


@pytest.fixture(scope="session")
def smart_faults(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    """The simulated host of smart_faults.toml, collected from its snapshot."""
    out = tmp_path_factory.mktemp("smart") / "smart_faults"
    write_snapshot(load_spec(SPECS / "smart_faults.toml"), out)
    return collect_inventory(SnapshotSource(out))


def judge_host(inventory: Inventory, config: Config | None = None) -> list[Finding]:
    findings, skipped, _ = evaluate(RuleContext(inventory=inventory), disk.RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return findings
