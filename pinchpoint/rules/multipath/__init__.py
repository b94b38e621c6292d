"""dm-multipath rules: paths down or missing. One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.multipath import path_failed

RULES: tuple[Rule, ...] = (path_failed.RULE,)
