"""Kernel names and formats: sdX letters and device numbers, link rates, PCI placement."""

from __future__ import annotations

import pytest

from pinchpoint.simulator.addresses import AddressBook, name_hash, serial_number
from pinchpoint.simulator.naming import (
    default_pci_address,
    default_root_port,
    link_rate_text,
    pci_host_bridge,
    pcie_speed_text,
    sd_devt,
    sd_name,
)


@pytest.mark.parametrize(
    ("index", "name"),
    [
        (0, "sda"),
        (25, "sdz"),
        (26, "sdaa"),
        (51, "sdaz"),
        (52, "sdba"),
        (701, "sdzz"),
        (702, "sdaaa"),
    ],
)
def test_sd_names_run_like_the_kernel(index: int, name: str) -> None:
    assert sd_name(index) == name


@pytest.mark.parametrize(
    ("index", "devt"),
    [
        (0, (8, 0)),
        (15, (8, 240)),
        (16, (65, 0)),
        (21, (65, 80)),  # sdv in the real mpt3sas capture is 65:80
        (23, (65, 112)),  # sdx there is 65:112
        (127, (71, 240)),
        (128, (128, 0)),
        (255, (135, 240)),
        (256, (8, 256)),
        (1919, (71, 2032)),
    ],
)
def test_sd_device_numbers(index: int, devt: tuple[int, int]) -> None:
    assert sd_devt(index) == devt


def test_sd_device_numbers_never_repeat() -> None:
    assert len({sd_devt(i) for i in range(5000)}) == 5000


def test_rate_and_speed_texts() -> None:
    assert link_rate_text(12.0) == "12.0 Gbit"
    assert link_rate_text(6.0) == "6.0 Gbit"
    assert link_rate_text(None) == "Unknown"
    assert pcie_speed_text(8.0) == "8.0 GT/s PCIe"
    assert pcie_speed_text(16) == "16.0 GT/s PCIe"


def test_pci_placement() -> None:
    assert default_root_port("0000:03:00.0") == "0000:00:03.0"
    assert default_root_port("0000:81:00.0") == "0000:80:01.0"
    # buses 32 apart (an HBA at 0x01, FC ports at 0x41, an NVMe drive at 0x61) each get a
    # root port of their own, as functions of one root complex device
    ports = [default_root_port(f"0000:{bus:02x}:00.0") for bus in (0x01, 0x21, 0x41, 0x61)]
    assert ports == ["0000:00:01.0", "0000:00:01.1", "0000:00:01.2", "0000:00:01.3"]
    assert default_root_port("0000:c1:00.0") == "0000:80:01.2"
    assert pci_host_bridge("0000:80:01.0") == "pci0000:80"
    assert default_pci_address(0, 0) == "0000:03:00.0"
    assert default_pci_address(1, 1) == "0000:82:00.0"


def test_identities_are_stable_and_unique() -> None:
    assert name_hash("a", "b") == name_hash("a", "b") != name_hash("ab")
    assert serial_number("JBOD-001", "3") == serial_number("JBOD-001", "3")
    book = AddressBook()
    lus = [book.disk_lu("E", bay, "HGST") for bay in range(500)]
    ports = {lu + k for lu in lus for k in range(3)}
    assert len(ports) == 1500
    assert all(f"{lu:016x}".startswith("5000cca") for lu in lus)
    bases = {book.enclosure_base(f"E{i}", "HGST") >> 12 for i in range(200)}
    assert len(bases) == 200
