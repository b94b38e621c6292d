"""Each ZFS pool's vdev tree as data, for the terminal inventory and the web's enclosure page:
pool → top-level vdev → device, each device with its state, error counts and where a
technician finds it — the enclosure and bay (joined the way the ZFS rules join them), the
controller of a disk off the SAS fabric, or not found."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pinchpoint.model.block import BlockDevice
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.zfs import Pool, Vdev, VdevRole
from pinchpoint.naming import block_disk_name, multipath_lun_name
from pinchpoint.rules.zfs.devices import Device, devices
from pinchpoint.stats.attach import AttachedKind, EntityIndex
from pinchpoint.stats.disk_names import DiskNames
from pinchpoint.text import printable

NOT_FOUND = "not found in this inventory"
_SECTION = {
    VdevRole.LOG: "logs",
    VdevRole.CACHE: "cache",
    VdevRole.SPARE: "spares",
    VdevRole.SPECIAL: "special",
    VdevRole.DEDUP: "dedup",
}


class VdevNode(BaseModel):
    """A vdev (mirror-0, raidz2-1, spare-4 …) or a device, with what is below it."""

    name: str  # as zpool prints it: "mirror-0", a device path, a missing device's GUID
    section: str | None = None  # a top-level vdev outside the data: "logs", "cache", "spares"
    state: str | None = None
    read_errors: int | None = None  # None where zpool prints no counts (spares)
    write_errors: int | None = None
    checksum_errors: int | None = None
    note: str | None = None  # "too many errors", "was /dev/…", "(resilvering)"
    device: bool = False  # a leaf: a disk, partition or file
    place: str | None = None  # a device's enclosure and bay, controller, or NOT_FOUND
    disk_id: str | None = None  # the SAS fabric's disk it is, when it is one
    enclosure_id: str | None = None
    slot: int | None = None
    children: list[VdevNode] = Field(default_factory=list)

    def leaves(self) -> list[VdevNode]:
        if self.device:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


class PoolNode(BaseModel):
    """One pool with its state, its own error counts and its top-level vdevs in order."""

    name: str
    state: str | None = None
    read_errors: int | None = None
    write_errors: int | None = None
    checksum_errors: int | None = None
    vdevs: list[VdevNode] = Field(default_factory=list)

    def leaves(self) -> list[VdevNode]:
        return [leaf for vdev in self.vdevs for leaf in vdev.leaves()]


class _Places:
    """Where each pool device is: the ZFS rules' join to the SAS fabric's disks first; for a
    device that join leaves out, the statistics' index of every block device (built once)."""

    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self.names = DiskNames(inventory)
        self._index: EntityIndex | None = None
        self._blocks = {d.id: d for d in inventory.block.devices}

    def devices(self, pool: Pool) -> dict[str, Device]:
        return {d.leaf.id: d for d in devices(pool, self.inventory, self.names)}

    def where(self, leaf: Vdev) -> str:
        """The controller, LUN or block device of a device the SAS join did not find."""
        if self._index is None:
            self._index = EntityIndex(self.inventory)
        for name in (leaf.block_device, leaf.device_path, leaf.name):
            found = self._index.attach(name) if name else None
            if found is None:
                continue
            if found.kind is AttachedKind.BLOCK_DEVICE:
                block: BlockDevice | None = self._blocks.get(found.entity_id)
                return block_disk_name(block) if block is not None else found.entity_id
            if found.kind is AttachedKind.LUN:
                maps = self.inventory.multipath.maps
                mpath = next((m for m in maps if m.id == found.entity_id), None)
                return multipath_lun_name(mpath) if mpath is not None else found.entity_id
            return found.entity_id
        return NOT_FOUND


def _node(vdev: Vdev, section: str | None, found: dict[str, Device], places: _Places) -> VdevNode:
    node = VdevNode(
        name=printable(vdev.name),
        section=section,
        state=vdev.state,
        read_errors=vdev.read_errors,
        write_errors=vdev.write_errors,
        checksum_errors=vdev.checksum_errors,
        note=printable(vdev.note) if vdev.note else None,
        device=not vdev.children,
    )
    if vdev.children:
        node.children = [_node(child, None, found, places) for child in vdev.children]
        return node
    device = found.get(vdev.id)
    if device is not None and device.disk is not None:
        node.place = device.ref.name  # enclosure and bay (naming.disk_ref)
        node.disk_id = device.disk.id
        node.enclosure_id = device.disk.enclosure_id
        node.slot = device.disk.slot
    else:
        node.place = places.where(vdev)
    return node


def pool_trees(inventory: Inventory) -> list[PoolNode]:
    """Every pool's vdev tree, in `zpool status` order (data, then logs, cache, spares …)."""
    places = _Places(inventory)
    trees = []
    for pool in inventory.zfs.pools:
        found = places.devices(pool)
        trees.append(
            PoolNode(
                name=printable(pool.name),
                state=pool.state,
                read_errors=pool.read_errors,
                write_errors=pool.write_errors,
                checksum_errors=pool.checksum_errors,
                vdevs=[_node(top, _SECTION.get(top.role), found, places) for top in pool.vdevs],
            )
        )
    return trees
