"""The statistics grouped at every level of the hierarchy (disk → enclosure → chain → HBA port
→ HBA; LUN → FC port; NIC → bond), with the config's "slow I/O" line."""

from __future__ import annotations

from pinchpoint.model.breakdown import Breakdown, GroupFigures, GroupLevel
from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.aggregate import ALL_LEVELS
from pinchpoint.stats.aggregate import breakdown as grouped


def breakdown(context: RuleContext) -> Breakdown:
    """Every level of the breakdown of this host's statistics."""
    return grouped(
        context.inventory,
        (*ALL_LEVELS, GroupLevel.NIC, GroupLevel.BOND),
        context.intervals,
        context.imported,
        context.slower_than_s,
        context.net_intervals,
    )


def group_figures(context: RuleContext, level: GroupLevel) -> list[GroupFigures]:
    """The groups of one level of the breakdown (empty when the level has none)."""
    for found in context.derived(breakdown).levels:
        if found.level is level:
            return list(found.groups)
    return []
