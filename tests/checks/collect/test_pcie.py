"""PCIe functions: the real mpt3sas capture, node_exporter tree, laid-out trees, bad input."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.pcie import (
    PcieParseError,
    collect_pcie,
    kind_of_class,
    normalise_address,
    parse_class_code,
    parse_link_speed,
    pci_function,
    place_in_tree,
)
from pinchpoint.checks.source import RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.pcie import PcieLink, PciFunction, PciKind
from pinchpoint.model.problems import ProblemKind

PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
NODE_EXPORTER = FIXTURES / "pcie" / "node_exporter"
LSPCI = FIXTURES / "pcie" / "insights-core_lspci_k_cisco_ucs_sas_fc_10gbe.txt"
HBA_DIR = "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0"


def copy_pci_tree(source: Path, target: Path) -> Path:
    """The PCI part of a snapshot (bus links, function directories' own files), to damage."""
    pci = re.compile(r"^(pci)?[0-9a-f]{4}:[0-9a-f]{2}(:[0-9a-f]{2}\.[0-7])?$")

    def copy_dir(src: Path, dst: Path) -> None:
        dst.mkdir(parents=True)
        for entry in src.iterdir():
            if entry.is_symlink():
                (dst / entry.name).symlink_to(os.readlink(entry))
            elif entry.is_file():
                (dst / entry.name).write_bytes(entry.read_bytes())
            elif pci.match(entry.name):
                copy_dir(entry, dst / entry.name)

    for root in (source / "sys/devices").glob("pci*"):
        copy_dir(root, target / "sys/devices" / root.name)
    copy_dir(source / "sys/bus/pci/devices", target / "sys/bus/pci/devices")
    return target


@pytest.fixture
def pci_copy(tmp_path: Path) -> Path:
    """The PCI functions of the real capture, in a copy a test may damage."""
    return copy_pci_tree(PROCFS, tmp_path / "snapshot")


def collect(root: Path) -> tuple[list[str], dict[str, PciFunction], ProblemLog]:
    log = ProblemLog()
    inventory = collect_pcie(SnapshotSource(root), log)
    return (
        [f.pci_address for f in inventory.functions],
        {f.pci_address: f for f in inventory.functions},
        log,
    )


# -- the real mpt3sas capture ------------------------------------------------------------


def test_the_real_capture_lists_the_hba_the_nvme_drive_and_both_nics() -> None:
    log = ProblemLog()
    inventory = collect_pcie(SnapshotSource(PROCFS), log)
    assert [f.pci_address for f in inventory.functions] == [
        "0000:00:1f.6",
        "0000:01:00.0",
        "0000:03:00.0",
        "0000:a2:00.0",
    ]
    assert [f.kind for f in inventory.functions] == [
        PciKind.NETWORK,
        PciKind.NVME,
        PciKind.STORAGE,
        PciKind.NETWORK,
    ]
    assert log.problems() == []  # bridges, and functions without a class file, are left out


def test_the_9400_8i8e_hba_is_a_x8_card_in_a_x16_capable_root_port_running_x8() -> None:
    hba = collect_pcie(SnapshotSource(PROCFS), ProblemLog()).by_address("0000:03:00.0")
    assert hba is not None
    assert hba.id == "pci:0000:03:00.0"
    assert hba.card_address == "0000:03:00"
    assert hba.device_path == "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0"
    assert hba.class_code == "0x010700"  # SAS controller
    assert (hba.vendor_id, hba.device_id) == ("0x1000", "0x00ab")
    assert (hba.subsystem_vendor_id, hba.subsystem_device_id) == ("0x1000", "0x3040")
    assert hba.driver == "mpt3sas"
    assert hba.numa_node is None  # the capture says -1
    assert hba.virtual_function is False
    assert hba.link == PcieLink(
        current_speed_gts=8.0,
        max_speed_gts=8.0,
        current_width=8,
        max_width=8,
        current_speed_text="8.0 GT/s PCIe",
        max_speed_text="8.0 GT/s PCIe",
    )
    assert hba.upstream_port == "0000:00:03.0"
    assert hba.root_port == "0000:00:03.0"
    assert hba.root_complex == "pci0000:00"
    assert hba.bridges == ["0000:00:03.0"]
    assert hba.upstream_link is not None
    assert (hba.upstream_link.current_speed_gts, hba.upstream_link.max_speed_gts) == (8.0, 8.0)
    assert (hba.upstream_link.current_width, hba.upstream_link.max_width) == (8, 16)


def test_drivers_are_named_although_their_links_dangle_in_the_capture() -> None:
    functions = {
        "0000:03:00.0": (HBA_DIR, "mpt3sas"),
        "0000:01:00.0": ("sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0", "nvme"),
        "0000:a2:00.0": ("sys/devices/pci0000:a2/0000:a2:00.0", "ice"),
    }
    log = ProblemLog()
    for address, (directory, driver) in functions.items():
        link = PROCFS / directory / "driver"
        assert link.is_symlink() and not os.path.exists(link)  # the capture is partial
        assert pci_function(SnapshotSource(PROCFS), address, log).driver == driver
    assert log.problems() == []


def test_the_nvme_drive_runs_x4_behind_a_root_port_trained_x4_of_x8() -> None:
    nvme = collect_pcie(SnapshotSource(PROCFS), ProblemLog()).by_address("0000:01:00.0")
    assert nvme is not None
    assert nvme.kind is PciKind.NVME
    assert nvme.class_code == "0x010802"
    assert (nvme.vendor_id, nvme.device_id) == ("0xc0a9", "0x540a")
    assert nvme.driver == "nvme"
    assert (nvme.link.current_speed_gts, nvme.link.current_width, nvme.link.max_width) == (
        8.0,
        4,
        4,
    )
    assert nvme.upstream_port == "0000:00:02.1"
    assert nvme.upstream_link is not None
    assert (nvme.upstream_link.current_width, nvme.upstream_link.max_width) == (4, 8)


def test_the_e810_nic_on_its_own_root_complex_and_numa_node() -> None:
    nic = collect_pcie(SnapshotSource(PROCFS), ProblemLog()).by_address("0000:a2:00.0")
    assert nic is not None
    assert nic.class_code == "0x020000"
    assert (nic.vendor_id, nic.device_id) == ("0x8086", "0x159b")
    assert nic.driver == "ice"
    assert nic.numa_node == 1
    assert (nic.link.current_speed_gts, nic.link.max_speed_gts) == (16.0, 16.0)
    assert (nic.link.current_width, nic.link.max_width) == (8, 8)
    assert nic.root_complex == "pci0000:a2"
    assert (nic.upstream_port, nic.upstream_link, nic.root_port) == (None, None, None)


def test_the_onboard_nic_has_no_link_attributes_and_no_driver() -> None:
    nic = collect_pcie(SnapshotSource(PROCFS), ProblemLog()).by_address("0000:00:1f.6")
    assert nic is not None
    assert (nic.vendor_id, nic.device_id) == ("0x8086", "0x15d7")
    assert nic.link.is_empty()
    assert nic.driver is None
    assert (nic.upstream_port, nic.root_complex) == (None, "pci0000:00")


def test_a_function_missing_from_the_bus_list_is_found_in_the_device_tree() -> None:
    assert not (PROCFS / "sys/bus/pci/devices/0000:03:00.0").exists()
    log = ProblemLog()
    hba = pci_function(SnapshotSource(PROCFS), "03:00.0", log)  # lspci's short form
    assert hba.pci_address == "0000:03:00.0"
    assert hba.device_path == "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0"
    assert log.problems() == []


def test_collect_with_addresses_reads_those_in_the_order_given() -> None:
    inventory = collect_pcie(
        SnapshotSource(PROCFS), ProblemLog(), addresses=["0000:03:00.0", "0000:00:02.1"]
    )
    assert [f.pci_address for f in inventory.functions] == ["0000:03:00.0", "0000:00:02.1"]
    assert inventory.functions[1].kind is PciKind.BRIDGE
    assert inventory.sharing_root_port("0000:00:03.0") == [inventory.functions[0]]


def test_a_recorded_capture_reads_back_the_same(tmp_path: Path) -> None:
    """What the collector reads, recorded by `capture`, is enough to collect it again."""
    live = collect_pcie(RecordingSource(tmp_path / "snap", root=str(PROCFS)), ProblemLog())
    again = collect_pcie(SnapshotSource(tmp_path / "snap"), ProblemLog())
    assert again == live


# -- the node_exporter tree --------------------------------------------------------------


def test_node_exporter_nvme_runs_at_half_its_maximum_speed() -> None:
    log = ProblemLog()
    inventory = collect_pcie(SnapshotSource(NODE_EXPORTER), log)
    assert [f.pci_address for f in inventory.functions] == ["0000:01:00.0", "0000:45:00.0"]
    nvme = inventory.functions[0]
    assert (nvme.link.current_speed_gts, nvme.link.max_speed_gts) == (8.0, 16.0)
    assert nvme.link.max_speed_text == "16.0 GT/s PCIe"
    nic = inventory.functions[1]
    assert nic.kind is PciKind.NETWORK
    assert (nic.vendor_id, nic.device_id, nic.driver) == ("0x8086", "0x1521", "igb")
    assert nic.numa_node == 0
    assert (nic.link.current_speed_gts, nic.link.current_width) == (5.0, 4)
    assert nic.upstream_port == "0000:40:01.3"
    assert nic.upstream_link is None  # the root port's link attributes were not captured
    assert log.problems() == []


# -- laid-out trees ----------------------------------------------------------------------


@dataclass
class Fn:
    """One PCI function to lay out in a fake sysfs tree."""

    path: str  # below sys/devices, e.g. "pci0000:00/0000:00:03.0/0000:04:00.0"
    class_code: str
    driver: str | None = None
    speed: str | None = None
    width: int | None = None
    max_speed: str | None = None
    max_width: int | None = None
    vendor: str = "0x8086"
    device: str = "0x10c6"
    numa: str = "-1"
    physfn: str | None = None  # a VF's physical function (relative link target)


def lay_out(root: Path, functions: list[Fn], bus: bool = True) -> Path:
    """Write `functions` as sysfs directories (and `sys/bus/pci/devices` links) below root."""
    (root / "sys/bus/pci/devices").mkdir(parents=True, exist_ok=True)
    for fn in functions:
        directory = root / "sys/devices" / fn.path
        directory.mkdir(parents=True, exist_ok=True)
        values = {
            "class": fn.class_code,
            "vendor": fn.vendor,
            "device": fn.device,
            "numa_node": fn.numa,
            "current_link_speed": fn.speed,
            "current_link_width": fn.width,
            "max_link_speed": fn.max_speed or fn.speed,
            "max_link_width": fn.max_width or fn.width,
        }
        for name, value in values.items():
            if value is not None:
                (directory / name).write_text(f"{value}\n")
        if fn.driver:
            depth = fn.path.count("/") + 2
            (directory / "driver").symlink_to("../" * depth + f"bus/pci/drivers/{fn.driver}")
        if fn.physfn:
            (directory / "physfn").symlink_to(fn.physfn)
        address = fn.path.rsplit("/", 1)[-1]
        if bus:
            (root / "sys/bus/pci/devices" / address).symlink_to(f"../../../devices/{fn.path}")
    return root


def lspci_io_functions() -> list[tuple[str, str, str]]:
    """(address, class name, driver) of the storage, FC and network functions `lspci -k` lists."""
    found = []
    current: list[str] = []
    for line in LSPCI.read_text().splitlines():
        # "04:00.0 Fibre Channel: QLogic Corp. …": a function's first line
        head = re.match(r"^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ([^:]+): ", line)
        # "        Kernel driver in use: qla2xxx"
        driver = re.match(r"^\s+Kernel driver in use: (\S+)", line)
        if head:
            current = [head.group(1), head.group(2)]
        elif driver and current and current[1] in CLASS_CODES:
            found.append((current[0], current[1], driver.group(1)))
    return found


# lspci's class names -> the class codes the kernel shows for them
CLASS_CODES = {
    "SCSI storage controller": "0x010000",
    "Fibre Channel": "0x0c0400",
    "Ethernet controller": "0x020000",
}
# Invented placement: the listing does not say which root port each card sits behind.
ROOT_PORT_OF_BUS = {"01": "0000:00:01.0", "04": "0000:00:03.0", "06": "0000:00:07.0"}


def test_the_io_functions_lspci_lists_are_the_ones_collected(tmp_path: Path) -> None:
    """The Cisco UCS server's SAS HBA, dual FC HBA and dual 10GbE NIC, laid out in sysfs."""
    listed = lspci_io_functions()
    assert [a for a, _, _ in listed] == ["01:00.0", "04:00.0", "04:00.1", "06:00.0", "06:00.1"]
    functions = [
        Fn(
            path=f"pci0000:00/{port}",
            class_code="0x060400",
            speed="5.0 GT/s PCIe",
            width=4,
            max_width=8,
        )
        for port in ROOT_PORT_OF_BUS.values()
    ]
    for address, class_name, driver in listed:
        port = ROOT_PORT_OF_BUS[address[:2]]
        functions.append(
            Fn(
                path=f"pci0000:00/{port}/0000:{address}",
                class_code=CLASS_CODES[class_name],
                driver=driver,
                speed="2.5 GT/s PCIe",
                width=8 if address[:2] == "06" else 4,
            )
        )
    root = lay_out(tmp_path / "ucs", functions)
    log = ProblemLog()
    inventory = collect_pcie(SnapshotSource(root), log)
    assert [(f.pci_address, f.kind, f.driver) for f in inventory.functions] == [
        ("0000:01:00.0", PciKind.STORAGE, "mptsas"),
        ("0000:04:00.0", PciKind.FIBRE_CHANNEL, "qla2xxx"),
        ("0000:04:00.1", PciKind.FIBRE_CHANNEL, "qla2xxx"),
        ("0000:06:00.0", PciKind.NETWORK, "ixgbe"),
        ("0000:06:00.1", PciKind.NETWORK, "ixgbe"),
    ]
    # Both 10GbE ports are one x8 card in a slot trained x4: they share that link.
    ports = inventory.sharing_upstream("0000:00:07.0")
    assert [p.pci_address for p in ports] == ["0000:06:00.0", "0000:06:00.1"]
    assert {p.card_address for p in ports} == {"0000:06:00"}
    assert all(p.link.max_width == 8 for p in ports)
    assert all(p.upstream_link is not None and p.upstream_link.current_width == 4 for p in ports)
    assert log.problems() == []


def test_cards_behind_a_switch_share_its_root_port(tmp_path: Path) -> None:
    bridge = "0x060400"
    root = lay_out(
        tmp_path / "switch",
        [
            Fn("pci0000:40/0000:40:01.1", bridge, speed="8.0 GT/s PCIe", width=16),
            Fn("pci0000:40/0000:40:01.1/0000:41:00.0", bridge, speed="8.0 GT/s PCIe", width=16),
            Fn(
                "pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:08.0",
                bridge,
                speed="8.0 GT/s PCIe",
                width=8,
            ),
            Fn(
                "pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:09.0",
                bridge,
                speed="8.0 GT/s PCIe",
                width=8,
            ),
            Fn(
                "pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:08.0/0000:43:00.0",
                "0x010700",
                driver="mpt3sas",
                speed="8.0 GT/s PCIe",
                width=8,
                numa="1",
            ),
            Fn(
                "pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:09.0/0000:44:00.0",
                "0x010700",
                driver="mpt3sas",
                speed="8.0 GT/s PCIe",
                width=8,
                numa="1",
            ),
        ],
    )
    inventory = collect_pcie(SnapshotSource(root), ProblemLog())
    first, second = inventory.functions
    assert first.bridges == ["0000:40:01.1", "0000:41:00.0", "0000:42:08.0"]
    assert (first.upstream_port, second.upstream_port) == ("0000:42:08.0", "0000:42:09.0")
    assert first.root_port == second.root_port == "0000:40:01.1"
    assert inventory.sharing_root_port("0000:40:01.1") == [first, second]
    assert first.numa_node == 1


def test_sr_iov_virtual_functions_are_left_out_unless_asked_for(tmp_path: Path) -> None:
    root = lay_out(
        tmp_path / "vf",
        [
            Fn("pci0000:00/0000:00:03.0", "0x060400", speed="8.0 GT/s PCIe", width=8),
            Fn(
                "pci0000:00/0000:00:03.0/0000:05:00.0",
                "0x020000",
                driver="ixgbe",
                speed="8.0 GT/s PCIe",
                width=8,
            ),
            Fn(
                "pci0000:00/0000:00:03.0/0000:05:10.0",
                "0x020000",
                driver="ixgbevf",
                physfn="../0000:05:00.0",
            ),
        ],
    )
    listed = collect_pcie(SnapshotSource(root), ProblemLog())
    assert [f.pci_address for f in listed.functions] == ["0000:05:00.0"]
    vf = pci_function(SnapshotSource(root), "0000:05:10.0", ProblemLog())
    assert vf.virtual_function is True
    assert vf.driver == "ixgbevf"


def test_nvme_controllers_are_found_through_their_class(tmp_path: Path) -> None:
    """An Azure/Hyper-V NVMe drive sits on a VMBus PCI domain, outside /sys/devices/pci*."""
    vmbus = "LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/00000001-d5b4-4c8e-a0f3-2e55b2b04f50"
    function = f"{vmbus}/pci0001:00/0001:00:00.0"
    root = lay_out(
        tmp_path / "nvme",
        [Fn(function, "0x010802", driver="nvme", vendor="0x1414", device="0xb111")],
        bus=False,  # the class link is the only way in
    )
    controller = root / "sys/devices" / function / "nvme/nvme0"
    controller.mkdir(parents=True)
    (controller / "device").symlink_to("../../../0001:00:00.0")
    (root / "sys/class/nvme").mkdir(parents=True)
    (root / "sys/class/nvme/nvme0").symlink_to(f"../../devices/{function}/nvme/nvme0")
    log = ProblemLog()
    (nvme,) = collect_pcie(SnapshotSource(root), log).functions
    assert nvme.pci_address == "0001:00:00.0"
    assert nvme.device_path == f"/sys/devices/{function}"
    assert (nvme.kind, nvme.driver, nvme.root_complex) == (PciKind.NVME, "nvme", "pci0001:00")
    assert nvme.link.is_empty()  # a VMBus PCI function has no PCIe link to report
    assert log.problems() == []


# -- bad input ---------------------------------------------------------------------------


def test_a_dangling_bus_link_is_reported_and_the_rest_stands(pci_copy: Path) -> None:
    (pci_copy / "sys/bus/pci/devices/0000:81:00.0").symlink_to(
        "../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0"
    )
    addresses, _, log = collect(pci_copy)
    assert addresses == ["0000:00:1f.6", "0000:01:00.0", "0000:03:00.0", "0000:a2:00.0"]
    (problem,) = log.problems()
    assert problem.subject == "/sys/bus/pci/devices/0000:81:00.0"
    assert problem.kind is ProblemKind.UNREADABLE
    assert problem.reason.startswith("not collected: dangling symlink to /sys/devices/pci0000:80")


def test_a_garbled_link_speed_is_reported_and_the_widths_stand(pci_copy: Path) -> None:
    (pci_copy / HBA_DIR / "current_link_speed").write_text("fast\n")
    _, found, log = collect(pci_copy)
    hba = found["0000:03:00.0"]
    assert hba.link.current_speed_gts is None
    assert hba.link.current_speed_text == "fast"
    assert hba.link.current_width == 8
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == f"/{HBA_DIR}/current_link_speed"
    assert problem.reason == (
        "link speed not collected: expected a link speed like '8.0 GT/s PCIe' or 'Unknown', "
        "found 'fast'"
    )


def test_an_unknown_speed_and_a_down_link_are_facts_not_problems(pci_copy: Path) -> None:
    (pci_copy / HBA_DIR / "current_link_speed").write_text("Unknown\n")
    (pci_copy / HBA_DIR / "current_link_width").write_text("0\n")
    _, found, log = collect(pci_copy)
    link = found["0000:03:00.0"].link
    assert (link.current_speed_gts, link.current_speed_text, link.current_width) == (
        None,
        "Unknown",
        0,
    )
    assert log.problems() == []


def test_a_garbled_class_is_reported_and_the_function_left_out(pci_copy: Path) -> None:
    (pci_copy / HBA_DIR / "class").write_text("SAS\n")
    addresses, _, log = collect(pci_copy)
    assert "0000:03:00.0" not in addresses
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert "expected a class code like '0x010700', found 'SAS'" in problem.reason


def test_an_absent_and_a_malformed_address_say_why(tmp_path: Path) -> None:
    log = ProblemLog()
    absent = pci_function(SnapshotSource(PROCFS), "0000:09:00.0", log)
    assert absent.device_path is None and absent.kind is PciKind.OTHER
    malformed = pci_function(SnapshotSource(PROCFS), "slot 3", log)
    assert malformed.device_path is None
    missing, garbled = log.problems()
    assert missing.kind is ProblemKind.MISSING
    assert missing.reason == (
        "not collected: no such PCI function on this host (removed, or not captured)"
    )
    assert garbled.kind is ProblemKind.GARBLED
    assert "expected a PCI address like '0000:03:00.0', found 'slot 3'" in garbled.reason


def test_an_unreadable_attribute_is_reported(pci_copy: Path) -> None:
    """A directory where a file should be: reading it fails like an I/O error."""
    (pci_copy / HBA_DIR / "numa_node").unlink()
    (pci_copy / HBA_DIR / "numa_node").mkdir()
    _, found, log = collect(pci_copy)
    assert found["0000:03:00.0"].numa_node is None
    (problem,) = log.problems()
    assert problem.kind is ProblemKind.UNREADABLE
    assert problem.subject.endswith("0000:03:00.0/numa_node")


def test_no_pci_bus_at_all_is_an_empty_inventory(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    log = ProblemLog()
    assert collect_pcie(SnapshotSource(tmp_path), log).functions == []
    assert log.problems() == []


# -- parsers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8.0 GT/s PCIe", 8.0),
        ("2.5 GT/s", 2.5),
        ("16 GT/s PCIe", 16.0),
        ("Unknown", None),
        ("32.0 GT/s PCIe\n", 32.0),
    ],
)
def test_link_speeds(text: str, expected: float | None) -> None:
    assert parse_link_speed(text) == expected


@pytest.mark.parametrize("text", ["", "8.0 Gbit", "fast", "GT/s"])
def test_garbled_link_speeds(text: str) -> None:
    with pytest.raises(PcieParseError, match="expected a link speed like"):
        parse_link_speed(text)


def test_class_codes_and_kinds() -> None:
    assert parse_class_code("0x010802\n") == "0x010802"
    assert parse_class_code("0x10700") == "0x010700"
    with pytest.raises(PcieParseError):
        parse_class_code("0x1234567")
    kinds = {
        "0x010000": PciKind.STORAGE,  # SCSI
        "0x010400": PciKind.STORAGE,  # RAID
        "0x010601": PciKind.STORAGE,  # AHCI
        "0x010700": PciKind.STORAGE,  # SAS
        "0x010802": PciKind.NVME,
        "0x020000": PciKind.NETWORK,
        "0x020700": PciKind.NETWORK,  # InfiniBand
        "0x0c0400": PciKind.FIBRE_CHANNEL,
        "0x060400": PciKind.BRIDGE,
        "0x030000": PciKind.OTHER,  # VGA
    }
    assert {code: kind_of_class(code) for code in kinds} == kinds
    assert kind_of_class(None) is PciKind.OTHER


def test_places_in_the_tree() -> None:
    assert place_in_tree("/sys/devices/pci0000:00/0000:00:1f.6") == ("pci0000:00", [])
    assert place_in_tree(
        "/sys/devices/pci0000:00/0000:00:0e.0/pci10000:00/10000:00:02.0/10000:01:00.0"
    ) == ("pci10000:00", ["10000:00:02.0"])  # behind an Intel VMD
    assert normalise_address("0000:03:00.0") == "0000:03:00.0"
    assert normalise_address("0000:3B:00.0") == "0000:3b:00.0"
    assert normalise_address("eth0") is None


def test_a_bus_entry_that_is_a_plain_file_is_reported_once(pci_copy: Path) -> None:
    """What a copy that flattened links leaves behind: a file holding the link's target."""
    entry = pci_copy / "sys/bus/pci/devices/0000:01:00.0"
    entry.unlink()
    entry.write_text("../../../devices/pci0000:00/0000:00:02.1/0000:01:00.0")
    log = ProblemLog()
    nvme = pci_function(SnapshotSource(pci_copy), "0000:01:00.0", log)
    assert nvme.device_path is None
    (problem,) = log.problems()
    assert (problem.kind, problem.reason) == (
        ProblemKind.UNREADABLE,
        "not collected: not a directory nor a link to one",
    )
