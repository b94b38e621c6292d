"""The names statistics and `zpool status` use for the SAS disks — kernel names of their paths
and partitions, ZFS leaf paths, by-id names carrying a WWN — to disk ids: the few look-ups the
latency accounting needs, without building the statistics' full `EntityIndex` (a 1,920-path
host pays for that)."""

from __future__ import annotations

import posixpath
import re

from pinchpoint.model.inventory import Inventory
from pinchpoint.stats.attach import wwid_key

_PARTITION = re.compile(r"^(?P<disk>(?:sd|vd|xvd|hd)[a-z]+)\d+$")
_BY_ID_PARTITION = re.compile(r"-part\d+$")


class DiskNames:
    """Kernel names, ZFS leaf names and by-id names of one inventory's SAS disks."""

    def __init__(self, inventory: Inventory) -> None:
        self.by_kernel = {
            p.block_device: d.id for d in inventory.sas.disks for p in d.paths if p.block_device
        }
        self.by_wwid = {wwid_key(d.wwid): d.id for d in inventory.sas.disks if d.wwid}
        self.leaves: dict[str, str] = {}  # a ZFS leaf's path or name -> its kernel name
        for pool in inventory.zfs.pools:
            for leaf in pool.leaves():
                if leaf.block_device:
                    self.leaves[leaf.name] = leaf.block_device
                    if leaf.device_path:
                        self.leaves[leaf.device_path] = leaf.block_device

    def disk_id(self, name: str) -> str | None:
        """The disk a kernel name (`sdb`, `sdb1`, `/dev/sdb1`), a ZFS leaf name or a by-id
        name carrying its WWN (`wwn-0x5000cca2…`, with or without `-part1`) is about."""
        kernel = self.leaves.get(name) or posixpath.basename(name)
        found = self.by_kernel.get(kernel)
        if found is None:
            partition = _PARTITION.match(kernel)
            if partition is not None:
                found = self.by_kernel.get(partition["disk"])
        if found is None:
            found = self.by_wwid.get(wwid_key(_BY_ID_PARTITION.sub("", kernel)))
        return found
