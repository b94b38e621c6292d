"""Entity references for findings: the stable id and the name a technician uses.

One function per kind, so every rule names an enclosure, an HBA or a NIC the same way.
"""

from __future__ import annotations

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Chain, Disk, Enclosure, Hba, HbaPort


def hba_name(hba: Hba) -> str:
    """`0000:03:00.0 SAS9300-8e`: the PCI address a technician finds the slot by, and the board."""
    return f"{hba.pci_address} {hba.board_name}" if hba.board_name else hba.pci_address


def hba_ref(hba: Hba) -> EntityRef:
    return EntityRef(kind=EntityKind.HBA, id=hba.id, name=hba_name(hba))


def hba_port_ref(hba: Hba, port: HbaPort) -> EntityRef:
    return EntityRef(
        kind=EntityKind.HBA_PORT, id=port.id, name=f"{hba_name(hba)} connector {port.connector}"
    )


def enclosure_ref(enclosure: Enclosure) -> EntityRef:
    return EntityRef(kind=EntityKind.ENCLOSURE, id=enclosure.id, name=enclosure.name)


def chain_ref(chain: Chain, inventory: Inventory) -> EntityRef:
    """A chain by its HBA port and its enclosures in cabling order: `… connector 0: A → B`."""
    fabric = inventory.sas
    names = {e.id: e.name for e in fabric.enclosures}
    start = chain.hba_port_id or chain.hba_id or chain.id
    for hba in fabric.hbas:
        for port in hba.ports:
            if port.id == chain.hba_port_id:
                start = f"{hba_name(hba)} connector {port.connector}"
    route = " → ".join(names.get(e, e) for e in chain.enclosure_ids)
    return EntityRef(kind=EntityKind.CHAIN, id=chain.id, name=f"{start}: {route}")


def disk_ref(disk: Disk, inventory: Inventory) -> EntityRef:
    """A disk by enclosure and slot where known (what a technician pulls), else its WWID."""
    names = {e.id: e.name for e in inventory.sas.enclosures}
    where = names.get(disk.enclosure_id or "")
    if where is not None and disk.slot is not None:
        name = f"{where} slot {disk.slot}"
    else:
        name = disk.wwid or disk.serial or disk.id
    return EntityRef(kind=EntityKind.DISK, id=disk.id, name=name)


def host_suffix(inventory: Inventory) -> str:
    """` on store01`, to name NICs and other host-local things; empty when the name is unknown."""
    return f" on {inventory.host.hostname}" if inventory.host.hostname else ""
