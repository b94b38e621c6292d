"""Latency rules: groups and disks that stand out among peers, averages above published limits."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
