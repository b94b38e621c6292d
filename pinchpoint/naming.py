"""The one place that names things: an HBA, its ports, a chain, an enclosure, a bay, a disk, a
NIC. Every output — inventory, findings and evidence, statistics, the API, the web view,
`locate`, reports — takes its names from here, so a technician reads the same name everywhere.

Each `*_ref` gives an entity's stable id (what reports, mutes and history key on) with the name
a technician uses; the `*_name` functions give the name alone.

Slots (docs/naming.md): a slot is numbered as the enclosure itself numbers it — the SES
"device slot number" of the additional element status page, which is also the kernel's
`/sys/class/enclosure/*/*/slot` and the SAS transport's `bay_identifier` — never by the SES
element index. The enclosure's own label for the slot (the SES element descriptor, e.g.
"SLOT 05") is shown beside the number when it says something the number does not:
`JBOD-003 slot 4 (SLOT 05)`.
"""

from __future__ import annotations

import re

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Bond, Nic
from pinchpoint.model.pcie import PciFunction
from pinchpoint.model.sas import Chain, Disk, Enclosure, Expander, Hba, HbaPort, Phy


def hba_ref(hba: Hba) -> EntityRef:
    return EntityRef(kind=EntityKind.HBA, id=hba.id, name=hba.label)


def connector_name(connector: int) -> str:
    """`connector 0`: an HBA's external connector, numbered as the HBA's phys are (lowest phy ÷
    4); the name of a port under its HBA."""
    return f"connector {connector}"


def hba_port_name(hba: Hba, port: HbaPort) -> str:
    """`0000:03:00.0 SAS9300-8e connector 0`: the HBA a technician finds by its PCI address and
    board, and the connector the cable goes into."""
    return f"{hba.label} {connector_name(port.connector)}"


def hba_port_ref(hba: Hba, port: HbaPort) -> EntityRef:
    return EntityRef(kind=EntityKind.HBA_PORT, id=port.id, name=hba_port_name(hba, port))


def enclosure_ref(enclosure: Enclosure) -> EntityRef:
    return EntityRef(kind=EntityKind.ENCLOSURE, id=enclosure.id, name=enclosure.name)


def chain_name(chain: Chain, inventory: Inventory) -> str:
    """A chain by its HBA port and its enclosures in cabling order: `… connector 0: A → B`."""
    fabric = inventory.sas
    names = {e.id: e.name for e in fabric.enclosures}
    start = chain.hba_port_id or chain.hba_id or chain.id
    for hba in fabric.hbas:
        for port in hba.ports:
            if port.id == chain.hba_port_id:
                start = hba_port_name(hba, port)
    route = " → ".join(names.get(e, e) for e in chain.enclosure_ids)
    return f"{start}: {route}" if route else start


def chain_ref(chain: Chain, inventory: Inventory) -> EntityRef:
    return EntityRef(kind=EntityKind.CHAIN, id=chain.id, name=chain_name(chain, inventory))


_JUST_A_NUMBER = re.compile(r"(?:slot|bay|disk|drive)?[\s_#:-]*0*(\d+)", re.IGNORECASE)


def slot_label(descriptor: str | None, number: int) -> str | None:
    """The enclosure's own label for slot `number` ("SLOT 05", "Front Bay 3") when it says more
    than the number does; None for no label or one that only repeats it ("4", "Slot 004")."""
    text = " ".join((descriptor or "").split())
    if not text:
        return None
    repeated = _JUST_A_NUMBER.fullmatch(text)
    if repeated is not None and int(repeated.group(1)) == number:
        return None
    return text


def slot_name(number: int, descriptor: str | None = None) -> str:
    """`slot 4 (SLOT 05)`: the number the enclosure reports for the slot, its own label beside."""
    label = slot_label(descriptor, number)
    return f"slot {number} ({label})" if label else f"slot {number}"


def disk_slot_name(disk: Disk, enclosure: Enclosure) -> str | None:
    """`slot 4 (SLOT 05)`: the slot of `enclosure` the disk sits in; None when unknown."""
    if disk.slot is None:
        return None
    descriptor = next((s.descriptor for s in enclosure.slots if s.index == disk.slot), None)
    return slot_name(disk.slot, descriptor)


def disk_name(disk: Disk, enclosure: Enclosure | None) -> str:
    """A disk by enclosure and slot where known (what a technician pulls), else its WWID."""
    where = disk_slot_name(disk, enclosure) if enclosure is not None else None
    if enclosure is not None and where is not None:
        return f"{enclosure.name} {where}"
    return disk.wwid or disk.serial or disk.id


def _enclosure(inventory: Inventory, enclosure_id: str | None) -> Enclosure | None:
    """One enclosure of the fabric, None when it is not there. Looked up, not mapped: rules ask
    for thousands of disks and phys, and a fabric has a few dozen enclosures."""
    if enclosure_id is None:
        return None
    return next((e for e in inventory.sas.enclosures if e.id == enclosure_id), None)


def _enclosure_name(inventory: Inventory, enclosure_id: str | None) -> str | None:
    found = _enclosure(inventory, enclosure_id)
    return found.name if found is not None else None


def disk_ref(disk: Disk, inventory: Inventory) -> EntityRef:
    """A disk by enclosure and slot where known (what a technician pulls), else its WWID."""
    name = disk_name(disk, _enclosure(inventory, disk.enclosure_id))
    return EntityRef(kind=EntityKind.DISK, id=disk.id, name=name)


def host_suffix(inventory: Inventory) -> str:
    """` on store01`, to name NICs and other host-local things; empty when the name is unknown."""
    return f" on {inventory.host.hostname}" if inventory.host.hostname else ""


def hba_phy_ref(hba: Hba, phy: Phy) -> EntityRef:
    """An HBA phy by board, connector and lane: `0000:03:00.0 SAS9300-8e connector 0 phy 2`."""
    name = f"{hba.label} {connector_name(phy.phy_identifier // 4)} phy {phy.phy_identifier}"
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
