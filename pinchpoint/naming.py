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
from collections.abc import Mapping
from functools import lru_cache

from pinchpoint.model.block import (
    BlockController,
    BlockDevice,
    BlockPartition,
    ControllerKind,
    StackLayer,
    stack_layer,
)
from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.fc import FcLun, FcPort
from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.health import DiskHealth
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.iscsi import iscsi_lun_id
from pinchpoint.model.multipath import MultipathMap
from pinchpoint.model.network import Bond, Nic
from pinchpoint.model.nvme import NvmeNamespace, NvmeSubsystem
from pinchpoint.model.pcie import PciFunction, pci_function_id
from pinchpoint.model.sas import (
    Chain,
    Disk,
    Enclosure,
    EnclosureElement,
    Expander,
    Hba,
    HbaPort,
    Phy,
    Slot,
)


def connector_name(connector: int) -> str:
    """`connector 0`: an HBA's external connector, numbered as the HBA's phys are (lowest phy ÷
    4); the name of a port under its HBA."""
    return f"connector {connector}"


def hba_connector_name(hba: Hba, connector: int) -> str:
    """`0000:03:00.0 SAS9300-8e connector 0`: the HBA a technician finds by its PCI address and
    board, and the connector the cable goes into (cabled or not)."""
    return f"{hba.label} {connector_name(connector)}"


def hba_port_name(hba: Hba, port: HbaPort) -> str:
    """An HBA port by the connector it is cabled to (see `hba_connector_name`)."""
    return hba_connector_name(hba, port.connector)


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


@lru_cache(maxsize=4096)  # a pure function of its two values, asked for every disk named
def slot_label(descriptor: str | None, number: int) -> str | None:
    """The enclosure's own label for slot `number` ("SLOT 05", "Front Bay 3") when it says more
    than the number does; None for no label or one that only repeats it ("4", "Slot 004").

    HGST/WD shelves (H4060-J, H4102-J) put the label first and then, after commas, the serial
    of the disk in the bay or a part number ("SLOT 07,8HK1ZT4H", "PSU A,CSU1800AP-3-10,…"):
    the label is the part before the first comma (the disk's serial is shown as the disk)."""
    text = " ".join((descriptor or "").split(",", 1)[0].split())
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


def element_name(element: EnclosureElement) -> str:
    """`power supply 1 (PSU 2)`: an SES element by its type as SES names it and its number
    within the type (as sg_ses prints "Element 1"), with the enclosure's own label beside it
    when the label says more than the number (as for slots)."""
    label = slot_label(element.descriptor, element.index)
    kind = element.element_type
    if kind[1:2].islower():  # "Power supply" -> "power supply"; "SAS expander" stays
        kind = kind[0].lower() + kind[1:]
    base = f"{kind} {element.index}"
    return f"{base} ({label})" if label else base


def enclosure_element_name(enclosure: Enclosure, element: EnclosureElement) -> str:
    """`JBOD-003 power supply 1 (PSU 2)`: an SES element by its enclosure (`element_name`)."""
    return f"{enclosure.name} {element_name(element)}"


def disk_slot_name(disk: Disk, enclosure: Enclosure) -> str | None:
    """`slot 4 (SLOT 05)`: the slot of `enclosure` the disk sits in; None when unknown."""
    if disk.slot is None:
        return None
    slot = _slot(enclosure, disk.slot)
    return slot_name(disk.slot, slot.descriptor if slot is not None else None)


def disk_name(disk: Disk, enclosure: Enclosure | None) -> str:
    """A disk by enclosure and slot where known (what a technician pulls), else its WWID."""
    where = disk_slot_name(disk, enclosure) if enclosure is not None else None
    if enclosure is not None and where is not None:
        return f"{enclosure.name} {where}"
    return disk.wwid or disk.serial or disk.id


def _slot(enclosure: Enclosure, number: int) -> Slot | None:
    """Slot `number` of `enclosure` (the first of that number), None when it has none. Slots
    are listed in element order (numbered from 0 or 1), so the slot is looked for where that
    order puts it before the list is searched: naming thousands of disks a check, a search of
    60 slots each was most of the cost (docs/benchmarks.md, "fourth pass")."""
    slots = enclosure.slots
    for place in (number, number - 1):
        if 0 <= place < len(slots) and slots[place].index == number:
            if place == 0 or slots[place - 1].index != number:  # not a repeated number
                return slots[place]
            break
    return next((s for s in slots if s.index == number), None)


def _enclosure(inventory: Inventory, enclosure_id: str | None) -> Enclosure | None:
    """One enclosure of the fabric, None when it is not there. Looked up, not mapped: a fabric
    has a few dozen enclosures."""
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
    name = f"{hba_connector_name(hba, phy.phy_identifier // 4)} phy {phy.phy_identifier}"
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


# --- names the rules use (appended with the rules' redesign, issue 13) ---------------------


def sas_route_name(route_id: str) -> str:
    """A route to an enclosure or disk that is no HBA port of the inventory: where the driver
    shows no SAS ports, the target it reaches (`0000:03:00.0 target 0x5000…`); else the id."""
    adapter, _, route = route_id.partition("/")
    if route.startswith("target:"):
        return f"{adapter.removeprefix('hba:')} target {route.removeprefix('target:')}"
    return route_id


def group_ref(group: GroupFigures) -> EntityRef:
    """A group of the statistics' breakdown (an enclosure, chain, HBA port, HBA, disk, LUN,
    FC port or adapter, NIC or bond) by the id and name the breakdown gave it."""
    return EntityRef(kind=_GROUP_KINDS[group.level], id=group.id, name=group.name)


_GROUP_KINDS = {
    GroupLevel.DISK: EntityKind.DISK,
    GroupLevel.ENCLOSURE: EntityKind.ENCLOSURE,
    GroupLevel.CHAIN: EntityKind.CHAIN,
    GroupLevel.HBA_PORT: EntityKind.HBA_PORT,
    GroupLevel.HBA: EntityKind.HBA,
    GroupLevel.LUN: EntityKind.LUN,
    GroupLevel.FC_PORT: EntityKind.FC_PORT,
    GroupLevel.FC_ADAPTER: EntityKind.FC_ADAPTER,
    GroupLevel.NIC: EntityKind.NIC,
    GroupLevel.BOND: EntityKind.BOND,
    GroupLevel.CONTROLLER: EntityKind.CONTROLLER,
    GroupLevel.CONTROLLER_PORT: EntityKind.CONTROLLER_PORT,
}


def host_ref(inventory: Inventory) -> EntityRef:
    """The host itself, for what concerns it as a whole: `host:store01`."""
    hostname = inventory.host.hostname
    return EntityRef(
        kind=EntityKind.HOST, id=f"host:{hostname or 'local'}", name=hostname or "this host"
    )


def fc_port_name(port: FcPort) -> str:
    """`host3 0x21000024ff3dbe4a (0000:04:00.0)`: an FC port as a technician finds it — kernel
    host, WWPN (what the switch zones), PCI function."""
    where = f" ({port.pci_address})" if port.pci_address else ""
    wwpn = f" {port.port_name}" if port.port_name else ""
    return f"{port.scsi_host}{wwpn}{where}"


def fc_port_ref(port: FcPort) -> EntityRef:
    return EntityRef(kind=EntityKind.FC_PORT, id=port.id, name=fc_port_name(port))


def multipath_lun_name(mpath: MultipathMap) -> str:
    """`mpatha (3600a0b80005a6c4c…)`: a SAN LUN by its multipath map and its WWID (the identity
    the array shows too; the map's dm-N changes from boot to boot). A map named by its WWID
    (`user_friendly_names no`, or no name read) is `LUN 3600a0b80005a6c4c…`: the WWID once."""
    if mpath.name and mpath.name.lower() != mpath.wwid.lower():
        return f"{mpath.name} ({mpath.wwid})" if mpath.wwid else mpath.name
    return f"LUN {mpath.wwid or mpath.name or mpath.id}"


def multipath_lun_ref(mpath: MultipathMap) -> EntityRef:
    return EntityRef(kind=EntityKind.LUN, id=mpath.id, name=multipath_lun_name(mpath))


def fc_lun_name(lun: FcLun, port: FcPort) -> str:
    """`LUN 1 sdb via host3`: a SAN LUN without a multipath map, by the one path it is seen
    through (its number on the array, its device of the moment, the FC port)."""
    return f"LUN {lun.lun} {lun.block_device or lun.hctl} via {port.scsi_host}"


def fc_lun_path_ref(lun: FcLun, port: FcPort) -> EntityRef:
    return EntityRef(kind=EntityKind.LUN, id=lun.id, name=fc_lun_name(lun, port))


def wwid_lun_ref(mpath: MultipathMap | None, first_path: FcLun, port: FcPort) -> EntityRef:
    """A LUN counted by its WWID across its paths: by its multipath map where it has one (the
    id the statistics use), else by its first path — the names of `multipath_lun_ref` and
    `fc_lun_path_ref`, so each LUN has one name whichever rule speaks of it."""
    if mpath is not None:
        return multipath_lun_ref(mpath)
    return fc_lun_path_ref(first_path, port)


def volume_ref(name: str) -> EntityRef:
    """An imported volume (a PerfMon logical or physical disk), which stands alone without an
    inventory: `volume:LogicalDisk(H:)`."""
    return EntityRef(kind=EntityKind.VOLUME, id=f"volume:{name}", name=name)


def sas_disks_by_id(inventory: Inventory) -> dict[str, Disk]:
    """The SAS fabric's disks by id (the first of an id), for `health_disk_ref` over many."""
    found: dict[str, Disk] = {}
    for disk in inventory.sas.disks:
        found.setdefault(disk.id, disk)
    return found


def health_disk_ref(
    health: DiskHealth, inventory: Inventory, disks: Mapping[str, Disk] | None = None
) -> EntityRef:
    """The disk SMART data is about: by its bay where the SAS inventory knows it, else by
    device, model and serial. `disks`: `sas_disks_by_id(inventory)`, for a rule naming every
    disk (a search of the list per disk is quadratic: 0.1 s on a 960-disk host)."""
    if disks is None:
        disks = sas_disks_by_id(inventory)
    disk = disks.get(health.id)
    if disk is not None:
        return disk_ref(disk, inventory)
    label = " ".join(p for p in (health.model, health.serial) if p)
    name = f"{health.device} ({label})" if label else health.device
    return EntityRef(kind=EntityKind.DISK, id=health.id, name=name)


def partition_ref(partition: BlockPartition, device: BlockDevice) -> EntityRef:
    """A partition on its disk, the disk by kernel name and WWID: `sda1 on sda (naa.5000…)`."""
    disk = f"{device.name} ({device.wwid})" if device.wwid else device.name
    return EntityRef(kind=EntityKind.PARTITION, id=partition.id, name=f"{partition.name} on {disk}")


def pcie_bridge_ref(port_address: str, what: str) -> EntityRef:
    """A PCIe bridge port by its address and what hangs from it."""
    return EntityRef(
        kind=EntityKind.PCIE_DEVICE,
        id=pci_function_id(port_address),
        name=f"{port_address} ({what})",
    )


# --- disks outside the SAS fabric: controller → port → disk (issue 15) ---------------------

_DRIVER_WORDS = {"ahci": "AHCI", "nvme": "NVMe", "virtio-pci": "virtio", "virtio_pci": "virtio"}
_KIND_WORDS = {
    ControllerKind.ATA: "SATA",
    ControllerKind.NVME: "NVMe",
    ControllerKind.VIRTIO: "virtio",
    ControllerKind.SCSI: "SCSI",
    ControllerKind.OTHER: "",
}


def _controller_word(controller: BlockController) -> str:
    """`AHCI`, `NVMe`, `virtio`, `megaraid_sas`: what the controller is, by its driver where
    known (a SCSI host's driver says more than "SCSI")."""
    if controller.kind is ControllerKind.NVME:
        return "NVMe"
    if controller.kind is ControllerKind.VIRTIO:
        return "virtio"
    driver = controller.driver
    if driver:
        return _DRIVER_WORDS.get(driver, driver)
    return _KIND_WORDS[controller.kind]


def controller_name(controller: BlockController) -> str:
    """A disk controller outside the SAS fabric by what it is and its PCI address:
    `AHCI 0000:00:1f.2`, `NVMe nvme0 (0000:3b:00.0)` (one controller per drive: its kernel
    name beside), `virtio 0000:00:05.0`, `megaraid_sas 0000:02:00.0`; `SCSI host3` where no
    PCI function is known (iSCSI)."""
    word = _controller_word(controller)
    address = controller.pci_address
    if controller.kind is ControllerKind.NVME:
        port = controller.port or ""
        return f"{word} {port} ({address})" if address else f"{word} {port}".strip()
    if address:
        return f"{word} {address}".strip()
    return f"{word} {controller.port or ''}".strip() or controller.id


def controller_port_name(controller: BlockController) -> str:
    """A port of such a controller: `AHCI 0000:00:1f.2 ata3`, `megaraid_sas 0000:02:00.0
    host0`; the controller itself where it has one disk per controller (NVMe, virtio)."""
    name = controller_name(controller)
    one_per_controller = controller.kind in (ControllerKind.NVME, ControllerKind.VIRTIO)
    if one_per_controller or not controller.port or name.endswith(controller.port):
        return name
    return f"{name} {controller.port}"


def controller_ref(controller: BlockController) -> EntityRef:
    return EntityRef(kind=EntityKind.CONTROLLER, id=controller.id, name=controller_name(controller))


def controller_port_ref(controller: BlockController) -> EntityRef:
    return EntityRef(
        kind=EntityKind.CONTROLLER_PORT,
        id=controller.port_id,
        name=controller_port_name(controller),
    )


def block_disk_name(device: BlockDevice) -> str:
    """A disk outside the SAS fabric by its controller, port and kernel name:
    `AHCI 0000:00:1f.2 ata3 sdc`, `NVMe nvme0 (0000:3b:00.0) nvme0n1`, `virtio 0000:00:05.0
    vda`; by kernel name and WWID where its controller is not known."""
    if device.controller is not None:
        return f"{controller_port_name(device.controller)} {device.name}"
    return f"{device.name} ({device.wwid})" if device.wwid else device.name


def block_disk_ref(device: BlockDevice) -> EntityRef:
    return EntityRef(kind=EntityKind.DISK, id=device.id, name=block_disk_name(device))


_LAYER_WORDS = {
    StackLayer.LVM: "LVM volume",
    StackLayer.LVM_THIN_POOL: "LVM thin pool",
    StackLayer.CRYPT: "dm-crypt volume",
    StackLayer.MULTIPATH: "multipath map",
    StackLayer.DM: "dm device",
}


def stacked_device_name(device: BlockDevice) -> str:
    """A dm or md device by what it is and the names a person knows it by: `md array md0
    (raid1)`, `LVM volume vg0-data (dm-2)`, `dm-crypt volume luks-data (dm-0)`."""
    layer = stack_layer(device)
    if layer is StackLayer.MD:
        return (
            f"md array {device.name} ({device.md_level})"
            if device.md_level
            else (f"md array {device.name}")
        )
    words = _LAYER_WORDS.get(layer, "device") if layer is not None else "device"
    if device.dm_name and device.dm_name != device.name:
        return f"{words} {device.dm_name} ({device.name})"
    return f"{words} {device.name}"


def stacked_device_ref(device: BlockDevice) -> EntityRef:
    return EntityRef(kind=EntityKind.BLOCK_DEVICE, id=device.id, name=stacked_device_name(device))


def disk_peers(device: BlockDevice, inventory: Inventory) -> tuple[str, str]:
    """The peers a disk outside the SAS fabric is compared with, as (key, name): the disks of
    its controller (`AHCI 0000:00:1f.2`); where each controller holds one disk (NVMe,
    virtio), every such disk of the host (`NVMe controllers on store01`)."""
    controller = device.controller
    if controller is None:
        return "controllers:unknown", f"disks without a known controller{host_suffix(inventory)}"
    if controller.kind in (ControllerKind.NVME, ControllerKind.VIRTIO):
        word = _controller_word(controller)
        return f"controllers:{controller.kind.value}", f"{word} controllers{host_suffix(inventory)}"
    return controller.id, controller_name(controller)


def nvme_subsystem_name(subsystem: NvmeSubsystem) -> str:
    """`Dell PowerStore (nvme-subsys0)`: its model, else its NQN, with the kernel's name."""
    return f"{subsystem.model or subsystem.nqn} ({subsystem.name})"


def nvme_subsystem_ref(subsystem: NvmeSubsystem) -> EntityRef:
    return EntityRef(kind=EntityKind.LUN, id=subsystem.id, name=nvme_subsystem_name(subsystem))


def nvme_namespace_name(namespace: NvmeNamespace, subsystem: NvmeSubsystem) -> str:
    """`namespace 1 of Dell PowerStore (nvme1n1)`: its NSID and subsystem, with the block
    device of the moment where the kernel made one."""
    device = namespace.head or next((p.name for p in namespace.paths), None)
    what = subsystem.model or subsystem.nqn
    nsid = namespace.nsid if namespace.nsid is not None else "?"
    return f"namespace {nsid} of {what}" + (f" ({device})" if device else "")


def nvme_namespace_ref(namespace: NvmeNamespace, subsystem: NvmeSubsystem) -> EntityRef:
    return EntityRef(
        kind=EntityKind.LUN, id=namespace.id, name=nvme_namespace_name(namespace, subsystem)
    )


def iscsi_lun_name(wwid: str, lun: int | None, targets: list[str]) -> str:
    """`iSCSI LUN naa.600a0980… (LUN 1 of iqn.1992-08.com.netapp:sn.1)`: by WWID, with its
    LUN number and target as the array presents it."""
    where = ", ".join(targets[:2]) + (f" and {len(targets) - 2} more" if len(targets) > 2 else "")
    number = f"LUN {lun}" if lun is not None else "LUN"
    return f"iSCSI LUN {wwid} ({number} of {where})" if where else f"iSCSI LUN {wwid}"


def iscsi_lun_ref(wwid: str, lun: int | None, targets: list[str]) -> EntityRef:
    return EntityRef(
        kind=EntityKind.LUN, id=iscsi_lun_id(wwid), name=iscsi_lun_name(wwid, lun, targets)
    )


# --- host names from outside, and the file names made from them ------------------------------
#
# A host name arrives from other machines (a fleet push, an uploaded snapshot's manifest) and is
# stored as data. Where one names a file (the daily reports), the file name is `host_token`'s,
# never the name itself: `../../../etc/cron.d/x` must not become a path.

HOST_NAME_MAX = 253  # RFC 1123: at most 253 characters, dot-separated labels of 1-63
_HOST_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
_TOKEN_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
TOKEN_PART_BYTES = 120  # one path component of a token, far below any file system's 255
EMPTY_HOST_TOKEN = "~"  # `~` is always escaped in a token, so it names the empty name alone
_TOKEN_UNIT = re.compile(r"%[0-9A-F]{2}|[A-Za-z0-9._-]")
_TOKEN_PART = re.compile(r"(?:%[0-9A-F]{2}|[A-Za-z0-9_-])(?:%[0-9A-F]{2}|[A-Za-z0-9._-])*")


def host_name_problem(name: str) -> str | None:
    """Why `name` cannot be taken as a host name from another machine, or None when it can:
    1-253 characters, dot-separated labels of 1-63 letters, digits, `-` (not first or last)
    and `_` (seen on real hosts, though RFC 1123 has none)."""
    shown = ascii(name[:64]) + ("..." if len(name) > 64 else "")
    if not name:
        return "a host name is needed"
    if len(name) > HOST_NAME_MAX:
        return f"host name {shown} is {len(name)} characters long (at most {HOST_NAME_MAX})"
    for label in name.split("."):
        if not _HOST_LABEL.fullmatch(label):
            return (
                f"host name {shown}: a host name is dot-separated labels of 1-63 letters, "
                "digits, '-' and '_'"
            )
    return None


def host_token(name: str) -> str:
    """A token for host `name` that is safe as a relative path and maps back to the name
    (`host_from_token`): the name's UTF-8 percent-encoded except for `A-Z a-z 0-9 . _ -`, cut
    into components of at most `TOKEN_PART_BYTES` joined by `/`, with a `.` that would begin
    a component encoded too (no component is `.`, `..` or hidden). Distinct names give distinct
    tokens; any `str` round-trips, lone surrogates included. `store01.example.com` is its own
    token; the empty name is `~`."""
    if not name:
        return EMPTY_HOST_TOKEN
    parts: list[str] = []
    current = ""
    for byte in name.encode("utf-8", "surrogatepass"):
        unit = chr(byte) if byte in _TOKEN_SAFE and not (byte == 0x2E and not current) else ""
        if not unit:
            unit = f"%{byte:02X}"
        if len(current) + len(unit) > TOKEN_PART_BYTES:
            parts.append(current)
            current = "%2E" if unit == "." else unit
        else:
            current += unit
    parts.append(current)
    return "/".join(parts)


def host_from_token(token: str) -> str:
    """The host name `host_token` made `token` from; ValueError for text it cannot have made."""
    if token == EMPTY_HOST_TOKEN:
        return ""
    pieces = token.split("/")
    if not all(_TOKEN_PART.fullmatch(p) for p in pieces):
        raise ValueError(f"{token[:64]!a} is not a host token")
    raw = bytearray()
    for piece in pieces:
        for unit in _TOKEN_UNIT.findall(piece):
            raw += bytes([int(unit[1:], 16)]) if unit.startswith("%") else unit.encode("ascii")
    return raw.decode("utf-8", "surrogatepass")
