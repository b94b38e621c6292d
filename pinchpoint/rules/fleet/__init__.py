"""Fleet rules: what only a comparison of several hosts shows, evaluated by a central service
(`GET /v1/fleet/findings`) on the newest inventory of each host. One module per rule; `RULES`
in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.fleet import firmware_mismatch, nic_peer_outlier

RULES: tuple[Rule, ...] = (nic_peer_outlier.RULE, firmware_mismatch.RULE)
