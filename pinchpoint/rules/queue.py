"""Queue rules: device queues too deep for disks that seek, too shallow for flash (case 4)."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
