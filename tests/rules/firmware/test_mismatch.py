"""`firmware.mismatch` on a simulated host with mixed disk and I/O module firmware, on simulated
NVMe/AHCI hosts without a SAS HBA, and on the real `lsscsi` + `sas3ircu DISPLAY` capture of
kernel bugzilla 215691, whose disks look mixed when grouped by the 16-character model sysfs
gives and are not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.sas import Disk, Hba, SasFabric
from pinchpoint.rules import firmware
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.derived.firmware import firmware_units
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

BUGZILLA = (
    FIXTURES
    / "firmware"
    / (
        "kernel-bugzilla215691__lsscsi_and_sas3ircu_DISPLAY_SAS3008_fw16.00.10.00_"
        "mixed_disk_firmware.txt"
    )
)


def mismatches(inventory: Inventory) -> list[Finding]:
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return found


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    out = tmp_path_factory.mktemp("firmware") / "mixed"
    write_snapshot(load_spec(SPECS / "mixed_firmware.toml"), out)
    return collect_inventory(SnapshotSource(out))


def test_three_disks_behind_their_peers_are_named_by_slot(mixed: Inventory) -> None:
    (disks,) = [f for f in mismatches(mixed) if "disks" in f.title]
    assert disks.severity is Severity.INFO
    assert disks.title == "2 firmware levels on 24 disks HGST HUH721212AL5200 10.9 TiB"
    behind = [f for f in disks.evidence[0].facts if f.entity is not None]
    assert {f.entity.name for f in behind if f.entity} == {
        "JBOD-B slot 2 (SLOT 03)",
        "JBOD-B slot 5 (SLOT 06)",
        "JBOD-B slot 9 (SLOT 10)",
    }
    assert {f.value for f in behind} == {"A1G0"}


def test_io_modules_at_two_levels_are_a_warning(mixed: Inventory) -> None:
    (modules,) = [f for f in mismatches(mixed) if "I/O modules" in f.title]
    assert modules.severity is Severity.WARNING
    assert "3010 on 2, 3008 on 2" in modules.evidence[0].summary


def _sas3ircu_disks(text: str) -> list[Disk]:
    """The disks `sas3ircu DISPLAY` lists, as the SAS inventory would hold them (sysfs gives
    the same vendor, 16-character model, revision and size)."""
    disks = []
    for block in re.split(r"^Device is an? ", text, flags=re.MULTILINE)[1:]:
        if not block.startswith("Hard disk"):
            continue  # the enclosure services devices
        field = dict(re.findall(r"^\s+(.+?)\s+: (.*)$", block, re.MULTILINE))
        sectors = int(field["Size (in MB)/(in sectors)"].split("/")[1])
        disks.append(
            Disk(
                id=f"disk:{field['GUID']}",
                vendor=field["Manufacturer"],
                model=field["Model Number"],
                revision=field["Firmware Revision"],
                serial=field["Serial No"],
                size_bytes=sectors * 512,
            )
        )
    return disks


def test_models_cut_to_16_characters_are_not_taken_for_one(tmp_path: Path) -> None:
    """ "Samsung SSD 850" is a 1 TB model at 3B6Q and a 4 TB one at 2B6Q; ST2000DM001-1ER1 and
    -1CH1 are two models: no mismatch. Grouped by the cut model alone, both would be one."""
    disks = _sas3ircu_disks(BUGZILLA.read_text())
    assert {d.revision for d in disks if d.model == "Samsung SSD 850"} == {"3B6Q", "2B6Q"}
    sas3008 = Hba(
        id="hba:0000:83:00.0",
        pci_address="0000:83:00.0",
        scsi_host="host9",
        driver="mpt3sas",
        board_name="SAS3008",
        firmware="16.00.10.00",
    )
    inventory = Inventory(
        host=HostInfo(hostname="vm2", source=SourceKind.SNAPSHOT),
        sas=SasFabric(hbas=[sas3008], disks=disks),
    )
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert (found, skipped, ran) == ([], [], 1)  # judged, and nothing found
    for disk in inventory.sas.disks:  # capacity unknown: one model, two levels
        disk.size_bytes = None
    (found,) = mismatches(inventory)
    assert "Samsung SSD 850" in found.title


def simulated(spec: Path, out: Path) -> Inventory:
    write_snapshot(load_spec(spec), out)
    return collect_inventory(SnapshotSource(out))


def test_nvme_drives_of_one_model_at_two_levels_without_a_sas_hba(tmp_path: Path) -> None:
    inventory = simulated(SPECS / "nvme_mixed_firmware.toml", tmp_path / "nvme")
    assert not inventory.sas.hbas
    (found,) = mismatches(inventory)
    assert found.severity is Severity.INFO
    assert found.title == "2 firmware levels on 4 disks Micron_7300_MTFDHBE1T6TDG 1.46 TiB"
    assert "95420260 on 2, 95420040 on 2" in found.evidence[0].summary
    behind = [f for f in found.evidence[0].facts if f.entity is not None]
    assert sorted(f.entity.name for f in behind if f.entity) == [
        "NVMe nvme2 (0000:5e:00.0) nvme2n1",
        "NVMe nvme3 (0000:5f:00.0) nvme3n1",
    ]
    assert {f.value for f in behind} == {"95420040"}


def test_nvme_and_ahci_disks_at_one_level_each_are_judged_and_quiet(tmp_path: Path) -> None:
    """The simulated NVMe host: four NVMe SSDs at one level and two SATA HDDs on the
    chipset's AHCI ports at another: judged, nothing found."""
    spec = ROOT / "pinchpoint" / "simulator" / "specs" / "nvme_host.toml"
    inventory = simulated(spec, tmp_path / "nvme_host")
    disks = [u for u in firmware_units(inventory) if u.kind == "disk"]
    assert (
        sorted((u.model, u.firmware) for u in disks)
        == [("Micron_7300_MTFDHBE1T6TDG 1.46 TiB", "95420260")] * 4
        + [("ST4000NM0035-1V4107 3.64 TiB", "TN04")] * 2
    )
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert (found, skipped, ran) == ([], [], 1)


def test_sata_disks_on_ahci_ports_by_the_model_and_firmware_smartctl_reports(
    tmp_path: Path,
) -> None:
    """Chipset AHCI: one HDD behind its three peers, and a 1 TB Samsung 860 EVO at RVT02B6Q
    beside two at RVT04B6Q, which sysfs cannot tell apart (model cut to "Samsung SSD 860 ",
    revision to "RVT0"); the 500 GB one is a model of its own."""
    inventory = simulated(SPECS / "ahci_mixed_firmware.toml", tmp_path / "ahci")
    assert not inventory.sas.hbas
    ssds = [d for d in inventory.block.devices if d.name in ("sde", "sdf", "sdg", "sdh")]
    assert {(d.controller.driver if d.controller else None) for d in ssds} == {"ahci"}
    sysfs = [tmp_path / "ahci" / "sys" / "block" / d.name for d in ssds]
    assert {(p / "device/model").read_text().strip() for p in sysfs} == {"Samsung SSD 860"}
    assert {(p / "device/rev").read_text().strip() for p in sysfs} == {"RVT0"}
    found = {f.title: f for f in mismatches(inventory)}
    assert set(found) == {
        "2 firmware levels on 4 disks ST4000NM0035-1V4107 3.64 TiB",
        "2 firmware levels on 3 disks Samsung SSD 860 EVO 1TB 932 GiB",
    }
    hdds = found["2 firmware levels on 4 disks ST4000NM0035-1V4107 3.64 TiB"]
    ssd = found["2 firmware levels on 3 disks Samsung SSD 860 EVO 1TB 932 GiB"]
    assert {f.severity for f in found.values()} == {Severity.INFO}
    assert "TN04 on 3, TN03 on 1; 1 not at the usual TN04" in hdds.evidence[0].summary
    assert "RVT04B6Q on 2, RVT02B6Q on 1" in ssd.evidence[0].summary
    behind = [
        (f.entity.name, f.value) for g in (hdds, ssd) for f in g.evidence[0].facts if f.entity
    ]
    assert behind == [
        ("AHCI 0000:00:17.0 ata4 sdd", "TN03"),
        ("AHCI 0000:05:00.0 ata7 sdg", "RVT02B6Q"),
    ]


def test_iscsi_luns_of_two_arrays_at_two_releases_are_not_disks(tmp_path: Path) -> None:
    """Two NetApp arrays at ONTAP 9111 and 9141, two LUNs each over iSCSI, each LUN with its
    smartctl report: the releases are the arrays', not mixed disk firmware."""
    inventory = simulated(SPECS / "iscsi_two_arrays_firmware.toml", tmp_path / "iscsi")
    revisions = {h.device: (h.model, h.firmware) for h in inventory.health.disks}
    assert sorted(set(revisions.values())) == [
        ("NETAPP LUN C-Mode", "9111"),
        ("NETAPP LUN C-Mode", "9141"),
    ]
    assert [u for u in firmware_units(inventory) if u.kind == "disk"] == []
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert (found, skipped, ran) == ([], [], 1)


def test_nvme_tcp_namespaces_of_two_arrays_are_not_disks(tmp_path: Path) -> None:
    """Two PowerStore subsystems at 3.6.0.0 and 4.0.0.0 over NVMe/TCP, their namespaces
    identified by the EUI-64 the controllers' smartctl reports list (so they join those
    reports as a local SSD's namespace does): only the two local SSDs are disks."""
    inventory = simulated(SPECS / "nvme_tcp_two_arrays_firmware.toml", tmp_path / "nvme")
    heads = [n.wwid or "" for s in inventory.nvme.subsystems if s.fabrics for n in s.namespaces]
    assert len(heads) == 4 and all(w.startswith("eui.") for w in heads)
    reported = {ns.eui64 for h in inventory.health.disks if h.nvme for ns in h.nvme.namespaces}
    assert reported & set(heads)  # the join that made them look like disks
    disks = [u for u in firmware_units(inventory) if u.kind == "disk"]
    assert sorted(u.name for u in disks) == [
        "NVMe nvme0 (0000:61:00.0) nvme0n1",
        "NVMe nvme1 (0000:62:00.0) nvme1n1",
    ]
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert (found, skipped, ran) == ([], [], 1)


def test_a_host_without_a_sas_hba_or_smart_data_is_skipped_with_the_reason() -> None:
    inventory = Inventory(host=HostInfo(hostname="empty", source=SourceKind.SNAPSHOT))
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), firmware.RULES)
    assert (found, ran) == ([], 0)
    (skip,) = skipped
    assert skip.rule == "firmware.mismatch"
    assert "no SAS HBA and no SMART data" in skip.reason
