"""Network rules: downgraded links, half duplex, degraded bonds, MTU mismatches and
impossible throughput (field cases 3 and 5)."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
