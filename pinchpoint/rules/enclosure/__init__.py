"""Enclosure rules: what an enclosure's SES elements (power supplies, fans, sensors, I/O modules)
report. One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.enclosure import element_failed

RULES: tuple[Rule, ...] = (element_failed.RULE,)
