"""Disk rules: SMART health, degrading media, SATA links, misaligned partitions."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
