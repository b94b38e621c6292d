"""SAN rules: what only the SAN as a whole shows — an over-subscribed path (field case 2).
One module per rule; `RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.san import oversubscribed

RULES: tuple[Rule, ...] = (oversubscribed.RULE,)
