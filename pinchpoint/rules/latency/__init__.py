"""Latency rules: groups and disks that stand out among peers, averages above published limits.
One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.latency import disk_outlier, disk_overwhelmed, group_outlier, threshold

RULES: tuple[Rule, ...] = (
    group_outlier.RULE,
    disk_outlier.RULE,
    threshold.RULE,
    disk_overwhelmed.RULE,
)
