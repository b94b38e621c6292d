"""What the absolute-limit rules (`latency.threshold`, `latency.disk.overwhelmed`) judge beside
the SAN LUNs: imported volumes, and SAS disks reported by enclosure."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk
from pinchpoint.model.stats import EntityStats, ImportedStats, StatsEntityKind
from pinchpoint.naming import disk_ref, enclosure_ref, volume_ref


def judged_volumes(imported: Sequence[ImportedStats]) -> Iterator[tuple[EntityRef, EntityStats]]:
    """Imported volumes (PerfMon logical and physical disks), which stand alone without an
    inventory; the `_Total` sums are left out."""
    for stats in imported:
        for entity in stats.entities:
            if entity.kind is not StatsEntityKind.VOLUME or entity.name.endswith("(_Total)"):
                continue
            yield volume_ref(entity.name), entity


@dataclass(frozen=True)
class DiskGroup:
    """Disks reported together: an enclosure's (named by it), or one disk outside any."""

    ref: EntityRef
    disks: list[Disk]


def disk_groups(inventory: Inventory, disk_ids: Iterable[str]) -> list[DiskGroup]:
    """The disks of `disk_ids` by enclosure, in the inventory's order."""
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
        groups.setdefault(key, DiskGroup(ref, [])).disks.append(disk)
    return list(groups.values())
