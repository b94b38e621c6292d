"""The names `zpool status` and the statistics give disks (kernel names, ZFS leaf paths, by-id
names), mapped to the SAS fabric's disks once per check."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.disk_names import DiskNames


def disk_names(context: RuleContext) -> DiskNames:
    """The host's disk-name look-ups (`DiskNames.disk_id`)."""
    return DiskNames(context.inventory)
