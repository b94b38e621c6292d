"""Network rules: downgraded links, half duplex, slower-than-peer NICs, degraded bonds, MTU
mismatches and impossible throughput (field cases 3 and 5). One module per rule; `RULES` in
catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.net import (
    bond_degraded,
    link_downgraded,
    link_errors,
    link_half_duplex,
    link_peer_outlier,
    mtu_mismatch,
    throughput_impossible,
)

RULES: tuple[Rule, ...] = (
    link_downgraded.RULE,
    link_half_duplex.RULE,
    link_peer_outlier.RULE,
    bond_degraded.RULE,
    mtu_mismatch.RULE,
    throughput_impossible.RULE,
    link_errors.RULE,
)
