"""SAN rules: FC ports, LUN paths and queue depths, over-subscribed paths (field case 2)."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
