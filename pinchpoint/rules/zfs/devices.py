"""What the ZFS rules share: how much redundancy a vdev has left, which devices failed, and the
name a technician finds each one by (its enclosure and slot where the SAS fabric knows it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk
from pinchpoint.model.zfs import Pool, Vdev, VdevKind, VdevRole
from pinchpoint.naming import disk_ref
from pinchpoint.stats.disk_names import DiskNames

# States in which a device does no I/O for the pool (a DEGRADED leaf still does).
NOT_SERVING = frozenset({"FAULTED", "OFFLINE", "UNAVAIL", "REMOVED"})
HEALTHY = frozenset({"ONLINE", "AVAIL", "INUSE"})  # INUSE/AVAIL: spares
POOL_LOST = frozenset({"FAULTED", "UNAVAIL", "SUSPENDED"})
_PARITY = {VdevKind.RAIDZ1: 1, VdevKind.RAIDZ2: 2, VdevKind.RAIDZ3: 3}
_DRAID_PARITY = re.compile(r"^draid(\d)")
_WAS = re.compile(r"\bwas (\S+)")


def pool_ref(pool: Pool) -> EntityRef:
    return EntityRef(kind=EntityKind.POOL, id=pool.id, name=f"pool {pool.name}")


def parity(vdev: Vdev) -> int:
    """How many of a top-level vdev's children may fail with the data still there."""
    if vdev.kind is VdevKind.MIRROR:
        return max(len(vdev.children) - 1, 0)
    if vdev.kind is VdevKind.DRAID:
        found = _DRAID_PARITY.match(vdev.name)
        return int(found.group(1)) if found else 1
    return _PARITY.get(vdev.kind, 0)


def _missing(child: Vdev) -> bool:
    """A child that no longer holds its share in full: gone (FAULTED, UNAVAIL …), or an
    interior vdev (replacing, spare) not ONLINE — its new disk is still being written."""
    if child.children:
        return child.state not in HEALTHY
    return child.state in NOT_SERVING


def redundancy_left(vdev: Vdev) -> int:
    """More children the top-level `vdev` can lose (−1: it has already lost its data)."""
    if not vdev.children:  # a single-disk vdev
        return -1 if vdev.state in NOT_SERVING else 0
    return parity(vdev) - sum(1 for c in vdev.children if _missing(c))


def data_vdevs(pool: Pool) -> list[Vdev]:
    return pool.vdevs_in(VdevRole.DATA)


def pool_redundancy_left(pool: Pool) -> int | None:
    """The fewest more disks any data vdev can lose; None for a pool with no data vdevs."""
    left = [redundancy_left(v) for v in data_vdevs(pool)]
    return min(left) if left else None


@dataclass(frozen=True)
class Device:
    """A leaf of a pool's tree, with the top-level vdev above it and the disk it is."""

    leaf: Vdev
    top: Vdev
    ref: EntityRef  # the disk by enclosure and slot, or the device by its ZFS name
    disk: Disk | None  # the SAS fabric's disk, when the leaf is one


def devices(pool: Pool, inventory: Inventory, names: DiskNames) -> Iterator[Device]:
    """Every leaf of the pool (data, log, cache, spare), named."""
    disks = {d.id: d for d in inventory.sas.disks}
    for top in pool.vdevs:
        for leaf in top.leaves():
            disk_id = names.disk_id(leaf.device_path or leaf.name)
            if disk_id is None and leaf.note and (was := _WAS.search(leaf.note)):
                disk_id = names.disk_id(was.group(1))  # a missing disk shown by GUID
            disk = disks.get(disk_id or "")
            if disk is not None:
                ref = disk_ref(disk, inventory)
            else:
                name = leaf.name  # as zpool prints it: a path, or a missing disk's GUID
                ref = EntityRef(kind=EntityKind.VDEV, id=leaf.id, name=name)
            yield Device(leaf, top, ref, disk)


def counts_text(vdev: Vdev) -> str:
    """`read 1, write 29, checksum 4`: the non-zero error counts of a device."""
    parts = [
        f"{what} {count}"
        for what, count in (
            ("read", vdev.read_errors),
            ("write", vdev.write_errors),
            ("checksum", vdev.checksum_errors),
        )
        if count
    ]
    return ", ".join(parts) or "no errors counted"


def error_total(vdev: Vdev) -> int:
    return (vdev.read_errors or 0) + (vdev.write_errors or 0) + (vdev.checksum_errors or 0)
