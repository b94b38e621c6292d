"""PCIe rules: links below their maximum, ports sharing a slot they oversubscribe."""

from __future__ import annotations

from pinchpoint.rules.base import Rule

RULES: tuple[Rule, ...] = ()
