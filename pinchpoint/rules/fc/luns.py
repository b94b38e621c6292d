"""SAN LUNs counted by WWID across every FC port, with every path to them: what the LUN rules
of the FC domain share."""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.model.fc import FcInventory, FcLun, FcPort
from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import wwid_lun_ref
from pinchpoint.stats.attach import wwid_key

SCSI_DISK_TYPE = 0  # peripheral type of a LUN that holds data (12 is the array's controller)


@dataclass
class LunPaths:
    """One logical unit (by WWID) and every FC path to it."""

    wwid: str
    paths: list[tuple[FcPort, FcLun]] = field(default_factory=list)

    @property
    def adapters(self) -> set[str]:
        return {port.adapter_id or port.id for port, _ in self.paths}


def lun_paths(fc: FcInventory) -> list[LunPaths]:
    """Data LUNs by WWID with every path to them, in the inventory's order."""
    found: dict[str, LunPaths] = {}
    for port in fc.ports:
        for lun in port.luns:
            if lun.scsi_type not in (None, SCSI_DISK_TYPE):
                continue
            key = wwid_key(lun.wwid) if lun.wwid else lun.id
            found.setdefault(key, LunPaths(wwid=lun.wwid or lun.id)).paths.append((port, lun))
    return list(found.values())


def lun_ref(lun: LunPaths, inventory: Inventory) -> EntityRef:
    """A LUN by its multipath map where it has one (the id the statistics use), else its path."""
    key = wwid_key(lun.wwid)
    mpath = next((m for m in inventory.multipath.maps if wwid_key(m.wwid) == key), None)
    port, first_path = lun.paths[0]
    return wwid_lun_ref(mpath, first_path, port)
