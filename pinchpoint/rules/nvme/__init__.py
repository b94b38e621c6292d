"""NVMe native multipath rules. One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.nvme import subsystem_single_path

RULES: tuple[Rule, ...] = (subsystem_single_path.RULE,)
