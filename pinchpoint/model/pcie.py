"""PCIe functions of the I/O path (HBAs, NICs, FC adapters, NVMe drives) and the links they sit on.

A card's bandwidth is bounded by the narrower of its own link and the slot (bridge port) it
hangs from, and cards that share a root port share that port's bandwidth. So each function
keeps its own link, the PCI address and link of the bridge port directly above it, and the
root port and root complex it descends from: two NICs behind one root port, or a x8 card in a
x4 slot, show without further reads.

Ids derive from the PCI address (`pci:0000:03:00.0`), which names the slot position, not a
kernel enumeration order.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


def pci_function_id(pci_address: str) -> str:
    """`0000:03:00.0` -> `pci:0000:03:00.0`."""
    return f"pci:{pci_address}"


def pci_card_address(pci_address: str) -> str:
    """`0000:04:00.1` -> `0000:04:00`: the functions of one card (and slot) share it."""
    return pci_address.rsplit(".", 1)[0]


class PcieLink(BaseModel):
    """A PCIe link as the kernel reports it (`current_link_speed`, `max_link_width` …).

    Speeds are GT/s per lane ("8.0 GT/s PCIe" -> 8.0); None when the kernel says "Unknown"
    (no link, or a link it cannot decode) or the attribute is absent (conventional PCI,
    root-complex integrated devices). Widths are lanes (x8 -> 8); a current width of 0 means
    the link is down.
    """

    current_speed_gts: float | None = None
    max_speed_gts: float | None = None
    current_width: int | None = None
    max_width: int | None = None
    current_speed_text: str | None = None  # as the kernel says: "8.0 GT/s PCIe", "Unknown"
    max_speed_text: str | None = None

    def is_empty(self) -> bool:
        """True when the kernel gave no link attribute at all."""
        return self == PcieLink()


class PciKind(StrEnum):
    """What a PCI function is, from its class code (`class`, 0xCCSSPP)."""

    STORAGE = "storage"  # 0x01xxxx except NVMe: SAS, SATA, RAID and SCSI HBAs
    NVME = "nvme"  # 0x0108xx: an NVMe drive (each drive is its own PCIe function)
    NETWORK = "network"  # 0x02xxxx: Ethernet, InfiniBand
    FIBRE_CHANNEL = "fibre_channel"  # 0x0c04xx: FC HBAs
    BRIDGE = "bridge"  # 0x0604xx: root ports and switch ports (the slots cards hang from)
    OTHER = "other"  # anything else, or a class that could not be read


class PciFunction(BaseModel):
    """One PCI function with its link and its place below the root complex."""

    id: str  # `pci:<pci_address>`
    pci_address: str  # "0000:03:00.0" (domain:bus:device.function)
    card_address: str  # "0000:03:00": the functions of one card share it and its link
    # "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0"; None when the function was not found
    device_path: str | None = None
    kind: PciKind = PciKind.OTHER
    class_code: str | None = None  # "0x010700" (SAS), "0x020000" (Ethernet), "0x0c0400" (FC)
    vendor_id: str | None = None  # "0x1000"
    device_id: str | None = None  # "0x00ab"
    subsystem_vendor_id: str | None = None
    subsystem_device_id: str | None = None
    driver: str | None = None  # the name the `driver` link leads to ("mpt3sas", "ice", "nvme")
    numa_node: int | None = None  # None when the platform gives none (the kernel's -1)
    virtual_function: bool = False  # an SR-IOV VF (has a `physfn` link): it shares the PF's link
    link: PcieLink = Field(default_factory=PcieLink)
    # PCI address of the bridge port directly above (root port or switch downstream port);
    # None for a function on the root bus itself (root-complex integrated, or a partial capture)
    upstream_port: str | None = None
    upstream_link: PcieLink | None = None  # that port's link: the slot as the card sees it
    root_port: str | None = None  # first bridge below the root complex (shared behind a switch)
    root_complex: str | None = None  # "pci0000:00": the host bridge (one per socket or I/O die)
    bridges: list[str] = Field(default_factory=list)  # root port … upstream_port, top down


class PcieInventory(BaseModel):
    """The storage and network PCI functions of a host, sorted by PCI address."""

    functions: list[PciFunction] = Field(default_factory=list)

    def by_address(self, pci_address: str) -> PciFunction | None:
        """The function at `pci_address`, if collected."""
        return next((f for f in self.functions if f.pci_address == pci_address), None)

    def sharing_upstream(self, upstream_port: str) -> list[PciFunction]:
        """The functions hanging directly from one bridge port (one slot)."""
        return [f for f in self.functions if f.upstream_port == upstream_port]

    def sharing_root_port(self, root_port: str) -> list[PciFunction]:
        """The functions below one root port, behind switches or not."""
        return [f for f in self.functions if f.root_port == root_port]
