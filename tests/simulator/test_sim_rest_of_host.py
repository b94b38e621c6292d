"""The rest of the host (NICs, bonds, FC, multipath, smartctl): collectors read back the spec."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.block import BlockKind, ControllerKind
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import BondMode, Duplex
from pinchpoint.simulator import SpecError, load_spec, spec_from_data, write_snapshot


def inventory_of(root: Path) -> Inventory:
    return collect_inventory(SnapshotSource(root))


def lines(inv: Inventory) -> list[str]:
    return [p.line() for p in inv.problems]


@pytest.fixture(scope="module")
def demo_inventory(demo_root: Path) -> Inventory:
    return inventory_of(demo_root)


def test_demo_has_no_problem_at_all(demo_inventory: Inventory) -> None:
    assert lines(demo_inventory) == []


def test_demo_network(demo_inventory: Inventory) -> None:
    nics = {n.name: n for n in demo_inventory.network.nics}
    assert sorted(nics) == ["eno1", "ens1f0", "ens1f1"]
    for name in ("ens1f0", "ens1f1"):
        nic = nics[name]
        assert (nic.speed_mbps, nic.max_supported_speed_mbps, nic.max_common_speed_mbps) == (
            10000,
            10000,
            10000,
        )
        assert nic.driver is not None and nic.driver.driver == "ixgbe"
        assert nic.bond == "bond0" and nic.mtu == 9000 and nic.carrier is True
    assert nics["ens1f0"].pci_address == "0000:18:00.0"
    assert nics["ens1f1"].pci_address == "0000:18:00.1"
    assert nics["eno1"].speed_mbps == 1000 and nics["eno1"].bond is None
    (bond,) = demo_inventory.network.bonds
    assert bond.name == "bond0" and bond.mode is BondMode.LACP
    assert [(m.name, m.mii_status, m.speed_mbps, m.present) for m in bond.members] == [
        ("ens1f0", "up", 10000, True),
        ("ens1f1", "up", 10000, True),
    ]
    assert bond.speed_mbps == 20000 and bond.active_aggregator_ports == 2
    assert bond.lacp_rate == "fast"


def test_demo_health_and_pcie(demo_inventory: Inventory) -> None:
    health = demo_inventory.health.disks
    assert len(health) == 360 and all(h.smart_passed for h in health)
    assert {h.id for h in health} == {d.id for d in demo_inventory.sas.disks}
    assert demo_inventory.fc.ports == [] and demo_inventory.multipath.maps == []
    kinds = {f.pci_address: f.kind.value for f in demo_inventory.pcie.functions}
    assert kinds["0000:18:00.0"] == "network" and kinds["0000:03:00.0"] == "storage"
    assert demo_inventory.host.hostname == "demo-storage-head"


def test_demo_proc_kernel(demo_root: Path) -> None:
    assert (demo_root / "proc/sys/kernel/hostname").read_text() == "demo-storage-head\n"
    assert (demo_root / "proc/sys/kernel/osrelease").read_text() == "6.1.0-28-amd64\n"


def test_demo_block_queue_of_disks(demo_inventory: Inventory) -> None:
    disks = [d for d in demo_inventory.block.devices if d.name.startswith("sd")]
    assert len(disks) == 600
    disk = disks[0]
    assert (disk.queue_depth, disk.nr_requests, disk.scheduler, disk.rotational) == (
        254,
        256,
        "mq-deadline",
        True,
    )
    assert (disk.logical_block_size_bytes, disk.physical_block_size_bytes) == (512, 4096)


def test_downgraded_nic(scenario: Callable[[str], Path]) -> None:
    inv = inventory_of(scenario("downgraded_nic"))
    assert lines(inv) == []
    nic = inv.network.nic("eno1")
    assert nic is not None and nic.pci_address == "0000:01:00.0"
    peers = [n for n in inv.network.nics if n.name != "eno1"]  # its 1 GbE peers (field case 3)
    assert len(peers) == 3 and {n.speed_mbps for n in peers} == {1000}
    models = {
        (f.driver, f.vendor_id, f.device_id)
        for f in inv.pcie.functions
        if f.pci_address in {n.pci_address for n in inv.network.nics}
    }
    assert models == {("igb", "0x8086", "0x1521")}  # identical peers: one driver, one model
    assert nic.speed_mbps == 100
    assert nic.max_supported_speed_mbps == 1000
    assert nic.max_common_speed_mbps == 100
    assert nic.duplex is Duplex.FULL
    assert nic.driver is not None and nic.driver.driver == "igb"
    assert nic.settings is not None and nic.settings.partner_link_modes == [
        "10baseT/Half",
        "10baseT/Full",
        "100baseT/Half",
        "100baseT/Full",
    ]


def test_san_host(scenario: Callable[[str], Path]) -> None:
    inv = inventory_of(scenario("san_host"))
    assert lines(inv) == []  # no SAS HBA is a fact, not a problem
    ports = inv.fc.ports
    assert [(p.scsi_host, p.port_state, p.speed_gbps) for p in ports] == [
        ("host0", "Online", 16.0),
        ("host1", "Online", 16.0),
    ]
    for port in ports:
        assert port.supported_speeds_gbps == [4.0, 8.0, 16.0]
        assert port.driver == "lpfc" and port.lun_queue_depth == 30
        assert port.symbolic_name is not None and port.symbolic_name.model == "LPe32002-M2"
        assert len(port.remote_ports) == 1 and port.remote_ports[0].roles == ["FCP Target"]
        assert [lun.lun for lun in port.luns] == [1, 2, 3]
        assert all(lun.queue_depth == 30 and lun.vendor == "PURE" for lun in port.luns)
    assert [a.pci_address for a in inv.fc.adapters] == ["0000:41:00.0", "0000:41:00.1"]
    assert inv.fc.driver_settings.lpfc_lun_queue_depth == 30
    maps = inv.multipath.maps
    assert [m.name for m in maps] == ["mpatha", "mpathb", "mpathc"]
    for found in maps:
        assert found.size_bytes == 2 << 40
        assert len(found.paths) == 2
        assert {p.transport for p in found.paths} == {"fc"}
        assert {p.fc_port_name for p in found.paths} == {p.port_name for p in ports}
    wwids = {lun.wwid for lun in ports[0].luns}
    assert wwids == {lun.wwid for lun in ports[1].luns} and len(wwids) == 3
    assert len(inv.health.disks) == 3 and all(h.smart_passed for h in inv.health.disks)
    (bond,) = inv.network.bonds
    assert bond.mode is BondMode.ACTIVE_BACKUP and bond.active_member == "ens2f0"
    assert {n.name: n.speed_mbps for n in inv.network.nics} == {
        "eno1": 1000,
        "ens2f0": 25000,
        "ens2f1": 25000,
    }


def test_bench_host(scenario: Callable[[str], Path]) -> None:
    inv = inventory_of(scenario("bench_host"))
    assert lines(inv) == []
    assert len(inv.health.disks) == 1000
    assert all(h.smart_passed for h in inv.health.disks)
    assert len(inv.sas.disks) == 960
    assert len(inv.network.nics) == 16 and len(inv.network.bonds) == 2
    assert len(inv.fc.ports) == 4 and len(inv.multipath.maps) == 40
    assert all(len(m.paths) == 2 for m in inv.multipath.maps)


# --- what a spec can break ----------------------------------------------------------------------


def _small(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "hba": [{"name": "hba1"}],
        "enclosure": [
            {"name": "SAS", "bays": 4},
            {"name": "SATA", "bays": 4, "io_modules": 1, "disk": {"protocol": "sata"}},
        ],
        "chain": [
            {"hba": "hba1", "connector": 0, "io_module": "A", "enclosures": ["SAS", "SATA"]},
            {"hba": "hba1", "connector": 1, "io_module": "B", "enclosures": ["SAS"]},
        ],
    }
    data.update(extra)
    return data


def test_failing_disks_read_back(tmp_path: Path) -> None:
    spec = spec_from_data(
        _small(
            failing_disk=[
                {"enclosure": "SAS", "bay": 1, "kind": "grown_defects", "count": 260},
                {"enclosure": "SAS", "bay": 2, "kind": "smart_failed"},
                {"enclosure": "SATA", "bay": 0, "kind": "reallocated", "count": 304},
                {"enclosure": "SATA", "bay": 3, "kind": "smart_failed"},
            ]
        )
    )
    write_snapshot(spec, tmp_path / "s")
    inv = inventory_of(tmp_path / "s")
    assert len(inv.health.disks) == 8
    by_serial = {d.serial: d for d in inv.sas.disks}
    found = {}
    for health in inv.health.disks:
        disk = by_serial[health.serial]
        found[(disk.enclosure_id, disk.slot)] = health
        assert health.id == disk.id
    facts = {
        key: (
            h.smart_passed,
            h.scsi.grown_defects if h.scsi else None,
            h.ata.reallocated_sectors if h.ata else None,
        )
        for key, h in found.items()
    }
    values = sorted(facts.values(), key=repr)
    assert values.count((True, 0, None)) == 2  # healthy SAS
    assert (True, 260, None) in values
    assert (False, 0, None) in values
    assert (True, None, 304) in values
    assert (False, None, 120) in values  # failed on its reallocated sectors (default count)
    assert values.count((True, None, 0)) == 2
    sata = [h for h in inv.health.disks if h.ata is not None]
    assert all(h.ata and h.ata.sata_link_current_gbps == 6.0 for h in sata)


def test_nic_down_vanished_member_and_fc_linkdown(tmp_path: Path) -> None:
    spec = spec_from_data(
        {
            "nic": [
                {"name": "ens1f0", "pci_address": "0000:18:00.0", "bond": "bond0"},
                {
                    "name": "ens1f1",
                    "pci_address": "0000:18:00.1",
                    "bond": "bond0",
                    "operstate": "down",
                },
            ],
            "bond": [{"name": "bond0", "vanished": ["ens9"]}],
            "fc_port": [
                {"name": "a", "speed_gbps": 8, "driver": "qla2xxx", "luns": 2},
                {"name": "b", "state": "Linkdown"},
            ],
        }
    )
    write_snapshot(spec, tmp_path / "s")
    inv = inventory_of(tmp_path / "s")
    nics = {n.name: n for n in inv.network.nics}
    assert nics["ens1f0"].speed_mbps == 10000
    assert nics["ens1f1"].speed_mbps is None and nics["ens1f1"].carrier is False
    (bond,) = inv.network.bonds
    assert [(m.name, m.mii_status, m.present) for m in bond.members] == [
        ("ens1f0", "up", True),
        ("ens1f1", "down", True),
        ("ens9", "down", False),
    ]
    assert bond.active_aggregator_ports == 1
    text = " ".join(lines(inv))
    assert "ens9" in text and "ens1f1" in text
    fast, down = inv.fc.ports
    assert (fast.speed_gbps, fast.supported_speeds_gbps, fast.driver) == (
        8.0,
        [4.0, 8.0, 16.0],
        "qla2xxx",
    )
    assert len(fast.luns) == 2 and fast.luns[0].queue_depth == 64
    assert inv.fc.driver_settings.ql2xmaxqdepth == 64
    assert (down.port_state, down.speed_gbps, down.luns, down.remote_ports) == (
        "Linkdown",
        None,
        [],
        [],
    )
    assert inv.multipath.maps == []  # multipath not enabled


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"nic": [{"name": "eth0", "bond": "bond9"}]}, "nic[0].bond"),
        ({"nic": [{"name": "eth0", "speeds_mbps": [1234]}]}, "nic[0].speeds_mbps"),
        ({"bond": [{"name": "bond0", "members": ["eth7"]}]}, "bond[0].members"),
        ({"fc_port": [{"name": "a", "speed_gbps": 32}]}, "speed_gbps"),
        ({"fc_port": [{"name": "a", "pci_address": "nope"}]}, "fc_port[0].pci_address"),
        ({"failing_disk": [{"enclosure": "SAS", "bay": 0, "kind": "reallocated"}]}, "kind"),
        ({"failing_disk": [{"enclosure": "X", "bay": 0, "kind": "smart_failed"}]}, "enclosure"),
        ({"failing_disk": [{"enclosure": "SATA", "bay": 0, "kind": "worn"}]}, "kind"),
        (
            {"failing_disk": [{"enclosure": "SAS", "bay": 0, "kind": "hot", "temperature_c": 200}]},
            "temperature_c",
        ),
    ],
)
def test_errors_name_the_field(extra: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError, match=field.replace("[", r"\[").replace("]", r"\]")):
        spec_from_data(_small(**extra))


def _tree(root: Path) -> dict[str, str | bytes]:
    found: dict[str, str | bytes] = {}
    for directory, _dirs, files in os.walk(root):
        for name in files + _dirs:
            path = Path(directory, name)
            key = str(path.relative_to(root))
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_file():
                found[key] = path.read_bytes()
    return found


@pytest.mark.parametrize("name", ["san_host", "downgraded_nic"])
def test_deterministic(tmp_path: Path, name: str) -> None:
    spec = load_spec(SPECS / f"{name}.toml")
    write_snapshot(spec, tmp_path / "a")
    write_snapshot(spec, tmp_path / "b")
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_links_of_the_rest_resolve(scenario: Callable[[str], Path]) -> None:
    root = scenario("san_host")
    for base in ("sys/class/net", "sys/class/fc_host", "sys/class/fc_remote_ports", "sys/block"):
        for entry in (root / base).iterdir():
            if entry.is_symlink():
                assert entry.resolve().is_dir(), entry
    slaves = root / "sys/block/dm-0/slaves"
    assert sorted(p.name for p in slaves.iterdir()) == ["sda", "sdd"]
    assert (root / "sys/block/sda/holders/dm-0").resolve() == (root / "sys/block/dm-0").resolve()


def test_ahci_disks_and_iscsi_luns_take_distinct_sd_names_and_hosts(tmp_path: Path) -> None:
    """One numbering across every kind: the AHCI disks take sd names and SCSI hosts after the
    SAS fabric's, the iSCSI LUNs after the AHCI disks' (they log in after boot)."""
    session = {
        "target": "iqn.2003-01.org.linux-iscsi.array1:port-a",
        "portal": "10.8.100.6",
        "array": "array1",
        "luns": [0, 1],
    }
    spec = spec_from_data(
        _small(ahci=[{"disk": [{}, {}]}], iscsi_session=[session], nic=[{"name": "eno1"}])
    )
    write_snapshot(spec, tmp_path / "s")
    inv = inventory_of(tmp_path / "s")
    assert lines(inv) == []
    names = [d.name for d in inv.block.devices if d.kind is BlockKind.SCSI_DISK]
    assert len(names) == len(set(names)) == 16  # 4 SAS disks × 2 paths, 4 SATA, 2 AHCI, 2 LUNs
    ahci = [
        d for d in inv.block.devices if d.controller and d.controller.kind is ControllerKind.ATA
    ]
    luns = [dev for s in inv.iscsi.sessions for dev in s.devices]
    assert [d.name for d in ahci] == ["sdm", "sdn"]
    assert [d.block_device for d in luns] == ["sdo", "sdp"]
    ahci_hosts = {d.hctl.split(":")[0] for d in ahci if d.hctl}
    lun_hosts = {d.hctl.split(":")[0] for d in luns}
    assert len(ahci_hosts) == 2 and len(lun_hosts) == 1
    assert not ahci_hosts & lun_hosts


def test_md_and_dm_devices_read_back_as_stacked_devices(tmp_path: Path) -> None:
    """`stacked_md_dm.toml`: md arrays and dm devices in the real sysfs layout — `md/`, `dm/`,
    `slaves/` and the members' `holders/` — read back by the block collector without a
    problem, each with its diskstats line."""
    write_snapshot(load_spec(SPECS / "stacked_md_dm.toml"), tmp_path / "s")
    inv = inventory_of(tmp_path / "s")
    assert lines(inv) == []
    md0, md1 = inv.block.by_name("md0"), inv.block.by_name("md1")
    lvm, crypt = inv.block.by_name("dm-0"), inv.block.by_name("dm-1")
    assert md0 and md1 and lvm and crypt
    assert (md0.kind, md0.md_level, md0.md_sync_action) == (BlockKind.MD, "raid1", "idle")
    assert md0.slaves == md0.md_members == ["sda", "sdb"]
    assert md0.id.startswith("block:md:") and md0.size_bytes == 4000787030016
    assert md1.md_sync_action == "resync" and md1.holders == ["dm-0"]
    assert (lvm.dm_name, lvm.slaves) == ("vg0-data", ["md1"])
    assert lvm.dm_uuid and lvm.dm_uuid.startswith("LVM-")
    assert crypt.dm_uuid and crypt.dm_uuid.startswith("CRYPT-LUKS2-")
    assert crypt.dm_uuid.endswith("-luks-scratch") and crypt.rotational is False
    sda = inv.block.by_name("sda")
    assert sda is not None and sda.holders == ["md0"]
    assert lvm.nr_requests == 128 and lvm.scheduler == "none"
    diskstats = (tmp_path / "s" / "proc" / "diskstats").read_text()
    assert "   9       0 md0 " in diskstats and " 253       1 dm-1 " in diskstats


def test_a_stacked_device_over_a_device_the_host_lacks_is_an_error(tmp_path: Path) -> None:
    spec = spec_from_data({"ahci": [{"disk": [{}]}], "md": [{"name": "md0", "members": ["sdq"]}]})
    with pytest.raises(ValueError, match=r"md\[0\]\.members: no block device 'sdq'"):
        write_snapshot(spec, tmp_path / "s")
    with pytest.raises(SpecError, match="listed twice"):
        spec_from_data({"dm": [{"name": "vg-a", "members": ["sda", "sda"]}]})
