"""Which devices hold a ZFS pool's write-back: their writes are gathered in memory and issued
in bursts at each transaction group sync, filling each disk's queue on purpose, so no
application waits for them. The latency rules judge such devices on their reads."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.zfs import VdevRole
from pinchpoint.stats.attach import EntityIndex
from pinchpoint.stats.disk_names import DiskNames

# The sections of a pool whose devices ZFS writes at transaction group syncs (a spare in use
# is listed under its data vdev; an available one gets no I/O; log devices take sync writes).
WRITE_BACK_ROLES = frozenset({VdevRole.DATA, VdevRole.SPECIAL, VdevRole.DEDUP, VdevRole.CACHE})


def write_back_entities(inventory: Inventory) -> frozenset[str]:
    """The disks and LUNs (by entity id) whose writes are a ZFS pool's write-back: the leaves
    of its data, special and dedup vdevs and its cache devices. A synchronous write waits for
    the intent log, which is why the leaves of a log vdev are not in the set, nor idle spares.
    SAS disks are found by name; anything else (a LUN) through the statistics' index."""
    if not inventory.zfs.pools:
        return frozenset()
    names = DiskNames(inventory)
    index: EntityIndex | None = None
    found: set[str] = set()
    for pool in inventory.zfs.pools:
        for vdev in pool.vdevs:
            if vdev.role not in WRITE_BACK_ROLES:
                continue
            for leaf in vdev.leaves():
                name = leaf.device_path or leaf.block_device or leaf.name
                disk_id = names.disk_id(leaf.block_device or name)
                if disk_id is not None:
                    found.add(disk_id)
                    continue
                index = index or EntityIndex(inventory)
                attached = index.attach(name)
                if attached is not None:
                    found.add(attached.entity_id)
    return frozenset(found)


def judged_directions(entity_id: str, write_back: frozenset[str]) -> tuple[str, ...]:
    """Reads and writes, or only reads where the writes are a ZFS pool's write-back."""
    return ("read",) if entity_id in write_back else ("read", "write")
