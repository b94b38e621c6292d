"""smartctl's reports of SATA disks on AHCI ports, as the simulator writes them, against the real
SATA captures in tests/fixtures/smartctl: the same keys and shapes, read into the same facts by
the project's parser, and joined to their block device by the WWN sysfs gives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.health import DiskProtocol

SMARTCTL = FIXTURES / "smartctl"
# Real `smartctl -j` reports of SATA disks on a host's own ports (`[SAT]`, no USB or RAID
# bridge): HDDs and SSDs, smartctl 7.0 to 7.3, with and without `-x`.
REAL_SATA = [
    "smartctl_exporter__sata_hdd_Exos_X16_ST16000NM001G_healthy.json",
    "smartctl_exporter__sata_hdd_HGST_HUS724020ALE640_28_link_3of6Gbps.json",
    "smartctl_exporter__sata_hdd_ST3000NM0033_link_3of6Gbps_realloc1.json",
    "smartctl_exporter__sata_ssd_SAMSUNG_MZ7LH1T9HMLT_healthy.json",
    "scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json",
]
SHAPED = ("device", "wwn", "user_capacity", "interface_speed", "smart_support", "ata_version")


def real(name: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((SMARTCTL / name).read_text())
    return report


@pytest.fixture(scope="module")
def snapshot(scenario: Callable[[str], Path]) -> Path:
    return scenario("ahci_mixed_firmware")


def simulated(snapshot: Path, device: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((snapshot / f"commands/smartctl/{device}.json").read_text())
    return report


def test_every_ahci_disk_has_a_report_and_nothing_else_does(snapshot: Path) -> None:
    written = sorted(p.stem for p in (snapshot / "commands/smartctl").glob("*.json"))
    assert written == ["sda", "sdb", "sdc", "sdd", "sde", "sdf", "sdg", "sdh"]


@pytest.mark.parametrize("device", ["sdd", "sdg"])
def test_the_keys_are_those_of_real_sata_reports(snapshot: Path, device: str) -> None:
    """Each top-level key appears in a real report; the objects a parser reads have the keys
    of the first real report holding them (the HDD on sdd, the SSD on sdg)."""
    report = simulated(snapshot, device)
    reals = [real(name) for name in REAL_SATA]
    known = {key for r in reals for key in r}
    assert set(report) <= known, set(report) - known
    exos = reals[0]
    for key in SHAPED:
        model = next(r[key] for r in reals if key in r)
        assert set(report[key]) == set(model), key
    for speed in ("max", "current"):
        assert set(report["interface_speed"][speed]) == set(exos["interface_speed"][speed])
    attribute = exos["ata_smart_attributes"]["table"][0]
    assert all(set(a) == set(attribute) for a in report["ata_smart_attributes"]["table"])
    assert set(report["temperature"]) <= {"current", "op_limit_max", "limit_max"} | set(
        real("scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json")["temperature"]
    )


def test_the_parser_reads_the_same_facts_from_both(snapshot: Path) -> None:
    exos = parse_smartctl_json(json.dumps(real(REAL_SATA[0])), "sda")
    hdd = parse_smartctl_json(json.dumps(simulated(snapshot, "sdd")), "sdd")
    for health in (exos, hdd):
        assert health.collected and health.smartctl_device_type == "sat"
        assert health.protocol is DiskProtocol.ATA
        assert health.wwn is not None and health.wwn.startswith("naa.5")
        assert health.ata is not None and health.ata.reallocated_sectors is not None
        assert health.ata.sata_link_current_gbps == health.ata.sata_link_max_gbps == 6.0
        assert health.smart_passed is True
        assert health.rotation_rate_rpm == 7200
    assert (hdd.model, hdd.firmware) == ("ST4000NM0035-1V4107", "TN03")
    assert hdd.user_capacity_bytes == 4000787030016
    assert (hdd.temperature_warning_c, hdd.temperature_critical_c) == (60, 70)
    assert hdd.self_tests and hdd.self_tests[0].description == "Short offline"
    ssd = parse_smartctl_json(json.dumps(simulated(snapshot, "sdh")), "sdh")
    assert (ssd.model, ssd.firmware, ssd.rotation_rate_rpm) == (
        "Samsung SSD 860 EVO 500GB",
        "RVT02B6Q",
        0,
    )


def test_each_report_joins_its_block_device_by_wwn(snapshot: Path) -> None:
    """sysfs `wwid` is the WWN smartctl reports (libata puts the NAA designator in the
    device identification page, which the kernel prefers): one disk, one identity."""
    inventory = collect_inventory(SnapshotSource(snapshot))
    wwids = {d.name: d.wwid for d in inventory.block.devices}
    by_device = {h.device: h for h in inventory.health.disks}
    assert set(by_device) == set(wwids)
    for name, health in by_device.items():
        assert health.wwn == wwids[name], name
    assert len(set(wwids.values())) == len(wwids)
    seagate = [w for n, w in wwids.items() if n in ("sda", "sdb", "sdc", "sdd")]
    samsung = [w for n, w in wwids.items() if n in ("sde", "sdf", "sdg", "sdh")]
    assert all(w and w.startswith("naa.5000c50") for w in seagate)  # Seagate's OUI 00:0c:50
    assert all(w and w.startswith("naa.5002538") for w in samsung)  # Samsung's 00:25:38
