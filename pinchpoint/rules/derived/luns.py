"""The SAN LUNs the latency rules judge, by the kernel device their figures come from."""

from __future__ import annotations

from pinchpoint.model.findings import EntityRef
from pinchpoint.naming import fc_lun_path_ref, multipath_lun_ref
from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.attach import wwid_key


def san_luns(context: RuleContext) -> dict[str, EntityRef]:
    """The SAN LUNs by kernel name: each by its multipath map, else by the LUN's own device.
    A map over a SAS disk of the fabric is left out: that disk is judged as a disk, through
    its paths."""
    inventory = context.inventory
    devices: dict[str, EntityRef] = {}
    sas_wwids = {wwid_key(d.wwid) for d in inventory.sas.disks if d.wwid}
    for mpath in inventory.multipath.maps:
        if mpath.dm_device and wwid_key(mpath.wwid) not in sas_wwids:
            devices[mpath.dm_device] = multipath_lun_ref(mpath)
    mapped = {p.device for m in inventory.multipath.maps for p in m.paths if p.device}
    for port in inventory.fc.ports:
        for lun in port.luns:
            if lun.block_device and lun.block_device not in mapped:
                devices[lun.block_device] = fc_lun_path_ref(lun, port)
    return devices
