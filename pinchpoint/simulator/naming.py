"""Kernel names and value formats, as Linux prints them in sysfs.

`sdX` names and their device numbers follow drivers/scsi/sd.c, link rates the strings of
scsi_transport_sas.c, PCIe speeds those of drivers/pci (`"8.0 GT/s PCIe"`).
"""

from __future__ import annotations

SD_MAJORS_FIRST = 8  # SCSI_DISK0_MAJOR
SD_MAJORS_SECOND = 65  # SCSI_DISK1_MAJOR .. SCSI_DISK7_MAJOR
SD_MAJORS_THIRD = 128  # SCSI_DISK8_MAJOR .. SCSI_DISK15_MAJOR
SG_MAJOR = 21
LINK_RATE_UNKNOWN = "Unknown"


def sd_name(index: int) -> str:
    """The block device name the sd driver gives its `index`-th disk: sda … sdz, sdaa …"""
    letters = ""
    number = index
    while True:
        letters = chr(ord("a") + number % 26) + letters
        number = number // 26 - 1
        if number < 0:
            return "sd" + letters


def sd_devt(index: int) -> tuple[int, int]:
    """The (major, minor) of the `index`-th sd disk (16 minors a disk, majors in 3 ranges)."""
    major_index = (index & 0xF0) >> 4
    if major_index == 0:
        major = SD_MAJORS_FIRST
    elif major_index < 8:
        major = SD_MAJORS_SECOND + major_index - 1
    else:
        major = SD_MAJORS_THIRD + major_index - 8
    minor = ((index & 0xF) << 4) | (index & 0xFFF00)
    return major, minor


def link_rate_text(gbps: float | None) -> str:
    """A SAS link rate as `negotiated_linkrate` shows it: "12.0 Gbit", or "Unknown" for no link."""
    if gbps is None:
        return LINK_RATE_UNKNOWN
    return f"{gbps:.1f} Gbit"


def pcie_speed_text(gts: float) -> str:
    """A PCIe link speed as `current_link_speed` shows it: "8.0 GT/s PCIe"."""
    return f"{gts:.1f} GT/s PCIe"


def pci_bus(pci_address: str) -> int:
    """The bus number of a PCI address `DDDD:BB:DD.F`."""
    return int(pci_address.split(":")[1], 16)


def pci_root_bus(pci_address: str) -> int:
    """The root bus of the host bridge above a device: 0x00, or 0x80 on the second socket."""
    return 0x80 if pci_bus(pci_address) >= 0x80 else 0x00


def default_root_port(pci_address: str) -> str:
    """A plausible root port of its own for a device: on the root bus, device number = bus
    offset modulo 32 and function = offset ÷ 32 (root ports are often functions of one root
    complex device), so no two buses of a socket share one."""
    domain = pci_address.split(":")[0]
    root_bus = pci_root_bus(pci_address)
    device, function = divmod(pci_bus(pci_address) - root_bus, 32)[::-1]
    return f"{domain}:{root_bus:02x}:{device:02x}.{function:x}"


def pci_host_bridge(root_port: str) -> str:
    """The `pci0000:XX` directory under /sys/devices that holds a root port."""
    domain, bus = root_port.split(":")[:2]
    return f"pci{domain}:{bus}"


def default_pci_address(numa_node: int, ordinal: int) -> str:
    """The PCI address an HBA gets when the spec gives none: bus 0x03+ (node 0) or 0x81+."""
    base = 0x81 if numa_node == 1 else 0x03
    return f"0000:{base + ordinal:02x}:00.0"


def padded(text: str, width: int) -> str:
    """An INQUIRY string field as sysfs shows it: cut or padded with spaces to `width`."""
    return text[:width].ljust(width)


def hctl(host: int, target: int, lun: int = 0, channel: int = 0) -> str:
    """A SCSI device name `H:C:T:L`."""
    return f"{host}:{channel}:{target}:{lun}"
