"""SAS fabric rules: paths, chains, links, ports and phys (field case 1). One module per rule;
`RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.sas import (
    chain_imbalance,
    chain_too_deep,
    disk_missing_path,
    enclosure_same_hba,
    enclosure_single_path,
    link_downgraded,
    phy_errors,
    port_degraded,
)

RULES: tuple[Rule, ...] = (
    enclosure_single_path.RULE,
    enclosure_same_hba.RULE,
    disk_missing_path.RULE,
    chain_imbalance.RULE,
    chain_too_deep.RULE,
    link_downgraded.RULE,
    port_degraded.RULE,
    phy_errors.RULE,
)
