"""PCIe rules: cards whose link trained below what card and slot support, and cards whose ports
together carry more than the link they share (field cases 3 and 5). One module per rule;
`RULES` in catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.pcie import link_downgraded, slot_oversubscribed

RULES: tuple[Rule, ...] = (link_downgraded.RULE, slot_oversubscribed.RULE)
