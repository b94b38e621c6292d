"""What the PCIe rules share: the storage and network cards of a host (their functions grouped
by card), what sits in each slot as a technician names it, and link data rates."""

from __future__ import annotations

from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import PciFunction, PciKind
from pinchpoint.naming import pcie_ref

ENDPOINT_KINDS = frozenset({PciKind.STORAGE, PciKind.NVME, PciKind.NETWORK, PciKind.FIBRE_CHANNEL})


def lane_gbps(speed_gts: float) -> float:
    """Data Gb/s of one lane: 8b/10b coding up to 5 GT/s (Gen1, Gen2), 128b/130b from Gen3."""
    return speed_gts * (0.8 if speed_gts <= 5.0 else 128 / 130)


def link_gbps(speed_gts: float | None, width: int | None) -> float | None:
    """A link's data rate each way in Gb/s; None when speed or width is unknown."""
    if not speed_gts or not width:
        return None
    return lane_gbps(speed_gts) * width


def link_words(speed_gts: float | None, width: int | None) -> str:
    speed = f"{speed_gts:g} GT/s" if speed_gts else "? GT/s"
    return f"{speed} x{width if width else '?'}"


def cards(inventory: Inventory) -> list[list[PciFunction]]:
    """The storage and network cards: their physical functions grouped by card address (the
    functions of one card share its link), each card's functions in address order."""
    found: dict[str, list[PciFunction]] = {}
    for function in inventory.pcie.functions:
        if function.kind in ENDPOINT_KINDS and not function.virtual_function:
            found.setdefault(function.card_address, []).append(function)
    return [sorted(group, key=lambda f: f.pci_address) for group in found.values()]


def card_label(card: list[PciFunction], inventory: Inventory) -> str:
    """What sits in a slot, as a technician names it: the HBA board, the NICs, the FC ports."""
    addresses = {f.pci_address for f in card}
    for hba in inventory.sas.hbas:
        if hba.pci_address in addresses:
            return hba.board_name or hba.driver or "SAS HBA"
    nics = [n.name for n in inventory.network.nics if n.pci_address in addresses]
    if nics:
        return f"NIC {', '.join(nics)}"
    ports = [p.scsi_host for p in inventory.fc.ports if p.pci_address in addresses]
    if ports:
        return f"FC {', '.join(ports)}"
    first = card[0]
    if first.kind is PciKind.NVME:
        return "NVMe drive"
    return first.driver or first.kind.value


def card_ref(card: list[PciFunction], inventory: Inventory) -> EntityRef:
    return pcie_ref(card[0], card_label(card, inventory))
