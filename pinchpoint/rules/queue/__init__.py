"""Queue rules: device queues too deep for disks that seek, too shallow for flash (field case
4). One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.queue import hdd_too_deep, ssd_too_shallow

RULES: tuple[Rule, ...] = (hdd_too_deep.RULE, ssd_too_shallow.RULE)
