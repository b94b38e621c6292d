"""The one place that names things: an HBA, its ports, a chain, an enclosure, a bay, a disk, a
NIC. Every output — inventory, findings and evidence, statistics, the API, the web view,
`locate`, reports — takes its names from here, so a technician reads the same name everywhere.

Each `*_ref` gives an entity's stable id (what reports, mutes and history key on) with the name
a technician uses.
"""

from __future__ import annotations

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Bond, Nic
from pinchpoint.model.pcie import PciFunction
from pinchpoint.model.sas import Chain, Disk, Enclosure, Expander, Hba, HbaPort, Phy


def hba_ref(hba: Hba) -> EntityRef:
    return EntityRef(kind=EntityKind.HBA, id=hba.id, name=hba.label)


def hba_port_ref(hba: Hba, port: HbaPort) -> EntityRef:
    return EntityRef(
        kind=EntityKind.HBA_PORT, id=port.id, name=f"{hba.label} connector {port.connector}"
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
                start = f"{hba.label} connector {port.connector}"
    route = " → ".join(names.get(e, e) for e in chain.enclosure_ids)
    return EntityRef(kind=EntityKind.CHAIN, id=chain.id, name=f"{start}: {route}")


def _enclosure_name(inventory: Inventory, enclosure_id: str | None) -> str | None:
    """The name of one enclosure of the fabric, None when it is not there. Looked up, not
    mapped: a name is computed (nickname, else product and logical id), and rules ask for
    thousands of disks and phys."""
    if enclosure_id is None:
        return None
    return next((e.name for e in inventory.sas.enclosures if e.id == enclosure_id), None)


def disk_ref(disk: Disk, inventory: Inventory) -> EntityRef:
    """A disk by enclosure and slot where known (what a technician pulls), else its WWID."""
    where = _enclosure_name(inventory, disk.enclosure_id)
    if where is not None and disk.slot is not None:
        name = f"{where} slot {disk.slot}"
    else:
        name = disk.wwid or disk.serial or disk.id
    return EntityRef(kind=EntityKind.DISK, id=disk.id, name=name)


def host_suffix(inventory: Inventory) -> str:
    """` on store01`, to name NICs and other host-local things; empty when the name is unknown."""
    return f" on {inventory.host.hostname}" if inventory.host.hostname else ""


def hba_phy_ref(hba: Hba, phy: Phy) -> EntityRef:
    """An HBA phy by board, connector and lane: `0000:03:00.0 SAS9300-8e connector 0 phy 2`."""
    name = f"{hba.label} connector {phy.phy_identifier // 4} phy {phy.phy_identifier}"
    return EntityRef(kind=EntityKind.PHY, id=phy.id, name=name)


def expander_phy_ref(expander: Expander, phy: Phy, inventory: Inventory) -> EntityRef:
    """An expander phy by the enclosure it sits in (else its SAS address) and its number."""
    where = _enclosure_name(inventory, expander.enclosure_id) or f"expander {expander.sas_address}"
    name = f"{where} expander {expander.sas_address} phy {phy.phy_identifier}"
    return EntityRef(kind=EntityKind.PHY, id=phy.id, name=name)


def nic_ref(nic: Nic, inventory: Inventory) -> EntityRef:
    """A NIC by kernel name and host: `eno1 on store01` (its id is the permanent MAC)."""
    return EntityRef(kind=EntityKind.NIC, id=nic.id, name=f"{nic.name}{host_suffix(inventory)}")


def bond_ref(bond: Bond, inventory: Inventory) -> EntityRef:
    """A bond by name and host: `bond0 on store01`."""
    return EntityRef(kind=EntityKind.BOND, id=bond.id, name=f"{bond.name}{host_suffix(inventory)}")


def pcie_ref(function: PciFunction, what: str) -> EntityRef:
    """A PCIe card by the PCI address a technician finds the slot by and what sits there."""
    name = f"{function.pci_address} {what}" if what else function.pci_address
    return EntityRef(kind=EntityKind.PCIE_DEVICE, id=function.id, name=name)
