"""The disks outside the SAS fabric and the SAN that the statistics and the queue and latency
rules judge as disks: whole disks and NVMe namespaces on AHCI/SATA, NVMe, virtio or other SCSI
controllers, each once; and the stacked devices above disks, judged as what they are.

Left out of the disks, so nothing is judged twice: a path of a SAS disk of the fabric (judged
as that disk), a path of a multipath map or an FC LUN (judged as the LUN), a hidden NVMe path
(`nvme0c1n1`, judged through its namespace head), a device whose place in the device tree was
not read, and the stacked devices themselves — a device-mapper map (LVM, crypt; a dm-multipath
map is a LUN) or an md array. A stacked device has no queue of its own to set: a request-based
dm map queues on its paths, a bio-based one (LVM, crypt) and an md array pass each I/O down to
their members, whose queue settings are what the queue rules judge. Their latency is their
own, though — the members' plus what the layer adds (encryption, a thin pool's allocation, a
resync) — so `stacked_devices` gives them, with their members, to the latency rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pinchpoint.model.block import BlockDevice, BlockKind, StackLayer, stack_layer
from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import (
    block_disk_ref,
    disk_ref,
    multipath_lun_ref,
    stacked_device_ref,
)
from pinchpoint.stats.attach import EntityIndex, wwid_key

_HIDDEN_NVME_PATH = re.compile(r"^nvme\d+c\d+n\d+$")
_STACKED = (BlockKind.DEVICE_MAPPER, BlockKind.MD)


def other_disks(inventory: Inventory) -> list[BlockDevice]:
    """The host's disks outside the SAS fabric and the SAN, in the block inventory's order."""
    sas = inventory.sas.disks
    sas_names = {p.block_device for d in sas for p in d.paths if p.block_device}
    sas_wwids = {wwid_key(d.wwid) for d in sas if d.wwid}
    maps = inventory.multipath.maps
    lun_paths = {p.device for m in maps for p in m.paths if p.device}
    lun_paths |= {
        lun.block_device for p in inventory.fc.ports for lun in p.luns if lun.block_device
    }
    lun_wwids = {wwid_key(m.wwid) for m in maps if m.wwid}
    multipath_maps = {
        d.name
        for d in inventory.block.devices
        if d.kind is BlockKind.DEVICE_MAPPER and (d.dm_uuid or "").startswith("mpath-")
    }
    found = []
    for device in inventory.block.devices:
        if device.kind in _STACKED or _HIDDEN_NVME_PATH.match(device.name):
            continue
        if device.controller is None:
            continue  # where it hangs was not read: no place to judge it in
        if device.name in sas_names or device.name in lun_paths:
            continue
        key = wwid_key(device.wwid) if device.wwid else None
        if key is not None and (key in sas_wwids or key in lun_wwids):
            continue
        if multipath_maps.intersection(device.holders):
            continue  # a path of a dm-multipath map: its queue is the map's
        found.append(device)
    return found


def pool_disk_ids(inventory: Inventory) -> frozenset[str]:
    """The entity ids of every device of a ZFS pool (any role), whatever it hangs from: the
    disks ZFS's own per-leaf queue (`zfs_vdev_*_max_active`) applies to."""
    leaves = [leaf for pool in inventory.zfs.pools for leaf in pool.leaves()]
    if not leaves:
        return frozenset()
    index = EntityIndex(inventory)
    found: set[str] = set()
    for leaf in leaves:
        for name in (leaf.block_device, leaf.device_path, leaf.name):
            attached = index.attach(name) if name else None
            if attached is not None:
                found.add(attached.entity_id)
                break
    return frozenset(found)


@dataclass(frozen=True)
class StackMember:
    """One device a stacked device is built on, as its `slaves/` lists it, and the entity the
    other findings call it by (a SAS disk by enclosure and bay, a LUN, a disk off the fabric,
    another stacked device)."""

    name: str  # the kernel name `slaves/` lists: "sdb", "sda2", "md0", "dm-3"
    ref: EntityRef


@dataclass(frozen=True)
class StackedDevice:
    """A dm device (not a multipath map) or an md array, what layer it is, and its members."""

    device: BlockDevice
    layer: StackLayer
    members: list[StackMember]


def stacked_devices(inventory: Inventory) -> list[StackedDevice]:
    """Every md array and device-mapper device but a multipath map (a LUN), in the block
    inventory's order, each with its members named as the rest of the report names them."""
    stacks = [
        (device, layer)
        for device in inventory.block.devices
        if (layer := stack_layer(device)) is not None and layer is not StackLayer.MULTIPATH
    ]
    if not stacks:
        return []  # most hosts: no names to look up
    refs = _member_refs(inventory)
    found = []
    for device, layer in stacks:
        names = device.slaves or device.md_members  # an array's own list where `slaves/` is not
        members = [StackMember(name, refs.get(name) or _unknown(name)) for name in names]
        found.append(StackedDevice(device, layer, members))
    return found


def _member_refs(inventory: Inventory) -> dict[str, EntityRef]:
    """Kernel name (whole device or partition) → the entity it belongs to."""
    refs: dict[str, EntityRef] = {}
    for disk in inventory.sas.disks:
        ref = disk_ref(disk, inventory)
        refs.update({p.block_device: ref for p in disk.paths if p.block_device})
    for mpath in inventory.multipath.maps:
        ref = multipath_lun_ref(mpath)
        refs.update({p.device: ref for p in mpath.paths if p.device})
        if mpath.dm_device:
            refs[mpath.dm_device] = ref
    for device in inventory.block.devices:
        if device.name not in refs:
            layer = stack_layer(device)
            if layer is StackLayer.MULTIPATH:
                continue  # a map the multipath inventory did not list: by its kernel name
            refs[device.name] = (
                block_disk_ref(device) if layer is None else stacked_device_ref(device)
            )
        refs.update({p.name: refs[device.name] for p in device.partitions if p.name not in refs})
    return refs


def _unknown(name: str) -> EntityRef:
    """A member the inventory holds nothing else about: by its kernel name."""
    return EntityRef(kind=EntityKind.BLOCK_DEVICE, id=f"block:name:{name}", name=name)
