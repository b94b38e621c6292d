"""The disks and LUNs whose writes are a ZFS pool's write-back, judged on their reads."""

from __future__ import annotations

from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.write_back import write_back_entities


def pool_write_back(context: RuleContext) -> frozenset[str]:
    """The entity ids of the host's write-back devices (empty without a pool)."""
    return write_back_entities(context.inventory)
