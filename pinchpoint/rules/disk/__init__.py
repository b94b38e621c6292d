"""Disk rules: SMART health, degrading media, SATA links, misaligned partitions, heat, self-tests
and SSD wear. One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.disk import (
    partition_misaligned,
    sata_link_downgraded,
    selftest_failed,
    smart_degrading,
    smart_failed,
    ssd_worn,
    temperature_high,
)

RULES: tuple[Rule, ...] = (
    smart_failed.RULE,
    smart_degrading.RULE,
    sata_link_downgraded.RULE,
    partition_misaligned.RULE,
    temperature_high.RULE,
    selftest_failed.RULE,
    ssd_worn.RULE,
)
