"""Fibre Channel rules: ports, LUN paths and queue depths (field case 2). One module per rule;
`RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.fc import (
    lun_single_path,
    port_downgraded,
    port_errors,
    port_not_online,
    queue_depth_low,
)

RULES: tuple[Rule, ...] = (
    port_not_online.RULE,
    port_downgraded.RULE,
    lun_single_path.RULE,
    queue_depth_low.RULE,
    port_errors.RULE,
)
