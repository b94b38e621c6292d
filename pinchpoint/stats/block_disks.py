"""The disks outside the SAS fabric and the SAN that the statistics and the queue and latency
rules judge as disks: whole disks and NVMe namespaces on AHCI/SATA, NVMe, virtio or other SCSI
controllers, each once.

Left out, so nothing is judged twice: a path of a SAS disk of the fabric (judged as that disk),
a path of a multipath map or an FC LUN (judged as the LUN), a hidden NVMe path (`nvme0c1n1`,
judged through its namespace head), a device whose place in the device tree was not read,
and the stacked devices themselves — a device-mapper map
(LVM, crypt; a dm-multipath map is a LUN) or an md array has no queue of its own beside its
members', whose I/O is counted on the members."""

from __future__ import annotations

import re

from pinchpoint.model.block import BlockDevice, BlockKind
from pinchpoint.model.inventory import Inventory
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
