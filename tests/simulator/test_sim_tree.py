"""The written snapshot is a real sysfs layout: links resolve, classes point right, counts hold."""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.model.snapshot import Manifest
from pinchpoint.simulator import demo_spec, kernel_view, load_spec, spec_from_data, write_snapshot
from pinchpoint.simulator.naming import sd_devt, sd_name

WRITTEN_SCENARIOS = [
    "sas_switch",
    "jbod_4u60",
    "disk_missing_one_path",
    "degraded_hba_phy",
    "no_encserv",
    "mpi3mr_no_transport",
]


def attr(path: Path) -> str:
    """A sysfs attribute's value without its trailing newline."""
    return path.read_text().rstrip("\n")


@dataclass(frozen=True)
class ScsiDevice:
    """One SCSI device seen under /sys/class/scsi_device."""

    hctl: str
    path: Path  # the resolved H:C:T:L device directory

    def get(self, name: str) -> str:
        return attr(self.path / name)

    @property
    def type(self) -> int:
        return int(self.get("type"))

    @property
    def host(self) -> int:
        return int(self.hctl.split(":")[0])


def disk_serial(sdev: Path) -> str:
    """A SCSI disk's unit serial number from its VPD page 0x80 (4-byte header, then the text)."""
    return (sdev / "vpd_pg80").read_bytes()[4:].decode("ascii").strip()


def scsi_devices(root: Path) -> list[ScsiDevice]:
    base = root / "sys" / "class" / "scsi_device"
    return [
        ScsiDevice(name, (base / name / "device").resolve()) for name in sorted(os.listdir(base))
    ]


def disks(root: Path) -> list[ScsiDevice]:
    return [d for d in scsi_devices(root) if d.type == 0]


def ses_devices(root: Path) -> list[ScsiDevice]:
    return [d for d in scsi_devices(root) if d.type == 13]


def class_entries(root: Path, cls: str) -> list[str]:
    base = root / "sys" / "class" / cls
    return sorted(os.listdir(base)) if base.is_dir() else []


def walk_tree(root: Path) -> dict[str, tuple[str, bytes | str | None]]:
    """Every entry below `root`: ("dir", None), ("file", bytes) or ("link", target)."""
    entries: dict[str, tuple[str, bytes | str | None]] = {}
    for current, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(current, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                entries[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                entries[rel] = ("dir", None)
            else:
                with open(full, "rb") as handle:
                    entries[rel] = ("file", handle.read())
    return entries


SAS_CLASSES = ("sas_host", "sas_phy", "sas_port", "sas_device", "sas_end_device", "sas_expander")


def end_device_of(sdev: Path) -> Path:
    """`…/end_device-X/targetH:0:T/H:0:T:0` -> the end_device-X directory."""
    return sdev.parent.parent


def sas_device_attr(end_device: Path, name: str) -> str:
    return attr(end_device / "sas_device" / end_device.name / name)


def top_port(path: Path) -> str:
    """The `hostN/port-N:K` an object hangs under (the HBA port of its path)."""
    match = re.search(r"/(host\d+/port-\d+:\d+)/", str(path))
    assert match, path
    return match.group(1)


def paths_by_wwid(root: Path) -> dict[str, list[Path]]:
    by_wwid: dict[str, list[Path]] = defaultdict(list)
    for dev in disks(root):
        by_wwid[dev.get("wwid")].append(dev.path)
    return by_wwid


def nickname_of(root: Path) -> dict[str, str]:
    """SES enclosure logical id -> nickname, read back from the sg_ses outputs."""
    names = {}
    for snic in sorted((root / "commands" / "sg_ses").glob("*.snic.txt")):
        cf = snic.with_name(snic.name.replace(".snic.", ".cf."))
        nickname = re.search(r"nickname: (\S+)", snic.read_text())
        logical = re.search(r"enclosure logical identifier \(hex\): (\w+)", cf.read_text())
        assert nickname and logical
        names[f"0x{logical.group(1)}"] = nickname.group(1)
    return names


# -- every tree ---------------------------------------------------------------------------------


def assert_links_resolve_inside(root: Path) -> int:
    real_root = os.path.realpath(root)
    count = 0
    for current, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(current, name)
            if not os.path.islink(full):
                continue
            count += 1
            target = os.readlink(full)
            assert not os.path.isabs(target), f"{full} -> {target} is absolute"
            resolved = os.path.realpath(full)
            assert resolved.startswith(real_root + os.sep), (
                f"{full} -> {target} leaves the snapshot"
            )
            if os.path.relpath(full, root).startswith("dev" + os.sep):
                continue  # /dev/disk/by-id links name device nodes, which no snapshot holds
            assert os.path.exists(resolved), f"{full} -> {target} dangles"
    return count


def assert_class_links_point_right(root: Path) -> None:
    classes = root / "sys" / "class"
    for cls in sorted(os.listdir(classes)):
        for name in sorted(os.listdir(classes / cls)):
            entry = classes / cls / name
            if (cls, name) == ("net", "bonding_masters"):
                assert entry.is_file()  # the bonding driver's control file, not a device
                continue
            assert entry.is_symlink()
            target = os.readlink(entry)
            assert target.startswith("../../devices/"), (entry, target)
            resolved = entry.resolve()
            if cls == "block" and (resolved / "partition").exists():
                # a partition sits in its disk's directory: …/block/sda/sda1, no device link
                assert resolved.parent.parent.name == "block", resolved
                assert not (resolved / "device").exists()
                continue
            assert (resolved.parent.name, resolved.name) == (cls, name), (entry, resolved)
            if target.startswith("../../devices/virtual/"):
                assert not (resolved / "device").exists()  # bonds and lo have no device
                continue
            device = resolved / "device"
            assert device.is_symlink(), f"{resolved} has no device link"
            assert device.resolve() == resolved.parent.parent, (device, device.resolve())


def test_demo_links_resolve_and_classes_point_right(demo_root: Path) -> None:
    assert assert_links_resolve_inside(demo_root) > 5_000
    assert_class_links_point_right(demo_root)


@pytest.mark.parametrize("name", WRITTEN_SCENARIOS)
def test_scenario_links_resolve_and_classes_point_right(
    scenario: Callable[[str], Path], name: str
) -> None:
    root = scenario(name)
    assert assert_links_resolve_inside(root) > 100
    assert_class_links_point_right(root)


def test_bus_and_block_links_agree_with_classes(demo_root: Path) -> None:
    sys_dir = demo_root / "sys"
    for dev in scsi_devices(demo_root):
        assert (sys_dir / "bus" / "scsi" / "devices" / dev.hctl).resolve() == dev.path
    for name in class_entries(demo_root, "block"):
        if (sys_dir / "class" / "block" / name / "partition").exists():
            assert not (sys_dir / "block" / name).exists()  # /sys/block lists whole disks only
            continue
        assert (sys_dir / "block" / name).resolve() == (
            sys_dir / "class" / "block" / name
        ).resolve()
    for pci in os.listdir(sys_dir / "bus" / "pci" / "devices"):
        assert (sys_dir / "bus" / "pci" / "devices" / pci).resolve().name == pci


# -- the demo: field case 1 ---------------------------------------------------------------------


def test_demo_counts(demo_root: Path) -> None:
    assert class_entries(demo_root, "scsi_host") == ["host1", "host2", "host3"]
    assert class_entries(demo_root, "sas_host") == ["host1", "host2", "host3"]
    hbas = [
        p
        for p in (demo_root / "sys" / "bus" / "pci" / "devices").iterdir()
        if attr(p / "class") == "0x010700"
    ]
    assert len(hbas) == 3
    assert len(disks(demo_root)) == 6 * 60 + 4 * 60 == 600
    assert len(ses_devices(demo_root)) == 10
    enclosure_ids = {
        attr(demo_root / "sys" / "class" / "enclosure" / e / "id")
        for e in class_entries(demo_root, "enclosure")
    }
    assert len(class_entries(demo_root, "enclosure")) == 10
    assert len(enclosure_ids) == 6
    assert sorted(nickname_of(demo_root).values()) == [
        "JBOD-001",
        "JBOD-002",
        "JBOD-003",
        "JBOD-007",
        "JBOD-00B",
        "JBOD-012",
    ]
    assert len(class_entries(demo_root, "sas_expander")) == 10 * 3  # an H4060-J I/O module has 3
    # /sys/class/block also lists partitions: two per disk of the demo's ZFS pool (1 and 9)
    assert len(class_entries(demo_root, "block")) == 600 + 2 * 600
    assert len(os.listdir(demo_root / "sys" / "block")) == 600


def test_demo_paths_per_disk_follow_the_cabling(demo_root: Path) -> None:
    by_wwid = paths_by_wwid(demo_root)
    assert len(by_wwid) == 360
    names = nickname_of(demo_root)
    paths_per_jbod: dict[str, Counter[int]] = defaultdict(Counter)
    for sdevs in by_wwid.values():
        jbods = {names[sas_device_attr(end_device_of(p), "enclosure_identifier")] for p in sdevs}
        assert len(jbods) == 1
        paths_per_jbod[jbods.pop()][len(sdevs)] += 1
    assert paths_per_jbod == {
        "JBOD-001": Counter({2: 60}),
        "JBOD-002": Counter({2: 60}),
        "JBOD-003": Counter({1: 60}),
        "JBOD-007": Counter({2: 60}),
        "JBOD-00B": Counter({2: 60}),
        "JBOD-012": Counter({1: 60}),
    }


def test_dual_ported_disk_shows_one_wwid_on_two_hbas(demo_root: Path) -> None:
    dual = [sdevs for sdevs in paths_by_wwid(demo_root).values() if len(sdevs) == 2]
    assert len(dual) == 240
    for first, second in dual:
        wwid = attr(first / "wwid")
        assert wwid == attr(second / "wwid") and re.fullmatch(r"naa\.5000cca[0-9a-f]{9}", wwid)
        lu = int(wwid[4:], 16)
        addresses = sorted(int(attr(p / "sas_address"), 16) for p in (first, second))
        assert addresses == [lu + 1, lu + 2]  # port A, port B
        assert top_port(first).split("/")[0] != top_port(second).split("/")[0]


def test_bay_and_enclosure_identifiers_match_the_enclosure(demo_root: Path) -> None:
    enclosures = demo_root / "sys" / "class" / "enclosure"
    linked = 0
    for name in class_entries(demo_root, "enclosure"):
        enclosure = enclosures / name
        ses_sdev = (enclosure / "device").resolve()
        logical_id = attr(enclosure / "id")
        assert int(attr(enclosure / "components")) == 60
        for slot in range(60):
            (component,) = enclosure.glob(f"SLOT {slot:02d},*")  # an H4060-J: "SLOT 07,<serial>"
            assert attr(component / "slot") == str(slot)
            assert attr(component / "status") == "OK"
            sdev = (component / "device").resolve()
            end_device = end_device_of(sdev)
            assert sas_device_attr(end_device, "bay_identifier") == str(slot)
            assert sas_device_attr(end_device, "enclosure_identifier") == logical_id
            assert top_port(sdev) == top_port(ses_sdev)  # the path through the same I/O module
            assert component.name.split(",")[1] == disk_serial(sdev)
            link = sdev / f"enclosure_device:{component.name}"
            assert link.resolve() == component.resolve()
            linked += 1
    assert linked == 600


def test_sd_and_sg_names_in_discovery_order(demo_root: Path) -> None:
    devices = sorted(scsi_devices(demo_root), key=lambda d: (d.host, int(d.hctl.split(":")[2])))
    sg_names = [(d.path / "generic").resolve().name for d in devices]
    assert sg_names == [f"sg{i}" for i in range(610)]
    for i, dev in enumerate(devices):
        assert attr(dev.path / "scsi_generic" / f"sg{i}" / "dev") == f"21:{i}"
    disk_devices = [d for d in devices if d.type == 0]
    for i, dev in enumerate(disk_devices):
        (block,) = os.listdir(dev.path / "block")
        assert block == sd_name(i)
        major, minor = sd_devt(i)
        assert attr(dev.path / "block" / block / "dev") == f"{major}:{minor}"
    assert sd_name(len(disk_devices) - 1) == "sdwb"


def test_hosts_follow_pci_order_and_numa(demo_root: Path) -> None:
    sys_dir = demo_root / "sys"
    hosts = {
        h: (sys_dir / "class" / "scsi_host" / h / "device").resolve().parent.name
        for h in class_entries(demo_root, "scsi_host")
    }
    assert hosts == {"host1": "0000:03:00.0", "host2": "0000:04:00.0", "host3": "0000:81:00.0"}
    hba2 = sys_dir / "bus" / "pci" / "devices" / "0000:81:00.0"
    assert "/pci0000:80/0000:80:01.0/0000:81:00.0" in str(hba2.resolve())
    assert attr(hba2 / "numa_node") == "1"
    assert attr(hba2 / "current_link_speed") == "8.0 GT/s PCIe"
    assert attr(hba2 / "current_link_width") == "8"
    assert os.readlink(hba2.resolve() / "driver") == "../../../../bus/pci/drivers/mpt3sas"
    host = sys_dir / "class" / "scsi_host" / "host1"
    assert attr(host / "proc_name") == "mpt3sas"
    assert attr(host / "board_name") == "SAS9300-8e"
    assert attr(host / "version_fw") == "16.00.12.00"


def test_hba_phys_and_ports(demo_root: Path) -> None:
    host1 = (demo_root / "sys" / "class" / "scsi_host" / "host1" / "device").resolve()
    for phy in range(8):
        phy_dir = host1 / f"phy-1:{phy}"
        rate = attr(phy_dir / "sas_phy" / f"phy-1:{phy}" / "negotiated_linkrate")
        if phy < 4:
            assert rate == "12.0 Gbit"
            assert os.readlink(phy_dir / "port") == "../port-1:0"
            assert os.readlink(host1 / "port-1:0" / f"phy-1:{phy}") == f"../phy-1:{phy}"
        else:  # connector 1 is unused
            assert rate == "Unknown"
            assert not (phy_dir / "port").exists()
    assert attr(host1 / "port-1:0" / "sas_port" / "port-1:0" / "num_phys") == "4"
    assert sorted(p.name for p in host1.glob("port-*")) == ["port-1:0"]
    host3 = (demo_root / "sys" / "class" / "scsi_host" / "host3" / "device").resolve()
    assert sorted(p.name for p in host3.glob("port-*")) == ["port-3:0", "port-3:1"]


def test_chain_depth_shows_in_expander_nesting(demo_root: Path) -> None:
    levels: dict[str, list[int]] = defaultdict(list)  # the main expanders' levels, per host
    subs = 0
    for name in class_entries(demo_root, "sas_expander"):
        directory = (demo_root / "sys" / "class" / "sas_expander" / name).resolve()
        level = int(attr(directory / "level"))
        assert attr(directory / "vendor_id") == "HGST    "
        nested = str(directory).count("/expander-")
        assert nested == level + 1  # class dir repeats the name
        device = directory.parent.parent  # …/expander-H:N (directory: its sas_expander dir)
        if list(device.glob("port-*/end_device-*/target*/*:*:*:*/enclosure")):
            levels[name.split(":")[0]].append(level)  # holds the SES device: a main expander
        else:  # a sub-expander of 30 bays, one level below its main expander
            main = device.parent.parent
            assert int(attr(main / "sas_expander" / main.name / "level")) == level - 1
            subs += 1
    assert {h: sorted(v) for h, v in levels.items()} == {
        "expander-1": [1, 2, 3, 4],
        "expander-2": [1, 2],
        "expander-3": [1, 1, 2, 2],
    }
    assert subs == 2 * 10


def test_manifest(demo_root: Path) -> None:
    data = json.loads((demo_root / "manifest.json").read_text())
    manifest = Manifest.model_validate(data)
    assert data["format"] == "pinchpoint-snapshot" and data["version"] == 1
    assert manifest.hostname == "demo-storage-head"
    assert manifest.kernel == "6.1.0-28-amd64"
    assert manifest.simulated is True and manifest.tools == {}
    assert data["captured_at"] == "2025-01-01T00:00:00Z"


# -- writing ------------------------------------------------------------------------------------


def test_same_spec_same_bytes(demo_root: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    write_snapshot(demo_spec(), again)
    assert walk_tree(again) == walk_tree(demo_root)


def test_shared_files_hold_the_same_bytes(scenario: Callable[[str], Path], tmp_path: Path) -> None:
    plain = scenario("degraded_hba_phy")
    spec = load_spec(SPECS / "degraded_hba_phy.toml")
    write_snapshot(spec, tmp_path / "shared", share_identical_files=True)
    assert walk_tree(tmp_path / "shared") == walk_tree(plain)
    enable = Path("sys", "class", "sas_phy", "phy-0:0", "enable")
    assert (tmp_path / "shared" / enable).stat().st_nlink > 100
    assert (plain / enable).stat().st_nlink == 1


def test_refuses_a_non_empty_directory_unless_told(tmp_path: Path) -> None:
    spec = load_spec(SPECS / "mpi3mr_no_transport.toml")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    with pytest.raises(FileExistsError):
        write_snapshot(spec, out)
    assert (out / "keep.txt").read_text() == "precious"
    write_snapshot(spec, out, overwrite=True)
    assert not (out / "keep.txt").exists() and (out / "manifest.json").is_file()
    write_snapshot(spec, tmp_path / "new" / "nested")  # missing parents are made
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError):
        write_snapshot(spec, tmp_path / "file", overwrite=True)


def test_captured_at_may_be_given(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    spec = load_spec(SPECS / "mpi3mr_no_transport.toml")
    when = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    write_snapshot(spec, tmp_path / "s", captured_at=when)
    assert json.loads((tmp_path / "s" / "manifest.json").read_text())["captured_at"] == (
        "2026-03-04T05:06:07Z"
    )


# -- scenarios ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "paths", "ses", "per_host"),
    [
        ("all_dual_pathed", 288, 12, {1: 96, 2: 48, 3: 144}),
        ("three_chains_of_two", 288, 12, {1: 96, 2: 96, 3: 96}),
        ("sas_switch", 192, 8, {0: 96, 1: 96}),
        ("jbod_4u60", 120, 2, {0: 60, 1: 60}),
        ("disk_missing_one_path", 95, 4, {0: 48, 1: 47}),
        ("mpi3mr_no_transport", 48, 2, {0: 48}),
        ("bench_1920", 1920, 32, {0: 480, 1: 480, 2: 480, 3: 480}),
    ],
)
def test_scenario_counts(name: str, paths: int, ses: int, per_host: dict[int, int]) -> None:
    view = kernel_view(load_spec(SPECS / f"{name}.toml"))
    assert len(view.disk_paths()) == paths
    assert len(view.ses_devices()) == ses
    assert Counter(d.host.number for d in view.disk_paths()) == per_host
    wwids = Counter(d.disk_port.disk.lu_name for d in view.disk_paths() if d.disk_port)
    if name not in ("disk_missing_one_path",):
        assert set(wwids.values()) == {2}


def test_sas_switch_fans_out(scenario: Callable[[str], Path]) -> None:
    root = scenario("sas_switch")
    for host in ("host0", "host1"):
        hba = (root / "sys" / "class" / "sas_host" / host / "device").resolve()
        (port,) = hba.glob("port-*")
        (switch,) = port.glob("expander-*")
        expander = switch / "sas_expander" / switch.name
        assert attr(expander / "vendor_id") == "ASTEK   "
        assert attr(expander / "product_id") == "SAS_SWITCH      "
        jbods = sorted(switch.glob("port-*/expander-*"))
        assert len(jbods) == 4
        for jbod in jbods:
            assert attr(jbod / "sas_expander" / jbod.name / "level") == "2"
            assert attr(jbod.parent / "sas_port" / jbod.parent.name / "num_phys") == "4"


def test_4u60_sub_expanders_hold_30_bays_each(scenario: Callable[[str], Path]) -> None:
    root = scenario("jbod_4u60")
    hba = (root / "sys" / "class" / "sas_host" / "host0" / "device").resolve()
    (main,) = hba.glob("port-*/expander-*")
    subs = sorted(main.glob("port-*/expander-*"))
    assert len(subs) == 2
    for k, sub in enumerate(subs):
        assert attr(sub.parent / "sas_port" / sub.parent.name / "num_phys") == "10"
        bays = sorted(
            int(sas_device_attr(e, "bay_identifier")) for e in sub.glob("port-*/end_device-*")
        )
        assert bays == list(range(30 * k, 30 * k + 30))
    (ses,) = main.glob("port-*/end_device-*")
    (sdev,) = ses.glob("target*/*:*")
    assert attr(sdev / "type") == "13"
    assert attr(sdev / "vendor") == "HGST    " and attr(sdev / "model") == "H4060-J         "


def test_missing_disk_path(scenario: Callable[[str], Path]) -> None:
    root = scenario("disk_missing_one_path")
    by_wwid = paths_by_wwid(root)
    single = [p for p in by_wwid.values() if len(p) == 1]
    assert len(single) == 1 and len(by_wwid) == 48
    (only,) = single[0]
    assert sas_device_attr(end_device_of(only), "bay_identifier") == "5"
    rates = Counter(
        attr(root / "sys" / "class" / "sas_phy" / p / "negotiated_linkrate")
        for p in class_entries(root, "sas_phy")
        if p.startswith("phy-1:")
    )
    assert rates["Unknown"] == 4 + 1 + 4  # idle HBA connector, the dead bay, last out port


def test_degraded_hba_phy_and_its_far_end(scenario: Callable[[str], Path]) -> None:
    root = scenario("degraded_hba_phy")
    phys = root / "sys" / "class" / "sas_phy"
    assert attr(phys / "phy-0:2" / "negotiated_linkrate") == "6.0 Gbit"
    assert attr(phys / "phy-0:2" / "maximum_linkrate_hw") == "12.0 Gbit"
    assert attr(phys / "phy-0:0:2" / "negotiated_linkrate") == "6.0 Gbit"
    for phy in ("phy-0:0", "phy-0:1", "phy-0:3", "phy-0:0:0", "phy-1:2", "phy-1:0:2"):
        assert attr(phys / phy / "negotiated_linkrate") == "12.0 Gbit"


def test_degraded_drive_link_and_sata_disks(tmp_path: Path) -> None:
    spec = spec_from_data(
        {
            "hba": [{"name": "h"}],
            "enclosure": [
                {
                    "name": "E",
                    "bays": 4,
                    "empty_bays": [1],
                    "disk": {"protocol": "sata", "vendor": "SEAGATE", "model": "ST8000NM000A"},
                }
            ],
            "chain": [
                {"hba": "h", "io_module": "A", "enclosures": ["E"]},
                {"hba": "h", "connector": 1, "io_module": "B", "enclosures": ["E"]},
            ],
            "degraded_link": [{"enclosure": "E", "io_module": "A", "bay": 3, "rate_gbps": 3.0}],
        }
    )
    write_snapshot(spec, tmp_path / "s")
    root = tmp_path / "s"
    found = disks(root)
    assert len(found) == 3  # SATA: one port, on I/O module A only; bay 1 empty
    for dev in found:
        assert dev.get("vendor") == "ATA     "
        end_device = end_device_of(dev.path)
        assert sas_device_attr(end_device, "target_port_protocols") == "sata"
        expander = end_device.parent.parent
        expander_address = int(attr(expander / "sas_device" / expander.name / "sas_address"), 16)
        assert int(dev.get("sas_address"), 16) >> 8 == expander_address >> 8
        bay = int(sas_device_attr(end_device, "bay_identifier"))
        phy = end_device.parent / os.readlink(next(end_device.parent.glob("phy-*")))
        rate = attr(phy / "sas_phy" / phy.name / "negotiated_linkrate")
        assert rate == ("3.0 Gbit" if bay == 3 else "6.0 Gbit")
    enclosures = {
        e: attr(root / "sys" / "class" / "enclosure" / e / "SLOT 02" / "status")
        for e in class_entries(root, "enclosure")
    }
    assert set(enclosures.values()) == {"not installed"} and len(enclosures) == 2


def test_no_encserv_enclosure_has_no_class_entry(scenario: Callable[[str], Path]) -> None:
    root = scenario("no_encserv")
    ses = ses_devices(root)
    assert len(ses) == 4
    in_class = {
        (root / "sys" / "class" / "enclosure" / e / "device").resolve()
        for e in class_entries(root, "enclosure")
    }
    assert len(in_class) == 2
    hidden = [d for d in ses if d.path not in in_class]
    assert {d.get("vendor") for d in hidden} == {"ACME    "}
    for dev in hidden:
        assert not (dev.path / "enclosure").exists()
        sg = (dev.path / "generic").resolve().name
        assert (root / "commands" / "sg_ses" / f"{sg}.cf.txt").is_file()


def test_mpi3mr_without_sas_transport(scenario: Callable[[str], Path]) -> None:
    root = scenario("mpi3mr_no_transport")
    assert not any((root / "sys" / "class" / cls).exists() for cls in SAS_CLASSES)
    names = {p.name.split("-")[0] for p in (root / "sys" / "devices").rglob("*") if "-" in p.name}
    assert not names & {"phy", "port", "expander", "end_device", "sas_host"}
    host = (root / "sys" / "class" / "scsi_host" / "host0" / "device").resolve()
    assert attr(root / "sys" / "class" / "scsi_host" / "host0" / "proc_name") == "mpi3mr"
    devices = scsi_devices(root)
    assert len(devices) == 50
    for dev in devices:
        assert dev.path.parent.parent == host  # hostN/targetN:0:T/N:0:T:0
    assert len(paths_by_wwid(root)) == 24
    for enclosure in class_entries(root, "enclosure"):
        components = root / "sys" / "class" / "enclosure" / enclosure
        assert not any((c / "device").exists() for c in components.iterdir() if c.is_dir())
