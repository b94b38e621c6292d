"""Each ZFS pool's vdev tree for a terminal: pool → top-level vdev → device, each device with
its state, error counts and where a technician finds it — the enclosure and bay (joined the way
the ZFS rules join them), the controller of a disk off the SAS fabric, or "not found"."""

from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

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

    def where(self, device: Device | None, leaf: Vdev) -> str:
        if device is not None and device.disk is not None:
            return device.ref.name  # enclosure and bay (naming.disk_ref)
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


def _counts(vdev: Vdev | Pool) -> str:
    if vdev.read_errors is None and vdev.write_errors is None and vdev.checksum_errors is None:
        return "no counts"  # a spare: zpool prints none
    return " · ".join(
        f"{what} {count if count is not None else '—'}"
        for what, count in (
            ("read", vdev.read_errors),
            ("write", vdev.write_errors),
            ("checksum", vdev.checksum_errors),
        )
    )


def _vdev_label(vdev: Vdev, section: str | None) -> Text:
    head = f"{section}: " if section else ""
    return Text(f"{head}{printable(vdev.name)} {vdev.state or '—'} · {_counts(vdev)}")


def _leaf_label(leaf: Vdev, where: str) -> Text:
    """A line each for name, state and counts, note, place: a long device path or bay name is
    never cut or split by a narrow terminal."""
    lines = [printable(leaf.name), f"{leaf.state or '—'} · {_counts(leaf)}"]
    if leaf.note:
        lines.append(printable(leaf.note))
    lines.append(where if where == NOT_FOUND else f"at {where}")
    return Text("\n".join(lines))


def _add(node: Tree, vdev: Vdev, found: dict[str, Device], places: _Places) -> None:
    for child in vdev.children:
        if child.children:
            _add(node.add(_vdev_label(child, None)), child, found, places)
        else:
            node.add(_leaf_label(child, places.where(found.get(child.id), child)))


def pool_tree(pool: Pool, places: _Places) -> Tree:
    """One pool: its top-level vdevs in zpool's order (data, then logs, cache, spares …)."""
    tree = Tree(Text(f"pool {printable(pool.name)} {pool.state or '—'} · {_counts(pool)}"))
    found = places.devices(pool)
    for top in pool.vdevs:
        section = _SECTION.get(top.role)
        if top.children:
            _add(tree.add(_vdev_label(top, section)), top, found, places)
        else:  # a single-disk top-level vdev
            label = _leaf_label(top, places.where(found.get(top.id), top))
            tree.add(Text(f"{section}: ") + label if section else label)
    return tree


def pool_trees(inventory: Inventory) -> list[Tree]:
    """Every pool's vdev tree, in `zpool status` order."""
    places = _Places(inventory)
    return [pool_tree(pool, places) for pool in inventory.zfs.pools]
