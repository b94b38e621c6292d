"""iSCSI rules. One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.iscsi import target_single_path

RULES: tuple[Rule, ...] = (target_single_path.RULE,)
