"""What the absolute-limit rules (`latency.threshold`, `latency.disk.overwhelmed`) judge beside
the SAN LUNs: imported volumes, SAS disks reported by enclosure, and disks on any other
controller (AHCI/SATA, NVMe, virtio, SCSI) reported by controller."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from pinchpoint.model.block import BlockDevice, ControllerKind
from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import EntityStats, ImportedStats, StatsEntityKind
from pinchpoint.naming import block_disk_ref, controller_ref, disk_ref, enclosure_ref, volume_ref

# Controllers with one disk each: such a disk is reported by itself, not by its controller.
ONE_DISK_CONTROLLERS = (ControllerKind.NVME, ControllerKind.VIRTIO)


def judged_volumes(imported: Sequence[ImportedStats]) -> Iterator[tuple[EntityRef, EntityStats]]:
    """Imported volumes (PerfMon logical and physical disks), which stand alone without an
    inventory; the `_Total` sums are left out."""
    for stats in imported:
        for entity in stats.entities:
            if entity.kind is not StatsEntityKind.VOLUME or entity.name.endswith("(_Total)"):
                continue
            yield volume_ref(entity.name), entity


@dataclass(frozen=True)
class JudgedDisk:
    """A disk the rules judge: a SAS disk of the fabric or a disk on another controller."""

    id: str
    ref: EntityRef


@dataclass(frozen=True)
class DiskGroup:
    """Disks reported together: an enclosure's (named by it), a controller's (named by it),
    or one disk outside any."""

    ref: EntityRef
    disks: list[JudgedDisk]


def disk_groups(
    inventory: Inventory, disk_ids: Iterable[str], others: Sequence[BlockDevice] = ()
) -> list[DiskGroup]:
    """The disks of `disk_ids` by enclosure, in the inventory's order; then those of `others`
    (disks outside the SAS fabric) by controller — an NVMe namespace or a virtio disk, one
    per controller, by itself."""
    wanted = set(disk_ids)
    enclosures = {e.id: e for e in inventory.sas.enclosures}
    groups: dict[str, DiskGroup] = {}
    for disk in inventory.sas.disks:
        if disk.id not in wanted:
            continue
        enclosure = enclosures.get(disk.enclosure_id or "")
        if enclosure is not None:
            key, ref = enclosure.id, enclosure_ref(enclosure)
        else:
            key, ref = disk.id, disk_ref(disk, inventory)
        judged = JudgedDisk(disk.id, disk_ref(disk, inventory))
        groups.setdefault(key, DiskGroup(ref, [])).disks.append(judged)
    for device in others:
        if device.id not in wanted:
            continue
        own = block_disk_ref(device)
        controller = device.controller
        if controller is None or controller.kind in ONE_DISK_CONTROLLERS:
            key, ref = device.id, own
        else:
            key, ref = controller.id, controller_ref(controller)
        groups.setdefault(key, DiskGroup(ref, [])).disks.append(JudgedDisk(device.id, own))
    return list(groups.values())
