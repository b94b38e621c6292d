"""ZFS rules: pools and vdevs not online, errors counted on pool devices, vdevs mixing disks.
One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.zfs import pool_degraded, pool_errors, vdev_mixed

RULES: tuple[Rule, ...] = (pool_degraded.RULE, pool_errors.RULE, vdev_mixed.RULE)
